package manifestjob

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/catalog"
	"github.com/almanac-sh/almanac/internal/cron"
	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/manifest"
	"github.com/almanac-sh/almanac/internal/puppetsched"
)

func parseCron(_, expr string, loc *time.Location) (job.Schedule, error) {
	return cron.Parse(expr, cron.WithLocation(loc))
}

func compile(t *testing.T, src string) *catalog.Catalog {
	t.Helper()
	f, err := manifest.ParseFile("site.pp", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	cat, err := catalog.Compile(f)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return cat
}

func TestFromCatalog(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string // JSON of the specs
	}{
		{
			name: "every attribute",
			src: `job { 'backup':
  cron => '0 2 * * *', time_zone => 'europe-berlin',
  command => ['/usr/local/bin/backup', '--all'],
  env => {'MODE' => 'full', 'LEVEL' => 3, 'DRY' => false},
  cwd => '/srv', starting_deadline_seconds => 3600,
  concurrency_policy => 'Forbid', suspend => true, backoff_limit => 2, timeout => 600,
  successful_jobs_history_limit => 5, failed_jobs_history_limit => 2,
}`,
			want: `[{"name":"backup","cron":"0 2 * * *","time_zone":"Europe/Berlin","command":["/usr/local/bin/backup","--all"],` +
				`"env":{"DRY":"false","LEVEL":"3","MODE":"full"},"cwd":"/srv","starting_deadline_seconds":3600,"concurrency_policy":"Forbid",` +
				`"suspend":true,"backoff_limit":2,"timeout_seconds":600,"successful_jobs_history_limit":5,"failed_jobs_history_limit":2}]`,
		},
		{
			name: "shell string, at, defaults, namevar",
			src:  `job { 'Say hello': name => 'hello', at => '2025-03-01T10:00:00+01:00', command => 'echo hi' }`,
			want: `[{"name":"hello","at":"2025-03-01T09:00:00Z","shell":"echo hi","concurrency_policy":"Allow"}]`,
		},
		{
			name: "require, before, arrows and chains between jobs",
			src: `job { 'dump': cron => '0 2 * * *', command => 'dump', before => Job['backup'] }
job { 'backup': cron => '0 2 * * *', command => 'backup', require => Job['dump'] }
job { 'report': cron => '0 2 * * *', command => 'report' }
job { 'notify': cron => '0 2 * * *', command => 'notify', subscribe => Job['report'] }
Job['backup'] -> Job['report']`,
			want: `[{"name":"backup","cron":"0 2 * * *","shell":"backup","concurrency_policy":"Allow","require":["dump"]},` +
				`{"name":"dump","cron":"0 2 * * *","shell":"dump","concurrency_policy":"Allow","before":["backup"]},` +
				`{"name":"notify","cron":"0 2 * * *","shell":"notify","concurrency_policy":"Allow","require":["report"]},` +
				`{"name":"report","cron":"0 2 * * *","shell":"report","concurrency_policy":"Allow","require":["backup"]}]`,
		},
		{
			name: "schedule gate, other resources ignored, virtual job ignored",
			src: `schedule { 'weekend': windows => [{days => ['Sat', 'Sun'], start_time => '00:00', length_minutes => 1440}] }
exec { 'x': command => '/bin/true', schedule => 'weekend' }
@job { 'virtual': cron => '* * * * *', command => 'x' }
job { 'gated': cron => '0 2 * * *', command => 'x', schedule => 'weekend' }`,
			want: `[{"name":"gated","cron":"0 2 * * *","shell":"x","concurrency_policy":"Allow","schedule":"weekend"}]`,
		},
		{
			name: "nodes selector",
			src:  `job { 'rotate': cron => '0 3 * * *', command => 'logrotate', nodes => 'role in (web,db), zone!=eu' }`,
			want: `[{"name":"rotate","cron":"0 3 * * *","shell":"logrotate","concurrency_policy":"Allow","nodes":"role in (web,db), zone!=eu"}]`,
		},
		{
			name: "rolling wave: a window per selector, a count, max_failures, random order",
			src: `schedule { 'db-weekend': weekday => ['Sat', 'Sun'] }
job { 'patch': cron => '0 3 * * *', command => 'patch', nodes => 'role=db',
  window => { 'role=db, zone=eu' => 'db-weekend', default => 'anytime' },
  max_parallel => 2, max_failures => 1, wave_order => 'random' }`,
			want: `[{"name":"patch","cron":"0 3 * * *","shell":"patch","concurrency_policy":"Allow","nodes":"role=db",` +
				`"window":{"default":"anytime","role=db, zone=eu":"db-weekend"},"max_parallel":"2","max_failures":1,"wave_order":"random"}]`,
		},
		{
			name: "catch_up",
			src:  `job { 'gated': cron => '* * * * *', command => 'x', catch_up => all }`,
			want: `[{"name":"gated","cron":"* * * * *","shell":"x","concurrency_policy":"Allow","catch_up":"all"}]`,
		},
		{
			name: "rolling wave: one window for every node, a percentage",
			src: `schedule { 'nights': range => '01:00 - 04:00' }
job { 'patch': cron => '0 3 * * *', command => 'patch', nodes => all, window => 'nights', max_parallel => ' 25% ', reboot_group => 'db' }`,
			want: `[{"name":"patch","cron":"0 3 * * *","shell":"patch","concurrency_policy":"Allow","nodes":"all",` +
				`"window":{"default":"nights"},"max_parallel":"25%","reboot_group":"db"}]`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := FromCatalog(compile(t, tt.src), parseCron)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(set.Jobs)
			if string(b) != tt.want {
				t.Errorf("specs\n got %s\nwant %s", b, tt.want)
			}
		})
	}
}

func TestFromCatalogErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string // every error line, in order
	}{
		{
			name: "bad cron and zone, positioned at the resource",
			src:  "\n  job { 'a': cron => '61 * * * *', time_zone => 'Mars/Base', command => 'x' }",
			want: []string{"site.pp:2:9: Job[a]: time_zone: ", "site.pp:2:9: Job[a]: cron: "},
		},
		{
			name: "invalid job name and empty argv",
			src:  "job { 'bad name': cron => '* * * * *', command => [] }",
			want: []string{"site.pp:1:7: Parameter command failed on Job[bad name]: the argv array is empty"},
		},
		{
			name: "name validation",
			src:  "job { 'bad name': cron => '* * * * *', command => 'x' }",
			want: []string{`site.pp:1:7: Job[bad name]: name: job name "bad name" must be 1-128 letters`},
		},
		{
			name: "fractional timeout and nested env",
			src:  "job { 'a': cron => '* * * * *', command => 'x', timeout => 1.5, env => {'A' => [1]} }",
			want: []string{"Parameter env failed on Job[a]: the value of \"A\" must be a String, a number or a Boolean, not an Array",
				"Parameter timeout failed on Job[a]: 1.5: expected a whole number of seconds"},
		},
		{
			name: "bad nodes selector",
			src:  "job { 'a': cron => '* * * * *', command => 'x',\n  nodes => 'role=db;zone=eu' }",
			want: []string{"site.pp:1:7: Job[a]: nodes: col 8: want ',' between terms, found ';'"},
		},
		{
			name: "wave attributes on a job that does not fan out",
			src:  "schedule { 'w': range => '01:00 - 02:00' }\njob { 'a': cron => '* * * * *', command => 'x', window => 'w', max_parallel => 2 }",
			want: []string{"site.pp:2:7: Job[a]: window: applies only to a job that fans out", "site.pp:2:7: Job[a]: max_parallel: applies only to a job that fans out"},
		},
		{
			name: "bad window key and value, bad max_parallel and max_failures",
			src: "schedule { 'w': range => '01:00 - 02:00' }\njob { 'a': cron => '* * * * *', command => 'x', nodes => 'role=db',\n" +
				"  window => { 'role=db zone=eu' => 'w', 'any' => 'w' }, max_parallel => '0', max_failures => -2 }",
			want: []string{
				`site.pp:2:7: Job[a]: window[any]: "any" would be every node: use the key "default" for the nodes no other key matches`,
				"site.pp:2:7: Job[a]: window[role=db zone=eu]: col 9: want ',' between terms",
				`site.pp:2:7: Job[a]: max_parallel: want a positive count or a percentage such as 25%, got "0"`,
				"site.pp:2:7: Job[a]: max_failures: must be between 0 (never stop) and 1048576, not -2",
			},
		},
		{
			name: "a window that names no schedule",
			src:  "job { 'a': cron => '* * * * *', command => 'x', nodes => all,\n  window => { 'zone=eu' => 'eu-nights', 'default' => 'never' } }",
			want: []string{`site.pp:1:7: Job[a]: window[zone=eu]: no schedule named "eu-nights"`},
		},
		{
			name: "a window of the wrong shape",
			src:  "job { 'a': cron => '* * * * *', command => 'x', nodes => all, window => ['w'] }",
			want: []string{"site.pp:1:7: Parameter window failed on Job[a]: expected a String (the window of every node) or a Hash of node selector => window name, not an Array"},
		},
		{
			name: "a window name that is not a String",
			src:  "job { 'a': cron => '* * * * *', command => 'x', nodes => all, window => { 'default' => 3 } }",
			want: []string{`site.pp:1:7: Parameter window failed on Job[a]: the window of "default" must be a String (a schedule or named window), not int64`},
		},
		{
			name: "a period schedule cannot gate a job",
			src:  "job { 'a': cron => '* * * * *', command => 'x', schedule => 'daily' }",
			want: []string{`site.pp:1:7: Job[a]: schedule "daily" has period => daily, which limits how often`},
		},
		{
			name: "a job cannot wait for an exec",
			src:  "exec { '/bin/true': }\njob { 'a': cron => '* * * * *', command => 'x', require => Exec['/bin/true'] }",
			want: []string{"site.pp:2:49: Job[a] cannot be ordered against Exec[/bin/true] (require): a job's run can wait only for other jobs"},
		},
		{
			name: "two titles, one job name",
			src:  "job { 'a': cron => '* * * * *', command => 'x' }\njob { 'b': name => 'a', cron => '* * * * *', command => 'x' }",
			want: []string{`site.pp:2:7: Job[b]: a job named "a" is already declared at site.pp:1:7`},
		},
	}
	// Check, which keeps no job, finds exactly what FromCatalog finds.
	convs := []struct {
		name string
		run  func(*catalog.Catalog) error
	}{
		{"FromCatalog", func(cat *catalog.Catalog) error { _, err := FromCatalog(cat, parseCron); return err }},
		{"Check", func(cat *catalog.Catalog) error { _, err := Check(cat, parseCron, nil, nil); return err }},
	}
	for _, tt := range tests {
		for _, conv := range convs {
			t.Run(tt.name+"/"+conv.name, func(t *testing.T) {
				err := conv.run(compile(t, tt.src))
				var el manifest.ErrorList
				if !errors.As(err, &el) {
					t.Fatalf("err = %v, want a manifest.ErrorList", err)
				}
				if len(el) != len(tt.want) {
					t.Fatalf("got %d errors, want %d:\n%v", len(el), len(tt.want), err)
				}
				for i, w := range tt.want {
					if !strings.Contains(el[i].Error(), w) {
						t.Errorf("error %d = %q, want it to contain %q", i, el[i].Error(), w)
					}
				}
			})
		}
	}
}

// TestCheckManyErrors converts more bad jobs than an ErrorList keeps: the
// first manifest.MaxErrors are listed, the rest counted, by FromCatalog
// and by Check alike; jobs ordered against each other are checked with
// their relationships.
func TestCheckManyErrors(t *testing.T) {
	var b strings.Builder
	const bad = manifest.MaxErrors + 500
	for i := range bad {
		fmt.Fprintf(&b, "job { 'j%d': cron => '99 * * * *', command => 'x' }\n", i)
	}
	b.WriteString("job { 'first': cron => '* * * * *', command => 'x' }\n")
	b.WriteString("job { 'second': cron => '* * * * *', command => 'x', require => Job['first'], before => Job['first'] }\n")
	cat := compile(t, b.String())
	_, errFrom := FromCatalog(cat, parseCron)
	_, errCheck := Check(cat, parseCron, nil, nil)
	for name, err := range map[string]error{"FromCatalog": errFrom, "Check": errCheck} {
		var el manifest.ErrorList
		if !errors.As(err, &el) {
			t.Fatalf("%s: err = %v, want a manifest.ErrorList", name, err)
		}
		if got, want := el.Count(), bad+1; got != want {
			t.Errorf("%s: Count() = %d, want %d", name, got, want)
		}
		if len(el) != manifest.MaxErrors+1 {
			t.Errorf("%s: %d entries, want %d and one that counts the rest", name, len(el), manifest.MaxErrors)
		}
		if last := el[len(el)-1].Error(); last != "... and 501 more errors" {
			t.Errorf("%s: last entry %q", name, last)
		}
		if first := el[0].Error(); !strings.HasPrefix(first, "site.pp:1:7: Job[j0]: cron: ") {
			t.Errorf("%s: first entry %q", name, first)
		}
	}
}

// TestCheckWarnings: Check returns the run_as and reboot-group warnings
// the Set's methods give.
func TestCheckWarnings(t *testing.T) {
	src := "job { 'a': cron => '* * * * *', command => 'x', run_as => 'no-such-user-here' }\n" +
		"reboot_group { 'g': window => 'nowhere' }\n"
	cat := compile(t, src)
	set, err := FromCatalog(cat, parseCron)
	if err != nil {
		t.Fatal(err)
	}
	want := append(set.UnknownWindows(nil), set.HostRunAsWarnings()...)
	got, err := Check(cat, parseCron, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 2 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Check warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestGate(t *testing.T) {
	cat := compile(t, `schedule { 'weekend': time_zone => 'Europe/Berlin',
  windows => [{days => ['Sat', 'Sun'], start_time => '00:00', length_minutes => 1440}] }
schedule { 'nights': range => '22:00 - 04:00' }
job { 'a': cron => '* * * * *', command => 'x', schedule => 'weekend' }
job { 'b': cron => '* * * * *', command => 'x', schedule => 'nights' }
job { 'c': cron => '* * * * *', command => 'x', schedule => 'never' }`)
	set, err := FromCatalog(cat, parseCron)
	if err != nil {
		t.Fatal(err)
	}
	var gates Gates
	if _, ok := gates.Lookup("weekend"); ok {
		t.Fatal("the zero Gates has a gate")
	}
	gates.Store(set.Gates)
	berlin, _ := time.LoadLocation("Europe/Berlin")
	fri := time.Date(2025, 6, 6, 12, 0, 0, 0, berlin) // a Friday
	tests := []struct {
		gate     string
		at       time.Time
		open     bool
		nextOpen time.Time // zero: never
	}{
		{"weekend", fri, false, time.Date(2025, 6, 7, 0, 0, 0, 0, berlin)},
		{"weekend", time.Date(2025, 6, 7, 2, 0, 0, 0, berlin), true, time.Date(2025, 6, 7, 2, 0, 0, 0, berlin)},
		{"nights", time.Date(2025, 6, 6, 12, 0, 0, 0, time.UTC), false, time.Date(2025, 6, 6, 22, 0, 0, 0, time.UTC)},
		{"nights", time.Date(2025, 6, 6, 3, 0, 0, 0, time.UTC), true, time.Date(2025, 6, 6, 3, 0, 0, 0, time.UTC)},
		{"never", fri, false, time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.gate+" "+tt.at.String(), func(t *testing.T) {
			g, ok := gates.Lookup(tt.gate)
			if !ok {
				t.Fatalf("no gate %q", tt.gate)
			}
			if got := g.Contains(tt.at); got != tt.open {
				t.Errorf("Contains = %v, want %v", got, tt.open)
			}
			next, ok := g.NextOpen(tt.at)
			if ok != !tt.nextOpen.IsZero() || ok && !next.Equal(tt.nextOpen) {
				t.Errorf("NextOpen = %v %v, want %v", next, ok, tt.nextOpen)
			}
		})
	}
}

// TestGateDefaultLocation checks that the zone FromCatalog is given is the
// one a schedule without time_zone reads its range in, so a job gate and
// agent mode agree on what '02:00 - 03:00' means.
func TestGateDefaultLocation(t *testing.T) {
	cat := compile(t, `schedule { 'early': range => '02:00 - 03:00' }
job { 'a': cron => '* * * * *', command => 'x', schedule => 'early' }`)
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	set, err := FromCatalog(cat, parseCron, puppetsched.WithDefaultLocation(ny))
	if err != nil {
		t.Fatal(err)
	}
	g := set.Gates["early"]
	tests := []struct {
		at   time.Time
		open bool
	}{
		{time.Date(2025, 1, 15, 7, 30, 0, 0, time.UTC), true},  // 02:30 in New York
		{time.Date(2025, 1, 15, 2, 30, 0, 0, time.UTC), false}, // 21:30 the day before
	}
	for _, tt := range tests {
		t.Run(tt.at.Format(time.RFC3339), func(t *testing.T) {
			if got := g.Contains(tt.at); got != tt.open {
				t.Fatalf("Contains(%s) = %v, want %v", tt.at, got, tt.open)
			}
		})
	}
}
