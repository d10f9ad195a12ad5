package manifestjob

import (
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/catalog"
	"github.com/almanac-sh/almanac/internal/manifest"
)

// TestWaveAttributesCompile: the shapes of the job resource's fan-out
// attributes are the catalog's to check, positioned at the attribute.
func TestWaveAttributesCompile(t *testing.T) {
	tests := []struct{ src, want string }{
		{"job { 'a': cron => '* * * * *', command => 'x', nodes => all,\n  wave_order => 'alphabetical' }",
			`site.pp:2:3: Parameter wave_order failed on Job[a]: Invalid value "alphabetical". Valid values are name, random.`},
		{"job { 'a': cron => '* * * * *', command => 'x',\n  catch_up => 'some' }",
			`site.pp:2:3: Parameter catch_up failed on Job[a]: Invalid value "some". Valid values are latest, all, none.`},
		{"job { 'a': cron => '* * * * *', command => 'x', nodes => all, max_failures => 'two' }",
			`site.pp:1:63: Parameter max_failures failed on Job[a]: Invalid value "two": expected an Integer`},
		{"job { 'a': cron => '* * * * *', command => 'x', nodes => all, max_parallel => 2.5 }",
			`site.pp:1:63: Parameter max_parallel failed on Job[a]: Invalid value 2.5: expected an Integer or a String`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			f, err := manifest.ParseFile("site.pp", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			_, err = catalog.Compile(f)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("compile = %v, want %q", err, tt.want)
			}
		})
	}
}

// TestWindowGates: the gates a job's window names join the set's gates,
// so the daemon can resolve them, and a string window is every node's.
func TestWindowGates(t *testing.T) {
	set, err := FromCatalog(compile(t, `schedule { 'eu-nights': range => '01:00 - 04:00' }
schedule { 'us-nights': range => '07:00 - 10:00' }
job { 'a': cron => '0 * * * *', command => 'x', nodes => 'role=db', window => { 'zone=eu' => 'eu-nights', 'default' => 'us-nights' } }
job { 'b': cron => '0 * * * *', command => 'x', nodes => 'all', window => 'never' }
job { 'c': cron => '0 * * * *', command => 'x', nodes => 'all', window => { 'zone=eu' => 'eu-nights', default => 'anytime' } }`), parseCron)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"eu-nights", "us-nights", "never"} {
		if set.Gates[name] == nil {
			t.Errorf("gate %q is not in the set (gates %v)", name, set.Gates)
		}
	}
	if w := set.Jobs[1].Window; len(w) != 1 || w["default"] != "never" {
		t.Errorf("job b's window = %q", w)
	}
	if w := set.Jobs[2].Window; len(w) != 2 || w["default"] != "anytime" {
		t.Errorf("job c's window = %q", w)
	}
	if _, ok := set.Gates["anytime"]; ok {
		t.Error("anytime, the daemon's built-in, is in the manifests' gates")
	}
	// A schedule called anytime is the manifests' own gate.
	set, err = FromCatalog(compile(t, `schedule { 'anytime': range => '01:00 - 02:00' }
job { 'a': cron => '0 * * * *', command => 'x', nodes => all, window => anytime }`), parseCron)
	if err != nil || set.Gates["anytime"] == nil {
		t.Errorf("a schedule named anytime: %v, gates %v", err, set.Gates)
	}
}
