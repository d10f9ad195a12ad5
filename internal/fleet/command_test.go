package fleet

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
)

// writeScript writes an executable shell script into dir.
func writeScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCommandSource(t *testing.T) {
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls")
	list := writeScript(t, dir, "list", `cat <<'EOF'
[{"id":"i-1","name":"web-1","state":"running","tags":{"almanac-schedule-stop":"mon1800; rm -rf /"},"supports_hibernation":true},
 {"id":"i-2","state":"stopped","tags":{}}]
EOF
`)
	act := writeScript(t, dir, "act", `echo "$0 $*" >> "`+calls+`"`)
	src := &CommandSource{ListCmd: []string{list}, StartCmd: []string{act, "start"}, StopCmd: []string{act, "stop"}}
	ctx := context.Background()
	rs, err := src.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []Resource{
		{ID: "i-1", Name: "web-1", State: Running, Tags: map[string]string{"almanac-schedule-stop": "mon1800; rm -rf /"}, SupportsHibernation: true},
		{ID: "i-2", Name: "i-2", State: Stopped, Tags: map[string]string{}},
	}
	if !reflect.DeepEqual(rs, want) {
		t.Errorf("List = %+v", rs)
	}
	for _, f := range []func(context.Context, string) error{src.Start, src.Stop, src.Hibernate} {
		if err := f(ctx, "i-1; echo pwned"); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(calls)
	wantCalls := act + " start i-1; echo pwned\n" + act + " stop i-1; echo pwned\n" + act + " stop --hibernate i-1; echo pwned\n"
	if string(b) != wantCalls {
		t.Errorf("calls:\n%s\nwant:\n%s", b, wantCalls)
	}
}

func TestCommandSourceErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, script, want string
	}{
		{"not json", `echo hello`, "inventory command: output is not JSON at byte 1"},
		{"object", `echo '{"id":"x"}'`, `inventory command: output at byte 1: field "": want []fleet.Resource, got object`},
		{"bad state", `echo '[{"id":"x","state":"pending"}]'`, `inventory command: resource 0 (x): state "pending" is not running, stopped or hibernated`},
		{"missing id", `echo '[{"state":"running"}]'`, "inventory command: resource 0: missing id"},
		{"duplicate", `echo '[{"id":"a","state":"running"},{"id":"a","state":"running"}]'`, `inventory command: resource 1: duplicate id "a"`},
		{"trailing", `echo '[] []'`, "inventory command: output has data after the JSON array"},
		{"tags not strings", `echo '[{"id":"a","state":"running","tags":{"k":1}}]'`, `field "tags": want string, got number`},
		{"fails", `echo "credentials expired" >&2; echo more >&2; exit 3`, "exit status 3: credentials expired"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := &CommandSource{ListCmd: []string{writeScript(t, dir, strings.ReplaceAll(tt.name, " ", "_"), tt.script+"\n")}}
			_, err := src.List(context.Background())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
	slow := &CommandSource{ListCmd: []string{writeScript(t, dir, "slow", "exec sleep 5\n")}, Timeout: 50 * time.Millisecond}
	if _, err := slow.List(context.Background()); err == nil || !strings.Contains(err.Error(), "timed out after 50ms") {
		t.Errorf("slow: %v", err)
	}
	none := &CommandSource{}
	if err := none.Start(context.Background(), "x"); err == nil || err.Error() != "start x: no start command configured" {
		t.Errorf("no command: %v", err)
	}
	hib := &CommandSource{HibernateCmd: []string{writeScript(t, dir, "hib", "exit 1\n")}}
	if err := hib.Hibernate(context.Background(), "x"); err == nil || !strings.HasPrefix(err.Error(), "hibernate x: ") {
		t.Errorf("hibernate: %v", err)
	}
}

func TestDemoFleet(t *testing.T) {
	d := NewDemo()
	ctx := context.Background()
	rs, err := d.List(ctx)
	if err != nil || len(rs) != 8 {
		t.Fatalf("List: %d resources, %v", len(rs), err)
	}
	outcome := map[string]string{}
	for _, r := range rs {
		v := Validate(r.Tags, r.SupportsHibernation)
		switch {
		case len(v.Errors) > 0:
			outcome[r.Name] = "errors"
		case !v.Scheduled:
			outcome[r.Name] = "unscheduled"
		case len(v.Warnings) > 0:
			outcome[r.Name] = "warnings"
		default:
			outcome[r.Name] = "ok"
		}
	}
	want := map[string]string{"web-1": "ok", "web-2": "ok", "batch-1": "ok", "legacy-1": "warnings",
		"broken-1": "errors", "clash-1": "errors", "nozone-1": "errors", "db-1": "unscheduled"}
	if !reflect.DeepEqual(outcome, want) {
		t.Errorf("demo validation outcomes %v", outcome)
	}
	if err := d.Hibernate(ctx, "demo-web-1"); err == nil {
		t.Error("hibernated a machine without support")
	}
	d.FailNext("demo-web-1", 1)
	if err := d.Stop(ctx, "demo-web-1"); err == nil || !strings.Contains(err.Error(), "simulated failure") {
		t.Errorf("FailNext: %v", err)
	}
	if err := d.Stop(ctx, "demo-web-1"); err != nil {
		t.Fatal(err)
	}
	if err := d.SetTag("demo-web-1", "team", ""); err != nil {
		t.Fatal(err)
	}
	if err := d.SetState("demo-db-1", Hibernated); err != nil {
		t.Fatal(err)
	}
	if err := d.SetState("demo-db-1", "off"); err == nil {
		t.Error("invalid state accepted")
	}
	if err := d.Start(ctx, "nope"); err == nil {
		t.Error("unknown machine accepted")
	}
	rs, _ = d.List(ctx)
	rs[0].Tags["x"] = "mutated" // List returns copies
	again, _ := d.List(ctx)
	for _, r := range again {
		if r.ID == "demo-web-1" && (r.State != Stopped || r.Tags["team"] != "") {
			t.Errorf("web-1 after changes: %+v", r)
		}
		if r.Tags["x"] != "" {
			t.Error("List leaked internal tags map")
		}
	}
}

// The demo fleet through the scheduler for a week in New York: the web
// machines follow office hours, batch-1 hibernates, the broken ones are never
// touched.
func TestDemoFleetWeek(t *testing.T) {
	d := NewDemo()
	clk := clock.NewFake(time.Date(2024, 11, 1, 12, 0, 0, 0, time.UTC)) // Friday, the week DST ends
	log := NewMemoryLog(0)
	s, err := New(Config{Source: d, Clock: clk, Events: log})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	end := clk.Now().Add(7 * 24 * time.Hour)
	for clk.Now().Before(end) {
		clk.Set(s.Step(ctx, false))
	}
	acted := map[string]int{}
	for _, e := range log.Events("") {
		if e.Kind == EventActionSucceeded {
			acted[e.Name+" "+string(e.Action)]++
		}
	}
	// Friday 2024-11-01 12:00 UTC is 08:00 in New York, so Friday's 08:00
	// starts are already past (web-1 is running anyway), web-2 is already
	// stopped at Friday's 19:00, and legacy-1's Friday 09:00 start is not
	// needed. Eight days of Berlin nights give batch-1 five of each.
	want := map[string]int{
		"web-1 start": 4, "web-1 stop": 5, "web-2 start": 4, "web-2 stop": 4,
		"batch-1 start": 5, "batch-1 hibernate": 5, "legacy-1 start": 4, "legacy-1 stop": 5,
	}
	if !reflect.DeepEqual(acted, want) {
		t.Errorf("actions in the week: %v", acted)
	}
}
