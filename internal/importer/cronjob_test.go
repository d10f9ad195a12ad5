package importer_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/importer"
)

// cronJobYAML is a CronJob with the given schedule and container (YAML
// flow mapping text).
func cronJobYAML(ns, schedule, container string) string {
	meta := "{name: task}"
	if ns != "" {
		meta = "{name: task, namespace: " + ns + "}"
	}
	return "apiVersion: batch/v1\nkind: CronJob\nmetadata: " + meta + "\nspec:\n  schedule: '" + schedule +
		"'\n  jobTemplate: {spec: {template: {spec: {containers: [" + container + "]}}}}\n"
}

// TestCronJobMapping checks each mapping a CronJob's container goes
// through.
func TestCronJobMapping(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		opts    importer.CronJobOptions
		want    []string
		notWant []string
		warning string
		errs    int
		jobs    int
	}{
		{name: "kubernetes dialect", src: cronJobYAML("", "0 0 */2 * 1", "{name: c, command: [/bin/x]}"),
			want: []string{"cron_dialect  => 'kubernetes'", "time_zone     => 'UTC'"}, jobs: 1},
		{name: "namespace prefix", src: cronJobYAML("prod", "@daily", "{name: c, command: [/bin/x]}"),
			want: []string{"job { 'prod-task':"}, jobs: 1},
		{name: "no namespace prefix", src: cronJobYAML("prod", "@daily", "{name: c, command: [/bin/x]}"),
			opts: importer.CronJobOptions{NoNamespacePrefix: true}, want: []string{"job { 'task':"}, jobs: 1},
		{name: "$(VAR) from env, $$ escapes, unknown kept",
			src:  cronJobYAML("", "@daily", "{name: c, command: [/bin/x, '$(A)-$$(A)-$(B)', '$(', '$x'], env: [{name: A, value: 'a $(Z)'}]}"),
			want: []string{"['/bin/x', 'a $(Z)-$(A)-$(B)', '$(', '$x']"}, warning: "$(B) is not a variable", jobs: 1},
		{name: "args without command skipped", src: cronJobYAML("", "@daily", "{name: c, image: busybox, args: [echo, hi]}"),
			warning: "--container-runtime", jobs: 0},
		{name: "podman runs the image", opts: importer.CronJobOptions{ContainerRuntime: "podman"},
			src:     cronJobYAML("", "@daily", "{name: c, image: 'busybox:1.36', args: [echo, '$(GREETING)'], workingDir: /w, env: [{name: GREETING, value: hi}]}"),
			want:    []string{"['podman', 'run', '--rm', '--env', 'GREETING', '--workdir', '/w', '--', 'busybox:1.36', 'echo', 'hi']", "env           => { 'GREETING' => 'hi' }"},
			notWant: []string{"cwd", "not imported: image"}, jobs: 1},
		{name: "docker with command and args", opts: importer.CronJobOptions{ContainerRuntime: "docker"},
			src:  cronJobYAML("", "@daily", "{name: c, image: perl, command: [perl, -e], args: ['print 1']}"),
			want: []string{"['docker', 'run', '--rm', '--entrypoint', 'perl', '--', 'perl', '-e', 'print 1']"}, jobs: 1},
		{name: "a bad document does not drop the others",
			src:  cronJobYAML("", "@daily", "{name: c, command: [/bin/x]}") + "---\nkind: CronJob\nspec: [\n---\n" + cronJobYAML("b", "@hourly", "{name: c, command: [/bin/y]}"),
			errs: 1, jobs: 2, want: []string{"job { 'task':", "job { 'b-task':", "not imported"}},
		{name: "a type error is one bad document",
			src:  "kind: CronJob\nspec: {schedule: [1]}\n---\n" + cronJobYAML("", "@daily", "{name: c, command: [/bin/x]}"),
			errs: 1, jobs: 1},
		{name: "a YAML \\0 escape in the command is refused", src: cronJobYAML("", "@daily", `{name: c, command: [sh, -c, "echo a\0b"]}`),
			warning: "command[2] holds a NUL character", notWant: []string{"\x00", "job {"}, jobs: 0},
		{name: "a NUL in an env value is refused", src: cronJobYAML("", "@daily", `{name: c, command: [/bin/x], env: [{name: A, value: "a\0"}]}`),
			warning: "env A holds a NUL character", notWant: []string{"\x00", "job {"}, jobs: 0},
		{name: "other control characters are escaped", src: cronJobYAML("", "@daily", `{name: c, command: [printf, "\e[31mred\a $HOME \"q\" \\ \r"], env: [{name: A, value: "tab\there"}]}`),
			want:    []string{`['printf', "\u{1B}[31mred\u{7} \$HOME \"q\" \\ \r"]`, "{ 'A' => 'tab\there' }"},
			notWant: []string{"\x1b", "\a", "\r"}, jobs: 1},
		{name: "@every is not kubernetes", src: cronJobYAML("", "@every 5m", "{name: c, command: [/bin/x]}"), warning: "not imported", jobs: 0},
		{name: "day of week 7 is not kubernetes", src: cronJobYAML("", "0 0 * * 7", "{name: c, command: [/bin/x]}"), warning: "not imported", jobs: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := importer.CronJob("f.yaml", []byte(tt.src), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			checkParses(t, res)
			if res.Jobs != tt.jobs || len(res.Errors) != tt.errs {
				t.Fatalf("%d jobs, errors %q; want %d and %d\n%s", res.Jobs, res.Errors, tt.jobs, tt.errs, res.Manifest)
			}
			checkOutput(t, res, tt.want, tt.notWant, tt.warning)
		})
	}
	if _, err := importer.CronJob("f", nil, importer.CronJobOptions{ContainerRuntime: "lxc"}); err == nil {
		t.Error("runtime lxc accepted")
	}
}

// TestCronJobAliasBomb imports a document whose 1 MB scalar is used
// through 300 aliases (and a billion-laughs nest) and checks that it is
// refused as one bad document without expanding it, while a valid
// document beside it is imported.
func TestCronJobAliasBomb(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	var wide strings.Builder
	wide.WriteString("kind: CronJob\nmetadata: {name: bomb}\nspec:\n  schedule: '@daily'\n  jobTemplate: {spec: {template: {spec: {containers: [{name: c, command: [&a '" + big + "'")
	for range 300 {
		wide.WriteString(", *a")
	}
	wide.WriteString("]}]}}}}\n")
	laughs := "kind: CronJob\nmetadata: {name: laughs}\nx0: &x0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
	for i := 1; i < 12; i++ {
		p := "*x" + itoa(i-1)
		laughs += "x" + itoa(i) + ": &x" + itoa(i) + " [" + strings.Repeat(p+", ", 9) + p + "]\n"
	}
	valid := cronJobYAML("", "@daily", "{name: c, command: [/bin/x]}")
	for name, bomb := range map[string]string{"wide": wide.String(), "laughs": laughs} {
		t.Run(name, func(t *testing.T) {
			src := []byte(bomb + "---\n" + valid)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			res, err := importer.CronJob("bomb.yaml", src, importer.CronJobOptions{})
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("%d bytes in, %d KiB allocated", len(src), alloc>>10)
			if alloc > allocBound(64<<20) {
				t.Errorf("allocated %d MiB", alloc>>20)
			}
			if res.Jobs != 1 || len(res.Errors) != 1 || !strings.Contains(res.Errors[0], "aliases expand") {
				t.Fatalf("%d jobs, errors %q", res.Jobs, res.Errors)
			}
		})
	}
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// TestCronJobKubectlList imports what `kubectl get cronjobs -A -o yaml`
// prints: a List whose items are CronJobs with every default the API
// server fills in. Every item is imported; the defaults raise no warning
// (only what differs from them, such as resource limits, does); the
// CronJob kept only to be run by hand (schedule 0 0 31 2 *, suspended) is
// a suspended manual job; with a container runtime both containers of a
// pod run, at once, and the job fails if either does.
func TestCronJobKubectlList(t *testing.T) {
	const kdir = "../../testdata/import-kubectl"
	src, err := os.ReadFile(filepath.Join(kdir, "cronjobs-list.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		golden  string
		runtime string
	}{{"cronjobs-list.yaml", ""}, {"cronjobs-list.yaml.podman", "podman"}} {
		t.Run(tc.golden, func(t *testing.T) {
			res, err := importer.CronJob("cronjobs-list.yaml", src, importer.CronJobOptions{ContainerRuntime: tc.runtime})
			if err != nil {
				t.Fatal(err)
			}
			checkParses(t, res)
			if res.Jobs != 3 || len(res.Errors) != 0 {
				t.Errorf("%d jobs, errors %q; want every item of the List", res.Jobs, res.Errors)
			}
			for _, w := range res.Warnings {
				for _, noise := range []string{"imagePullPolicy", "terminationMessage", "dnsPolicy", "schedulerName", "securityContext", "terminationGracePeriodSeconds", "restartPolicy", "status"} {
					if strings.Contains(w, noise) {
						t.Errorf("a warning about a default: %s", w)
					}
				}
			}
			golden(t, filepath.Join(kdir, tc.golden+".pp"), res.Manifest)
			golden(t, filepath.Join(kdir, tc.golden+".warnings"), strings.Join(res.Warnings, "\n")+"\n")
		})
	}
}

// TestCronJobPodScriptRuns runs the script a two-container pod becomes,
// with a stand-in podman that fails for one image: the job fails when
// either container fails and succeeds when both do, as the pod would.
func TestCronJobPodScriptRuns(t *testing.T) {
	src, err := os.ReadFile("../../testdata/import-kubectl/cronjobs-list.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := importer.CronJob("cronjobs-list.yaml", src, importer.CronJobOptions{ContainerRuntime: "podman"})
	if err != nil {
		t.Fatal(err)
	}
	var script string
	for _, spec := range compileManifest(t, "cronjobs-list.yaml", res).Jobs {
		if spec.Name == "prod-db-backup" {
			script = spec.Shell
		}
	}
	if script == "" {
		t.Fatal("no shell script for prod-db-backup")
	}
	bin := t.TempDir()
	podman := "#!/bin/sh\necho \"$@\" >> \"$LOG\"\ncase \"$*\" in *\"$FAIL\"*) exit 3;; esac\n"
	if err := os.WriteFile(filepath.Join(bin, "podman"), []byte(podman), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		fail string
		want int
	}{{"no-such-image", 0}, {"log-shipper", 1}, {"pg-backup", 1}} {
		log := filepath.Join(t.TempDir(), "log")
		cmd := exec.Command("/bin/sh", "-c", script)
		cmd.Env = append(os.Environ(), "PATH="+bin+":/usr/bin:/bin", "LOG="+log, "FAIL="+tc.fail, "BUCKET=backups", "PGHOST=db.prod")
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		calls, _ := os.ReadFile(log)
		if code != tc.want || strings.Count(string(calls), "\n") != 2 {
			t.Errorf("with %s failing: exit %d (want %d), podman called:\n%s", tc.fail, code, tc.want, calls)
		}
	}
}
