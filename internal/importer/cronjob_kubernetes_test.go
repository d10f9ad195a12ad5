package importer_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/importer"
)

// TestCronJobKubernetesExecutor imports the output of `kubectl get
// cronjobs -A -o yaml` for the Kubernetes executor: each job keeps its
// jobTemplate as written (the golden file), its namespace, schedule, zone,
// policies, limits and suspend, and no backoff_limit or timeout of its own.
func TestCronJobKubernetesExecutor(t *testing.T) {
	const kdir = "../../testdata/import-kubectl"
	src, err := os.ReadFile(filepath.Join(kdir, "cronjobs-list.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := importer.CronJob("cronjobs-list.yaml", src, importer.CronJobOptions{Executor: importer.ExecutorKubernetes})
	if err != nil {
		t.Fatal(err)
	}
	checkParses(t, res)
	if res.Jobs != 3 || len(res.Errors) != 0 {
		t.Errorf("%d jobs, errors %q; want every item of the List", res.Jobs, res.Errors)
	}
	for _, want := range []string{"namespace    => 'prod'", "image: registry.example.com/pg-backup:2.3", "restartPolicy: OnFailure", "time_zone                     => 'Europe/Berlin'"} {
		if !strings.Contains(res.Manifest, want) {
			t.Errorf("manifest lacks %q", want)
		}
	}
	for _, absent := range []string{"backoff_limit", "timeout", "command "} {
		if strings.Contains(res.Manifest, absent) {
			t.Errorf("manifest has %q: the jobTemplate keeps the Job's own", absent)
		}
	}
	golden(t, filepath.Join(kdir, "cronjobs-list.yaml.kubernetes.pp"), res.Manifest)
	golden(t, filepath.Join(kdir, "cronjobs-list.yaml.kubernetes.warnings"), strings.Join(res.Warnings, "\n")+"\n")

	for _, opts := range []importer.CronJobOptions{{Executor: "lambda"}, {Executor: importer.ExecutorKubernetes, ContainerRuntime: "podman"}} {
		if _, err := importer.CronJob("x.yaml", src, opts); err == nil {
			t.Errorf("options %+v accepted", opts)
		}
	}
	bad := "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: x, namespace: a}\nspec:\n  schedule: '* * * * *'\n  jobTemplate:\n    spec:\n      template:\n        spec:\n          containerz: []\n"
	res, err = importer.CronJob("bad.yaml", []byte(bad), importer.CronJobOptions{Executor: importer.ExecutorKubernetes})
	if err != nil || res.Jobs != 0 || len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], "unknown field") {
		t.Errorf("an unreadable jobTemplate: %d jobs, warnings %q, err %v; want a warning and no job", res.Jobs, res.Warnings, err)
	}
}
