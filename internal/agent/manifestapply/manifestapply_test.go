package manifestapply

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/almanac-sh/almanac/internal/agent"
	"github.com/almanac-sh/almanac/internal/clock"
)

var day0 = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)

// writeManifest writes site.pp into a new directory; %[1]s in src is
// replaced by a scratch directory for the commands' output.
func writeManifest(t *testing.T, src string) (dir, out string) {
	t.Helper()
	dir, out = t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "site.pp"), []byte(strings.ReplaceAll(src, "%[1]s", out)), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, out
}

func lines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

func status(t *testing.T, rep *agent.Report, ref string) agent.ResourceStatus {
	t.Helper()
	for _, rs := range rep.Resources {
		if rs.Ref == ref {
			return rs
		}
	}
	t.Fatalf("no %s in report %+v", ref, rep.Resources)
	return agent.ResourceStatus{}
}

const refreshManifest = `
schedule { 'maint': range => '02:00 - 02:05', period => daily }
exec { 'deploy': command => 'echo deployed >> %[1]s/deploy', creates => '%[1]s/deploy' }
exec { 'reload':
  command     => 'echo reloaded >> %[1]s/reload',
  refreshonly => true,
  schedule    => 'maint',
  subscribe   => Exec['deploy'],
}
`

// A refresh-only resource whose notifier changes outside its window drops
// the event, as Puppet does, and the report says so.
func TestRefreshOutsideTheWindowIsDropped(t *testing.T) {
	dir, out := writeManifest(t, refreshManifest)
	clk := clock.NewFake(day0.Add(10 * time.Hour))
	a, err := New(Config{Dir: dir, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	state := agent.State{}
	rep, err := a.Apply(context.Background(), agent.Request{Trigger: agent.Trigger{Kind: agent.TriggerManual}, State: state})
	if err != nil {
		t.Fatal(err)
	}
	if n := lines(t, filepath.Join(out, "deploy")); n != 1 {
		t.Fatalf("deploy ran %d times, want 1", n)
	}
	if n := lines(t, filepath.Join(out, "reload")); n != 0 {
		t.Fatalf("reload ran %d times outside its window", n)
	}
	if st := status(t, rep, "Exec[deploy]"); st.Status != agent.StatusChanged {
		t.Errorf("deploy = %+v", st)
	}
	st := status(t, rep, "Exec[reload]")
	if st.Status != agent.StatusSkipped || !st.EventsDropped || st.Schedule != "maint" ||
		st.Reason != "not scheduled; its pending refresh events were dropped" {
		t.Errorf("reload = %+v", st)
	}
	found := false
	for _, ev := range rep.Events {
		found = found || (ev.Source == "Exec[reload]" && ev.Message == "Unscheduling all events on Exec[reload]")
	}
	if !found {
		t.Errorf("events do not say the refresh was dropped: %+v", rep.Events)
	}
	if rep.Status != agent.StatusChanged || rep.ExitCode != 2 || rep.Summary.Skipped != 1 || rep.Summary.Changed != 1 {
		t.Errorf("report = %+v", rep)
	}
	if len(rep.Gated) != 1 || rep.Gated[0].Ref != "Exec[reload]" || rep.Gated[0].Period != 24*time.Hour {
		t.Errorf("gated = %+v", rep.Gated)
	}
	if _, ok := state["Exec[deploy]"]; !ok {
		t.Errorf("state not updated: %v", state)
	}

	// Inside the window the next day, with no new event (deploy is in sync
	// now), a refresh-only exec has nothing to do: the dropped event is gone.
	clk.Set(day0.Add(26 * time.Hour))
	rep, err = a.Apply(context.Background(), agent.Request{State: state})
	if err != nil {
		t.Fatal(err)
	}
	if n := lines(t, filepath.Join(out, "reload")); n != 0 {
		t.Fatalf("reload ran %d times without an event", n)
	}
	if st := status(t, rep, "Exec[reload]"); st.Status != agent.StatusUnchanged || st.EventsDropped {
		t.Errorf("reload in the window = %+v", st)
	}
}

// The whole agent over the real engine and a real exec: a gated exec runs
// at 02:00 each day, exactly once, while the 30-minute interval never lands
// in its five-minute window.
func TestAgentRunsGatedExecAtItsOpening(t *testing.T) {
	dir, out := writeManifest(t, `
schedule { 'maint': range => '02:00 - 02:05', period => daily }
exec { 'vacuum': command => 'echo vacuum >> %[1]s/vacuum', schedule => 'maint' }
job { 'ignored': cron => '* * * * *', command => 'true' }
`)
	synctest.Test(t, func(t *testing.T) {
		clk := clock.NewFake(day0)
		ap, err := New(Config{Dir: dir, Clock: clk})
		if err != nil {
			t.Fatal(err)
		}
		store := agent.NewMemoryStore()
		a, err := agent.New(agent.Config{Applier: ap, Clock: clk, Store: store, Host: "db-7", Interval: 30 * time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if agent.Splay("db-7", 30*time.Minute) <= 5*time.Minute {
			t.Fatal("host phase lands in the window")
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- a.Run(ctx) }()
		synctest.Wait()
		end := day0.Add(2*24*time.Hour + 3*time.Hour)
		for {
			d, ok := clk.NextDeadline()
			if !ok || d.After(end) {
				break
			}
			clk.Set(d)
			synctest.Wait()
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if n := lines(t, filepath.Join(out, "vacuum")); n != 3 {
			t.Fatalf("vacuum ran %d times in 3 days, want 3", n)
		}
		reps, err := store.ListReports(context.Background(), agent.ReportFilter{Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		var gates []time.Time
		for _, r := range reps {
			if r.Error != "" {
				t.Fatalf("report %d failed: %s", r.ID, r.Error)
			}
			if r.Trigger.Kind == agent.TriggerSchedule {
				gates = append(gates, r.Start)
				if r.Summary.Changed != 1 {
					t.Errorf("gate report %d changed %d", r.ID, r.Summary.Changed)
				}
			}
		}
		if len(gates) != 3 {
			t.Fatalf("gate applies at %v, want 3", gates)
		}
		for _, g := range gates {
			if g.Hour() != 2 || g.Minute() != 0 || g.Second() != 0 {
				t.Errorf("gate apply at %v, want 02:00:00", g)
			}
		}
	})
}

func TestCompileErrorsAreReported(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"syntax", "exec { 'a': command => }\n", "site.pp:1:"},
		{"bad schedule", "schedule { 's': range => 'foo' }\nexec { 'a': schedule => 's' }\n", "Invalid range value 'foo'"},
		{"missing schedule", "exec { 'a': command => 'true', schedule => 'nope' }\n", "Could not find schedule nope"},
		{"cycle", "exec { 'a': require => Exec['b'] }\nexec { 'b': require => Exec['a'] }\n", "cycle"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := writeManifest(t, tc.src)
			a, err := New(Config{Dir: dir, Clock: clock.NewFake(day0)})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := a.Apply(context.Background(), agent.Request{State: agent.State{}})
			if err != nil {
				t.Fatal(err)
			}
			if rep.ExitCode != 1 || rep.Status != agent.StatusFailed || !strings.Contains(rep.Error, tc.want) {
				t.Errorf("report error %q exit %d status %s, want %q", rep.Error, rep.ExitCode, rep.Status, tc.want)
			}
		})
	}
	if _, err := New(Config{}); err == nil {
		t.Error("New without a directory succeeded")
	}
	// An empty directory applies nothing, successfully.
	a, _ := New(Config{Dir: t.TempDir(), Clock: clock.NewFake(day0)})
	rep, err := a.Apply(context.Background(), agent.Request{State: agent.State{}})
	if err != nil || rep.Error != "" || rep.ExitCode != 0 || rep.Status == agent.StatusFailed {
		t.Errorf("empty directory: %v %+v", err, rep)
	}
}

// hours is a named window for the test: open from one hour of the day
// (UTC) to another.
type hours struct{ from, to int }

func (h hours) Contains(t time.Time) bool { return t.UTC().Hour() >= h.from && t.UTC().Hour() < h.to }
func (h hours) NextOpen(t time.Time) (time.Time, bool) {
	if h.Contains(t) {
		return t, true
	}
	d := time.Date(t.Year(), t.Month(), t.Day(), h.from, 0, 0, 0, time.UTC)
	if !d.After(t) {
		d = d.AddDate(0, 0, 1)
	}
	return d, true
}

// A resource may name one of the daemon's named windows as its schedule:
// it is applied while the window is open and skipped, with the window's
// next opening, while it is closed.
func TestNamedWindowGatesAResource(t *testing.T) {
	dir, out := writeManifest(t, `exec { 'patch': command => 'echo patched >> %[1]s/patch', schedule => 'maint' }`+"\n")
	clk := clock.NewFake(day0.Add(10 * time.Hour))
	windows := func(name string) (WindowGate, bool) { return hours{2, 4}, name == "maint" }
	a, err := New(Config{Dir: dir, Clock: clk, Windows: windows})
	if err != nil {
		t.Fatal(err)
	}
	state := agent.State{}
	rep, err := a.Apply(context.Background(), agent.Request{State: state})
	if err != nil {
		t.Fatal(err)
	}
	if st := status(t, rep, "Exec[patch]"); st.Status != agent.StatusSkipped || st.Schedule != "maint" {
		t.Errorf("outside the window: %+v", st)
	}
	if len(rep.Gated) != 1 || rep.Gated[0].Schedule != "maint" {
		t.Fatalf("gated = %+v", rep.Gated)
	}
	if next, ok := rep.Gated[0].Gate.NextMatch(time.Time{}, clk.Now()); !ok || !next.Equal(day0.Add(26*time.Hour)) {
		t.Errorf("next opening %v, %v; want 02:00 the next day", next, ok)
	}
	clk.Set(day0.Add(26*time.Hour + time.Minute))
	if rep, err = a.Apply(context.Background(), agent.Request{State: state}); err != nil {
		t.Fatal(err)
	}
	if n := lines(t, filepath.Join(out, "patch")); n != 1 {
		t.Errorf("patch ran %d times inside its window, want 1 (report %+v)", n, rep.Resources)
	}

	// Without the window the name is unknown and the apply fails, as the
	// compiler says.
	noWin, _ := New(Config{Dir: dir, Clock: clk})
	rep, _ = noWin.Apply(context.Background(), agent.Request{State: agent.State{}})
	if rep == nil || !strings.Contains(rep.Error, "Could not find schedule maint") {
		t.Errorf("without the window: %+v", rep)
	}
}
