package importer_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/calendar"
	"github.com/almanac-sh/almanac/internal/catalog"
	"github.com/almanac-sh/almanac/internal/cron"
	"github.com/almanac-sh/almanac/internal/importer"
	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/manifest"
	"github.com/almanac-sh/almanac/internal/manifestjob"
	"github.com/almanac-sh/almanac/internal/oncalendar"
	"github.com/almanac-sh/almanac/internal/store"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const dir = "../../testdata/import"

// convert runs the importer a test input calls for: YAML is a CronJob
// file, a name starting with etc- a system crontab, anything else a user
// crontab.
func convert(t *testing.T, name string) importer.Result {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	var res importer.Result
	switch {
	case strings.HasSuffix(name, ".yaml"):
		res, err = importer.CronJob(name, src, importer.CronJobOptions{})
	default:
		res, err = importer.Crontab(name, src, crontabOptions(name))
	}
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func inputs(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if n := e.Name(); !strings.HasSuffix(n, ".pp") && !strings.HasSuffix(n, ".warnings") {
			out = append(out, n)
		}
	}
	if len(out) < 3 {
		t.Fatalf("only %d inputs in %s", len(out), dir)
	}
	return out
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// TestGolden compares each input's manifest and warnings with the files
// beside it.
func TestGolden(t *testing.T) {
	for _, name := range inputs(t) {
		t.Run(name, func(t *testing.T) {
			res := convert(t, name)
			golden(t, filepath.Join(dir, name+".pp"), res.Manifest)
			report := res.Warnings
			for _, e := range res.Errors {
				report = append(report, "error: "+e)
			}
			golden(t, filepath.Join(dir, name+".warnings"), strings.Join(report, "\n")+"\n")
		})
	}
}

func parseCron(name, expr string, loc *time.Location) (job.Schedule, error) {
	return cron.Parse(expr, cron.WithLocation(loc), cron.WithHashKey(name))
}

// specSchedule compiles a job spec's schedule by its dialect, as the job
// controller does.
func specSchedule(t *testing.T, spec store.JobSpec) job.Schedule {
	t.Helper()
	loc := time.UTC
	if spec.TimeZone != "" {
		var err error
		if loc, err = calendar.LoadZone(spec.TimeZone); err != nil {
			t.Fatal(err)
		}
	}
	var s job.Schedule
	var err error
	switch {
	case len(spec.OnCalendar) > 0:
		u := calendarUnion{}
		for _, e := range spec.OnCalendar {
			c, err := oncalendar.Parse(e, loc)
			if err != nil {
				t.Fatalf("%s: on_calendar %q: %v", spec.Name, e, err)
			}
			u = append(u, c)
		}
		return u
	case spec.CronDialect == "kubernetes":
		s, err = cron.Parse(spec.Cron, cron.WithLocation(loc), cron.WithDialect(cron.Kubernetes))
	default:
		s, err = parseCron(spec.Name, spec.Cron, loc)
	}
	if err != nil {
		t.Fatalf("%s: %v", spec.Name, err)
	}
	return s
}

// calendarUnion fires at the earliest next instant of its events.
type calendarUnion []*oncalendar.Spec

func (u calendarUnion) Next(t time.Time) time.Time {
	var best time.Time
	for _, s := range u {
		if n := s.Next(t); !n.IsZero() && (best.IsZero() || n.Before(best)) {
			best = n
		}
	}
	return best
}

// compileManifest compiles an imported manifest as `almanac validate` and
// `serve --manifests` do.
func compileManifest(t *testing.T, name string, res importer.Result) *manifestjob.Set {
	t.Helper()
	f, err := manifest.ParseFile(name+".pp", []byte(res.Manifest))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, res.Manifest)
	}
	cat, err := catalog.Compile(f)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	set, err := manifestjob.FromCatalog(cat, parseCron)
	if err != nil {
		t.Fatalf("jobs: %v\n%s", err, res.Manifest)
	}
	if len(set.Jobs) != res.Jobs || res.Jobs == 0 {
		t.Fatalf("%d jobs in the manifest, importer said %d", len(set.Jobs), res.Jobs)
	}
	return set
}

// TestRoundTrip compiles every imported manifest and checks that each job
// fires at the same instants as its source line: the schedule text
// recorded in the job's comment, parsed on its own in the source's
// dialect and zone.
func TestRoundTrip(t *testing.T) {
	from := time.Date(2026, 3, 27, 12, 0, 0, 0, time.UTC) // the week of a DST change in Europe
	for _, name := range inputs(t) {
		t.Run(name, func(t *testing.T) {
			res := convert(t, name)
			set := compileManifest(t, name, res)
			for _, spec := range set.Jobs {
				got := specSchedule(t, spec)
				src := spec
				src.Cron = sourceSchedule(t, res.Manifest, spec.Name)
				want := specSchedule(t, src)
				g, w := from, from
				for range 5 {
					g, w = got.Next(g), want.Next(w)
					if !g.Equal(w) {
						t.Errorf("%s: next fire %s, the source schedule says %s", spec.Name, g, w)
					}
				}
			}
		})
	}
}

// sourceSchedule recovers a job's schedule from the source line the
// importer quoted above it: the crontab's first five fields (or its @
// macro), or the CronJob's schedule without a CRON_TZ= prefix.
func sourceSchedule(t *testing.T, m, name string) string {
	t.Helper()
	i := strings.Index(m, "job { '"+name+"':")
	if i < 0 {
		t.Fatalf("no job %s", name)
	}
	head := m[:i]
	start := strings.LastIndex(head[:len(head)-1], "\n\n")
	block := head[start+2:]
	first, _, _ := strings.Cut(block, "\n")
	_, src, ok := strings.Cut(first, ": ")
	if !ok {
		t.Fatalf("no source comment above %s: %q", name, first)
	}
	if strings.Contains(src, "CronJob") || strings.Contains(src, "ScheduledJob") {
		// The YAML's schedule is not in the comment; the cron attribute
		// is the YAML's text, checked by the golden file.
		_, rest, _ := strings.Cut(m[i:], "cron")
		_, q, _ := strings.Cut(rest, "'")
		s, _, _ := strings.Cut(q, "'")
		return s
	}
	f := strings.Fields(src)
	if strings.HasPrefix(f[0], "@") {
		return f[0]
	}
	return strings.Join(f[:5], " ")
}

func FuzzCrontab(f *testing.F) {
	for _, s := range []string{
		"* * * * * echo hi\n", "MAILTO=a@b\nCRON_TZ=Europe/Berlin\n0 3 * * * x%y%z\n", "@reboot x\n@daily y\n",
		"SHELL=/bin/bash\n*/5 * * * * root run-parts\n", "61 * * * * bad\n", "A = 'quoted value'\n1 2 3 4 5 \\%cmd%in\n",
		"0 1 * * * flock -xn /l -c 'sh -c \"nice -n 19 php x.php\"'\n0 2 * * * if [ -x a ]; then `b $(c)`; fi\n", "0 3 * * * 'unclosed $(( \\\n",
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, src []byte, system bool) {
		opts := importer.CrontabOptions{System: importer.SystemNo, Zone: "Europe/Berlin"}
		if system {
			opts.System = importer.SystemYes
		}
		res, err := importer.Crontab("f", src, opts)
		if err != nil {
			return
		}
		checkParses(t, res)
	})
}

func FuzzCronJob(f *testing.F) {
	f.Add([]byte("apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: a}\nspec:\n  schedule: '* * * * *'\n  jobTemplate: {spec: {template: {spec: {containers: [{name: c, command: [x]}]}}}}\n"))
	f.Add([]byte("kind: CronJob\n---\nkind: ConfigMap\n---\n"))
	f.Add([]byte("spec: [1, 2]\n"))
	f.Add([]byte("apiVersion: v1\nkind: List\nitems:\n- apiVersion: batch/v1\n  kind: CronJob\n  metadata: {name: a}\n  spec:\n    schedule: '0 0 31 2 *'\n" +
		"    suspend: true\n    jobTemplate: {spec: {template: {spec: {containers: [{name: c, image: i, command: [x], env: [{name: A, value: '1'}]}, " +
		"{name: d, image: j, imagePullPolicy: Always, env: [{name: A, value: '2'}]}]}}}}\n- {kind: ConfigMap}\n- [1]\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		// On the host and with a container runtime, whose pods of
		// several containers become a script.
		for _, opts := range []importer.CronJobOptions{{}, {ContainerRuntime: "podman"}} {
			res, err := importer.CronJob("f", src, opts)
			if err != nil {
				return
			}
			checkParses(t, res)
		}
	})
}

// checkParses requires an importer's manifest to load whatever the input:
// valid manifest syntax (every value quoted correctly) whose jobs all pass
// the checks `almanac validate` and the daemon apply, so that one odd entry
// cannot keep the others from loading.
func checkParses(t *testing.T, res importer.Result) {
	t.Helper()
	f, err := manifest.ParseFile("out.pp", []byte(res.Manifest))
	if err != nil {
		t.Fatalf("the output does not parse: %v\n%s", err, res.Manifest)
	}
	cat, err := catalog.Compile(f)
	if err != nil {
		t.Fatalf("the output does not compile: %v\n%s", err, res.Manifest)
	}
	set, err := manifestjob.FromCatalog(cat, parseCron)
	if err != nil {
		t.Fatalf("the output's jobs are not valid: %v\n%s", err, res.Manifest)
	}
	if len(set.Jobs) != res.Jobs {
		t.Fatalf("%d jobs in the manifest, the importer said %d", len(set.Jobs), res.Jobs)
	}
}

// crontabOptions reads a name starting with etc- as a system crontab and
// the others as the web team's user crontab.
func crontabOptions(name string) importer.CrontabOptions {
	if strings.HasPrefix(name, "etc-") {
		return importer.CrontabOptions{System: importer.SystemYes, Zone: "America/New_York"}
	}
	return importer.CrontabOptions{User: "web", Zone: "America/New_York"}
}

// checkOutput requires each of want in the manifest, none of notWant, and
// warning (if any) among the warnings; runs of spaces do not count, so
// expectations do not depend on how the attributes are aligned.
func checkOutput(t *testing.T, res importer.Result, want, notWant []string, warning string) {
	t.Helper()
	m := squeeze(res.Manifest)
	for _, w := range want {
		if !strings.Contains(m, squeeze(w)) {
			t.Errorf("no %q in\n%s", w, res.Manifest)
		}
	}
	for _, w := range notWant {
		if strings.Contains(m, squeeze(w)) {
			t.Errorf("%q in\n%s", w, res.Manifest)
		}
	}
	if warning != "" && !strings.Contains(strings.Join(res.Warnings, "\n"), warning) {
		t.Errorf("warnings %q, want %q", res.Warnings, warning)
	}
}

// squeeze collapses runs of spaces.
func squeeze(s string) string {
	for strings.Contains(s, "  ") {
		s = strings.ReplaceAll(s, "  ", " ")
	}
	return s
}

// allocBound is an allocation bound, loosened under the race detector.
func allocBound(n uint64) uint64 {
	if raceEnabled {
		return 10 * n
	}
	return n
}
