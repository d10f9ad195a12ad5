package catalog

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestMetaparamInheritance checks which resources inherit noop and
// schedule from their containers: only along containment from Class[Main],
// as Puppet's compiler passes them (add_resource_metaparams). Each case
// was run through Puppet 7.23 (see the differential test in internal/cli).
func TestMetaparamInheritance(t *testing.T) {
	tests := []struct {
		name, src string
		want      map[string]any // ref → noop (nil: unset)
	}{
		{"class {} at top scope passes nothing", `
class m { exec { 'x': command => '/bin/x' } }
class { 'm': noop => true }`,
			map[string]any{"Exec[x]": nil}},
		{"contain at top scope passes noop", `
class m { exec { 'x': command => '/bin/x' } }
class { 'm': noop => true }
contain m`,
			map[string]any{"Exec[x]": true}},
		{"define at top scope passes noop", `
define d { exec { "x-${title}": command => '/bin/x' } }
d { 'a': noop => true }`,
			map[string]any{"Exec[x-a]": true}},
		{"define in an included class passes nothing", `
define d { exec { "x-${title}": command => '/bin/x' } }
class m { d { 'a': noop => true } }
include m`,
			map[string]any{"Exec[x-a]": nil}},
		{"define in a contained class passes noop", `
define d { exec { "x-${title}": command => '/bin/x' } }
class m { d { 'a': noop => true } }
contain m`,
			map[string]any{"Exec[x-a]": true}},
		{"contained chain passes through classes", `
class inner { exec { 'y': command => '/bin/y' } }
class outer { contain inner }
class { 'outer': noop => true }
contain outer`,
			map[string]any{"Exec[y]": true}},
		{"own value wins and passes on", `
define d { exec { "x-${title}": command => '/bin/x' } }
define e { d { "in-${title}": noop => false } exec { "e-${title}": command => '/bin/e' } }
e { 'a': noop => true }`,
			map[string]any{"Exec[x-in-a]": false, "Exec[e-a]": true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cat := mustCompile(t, tt.src)
			got := map[string]any{}
			for ref := range tt.want {
				r := cat.Lookup(ref)
				if r == nil {
					t.Fatalf("%s missing", ref)
				}
				got[ref] = r.Params["noop"]
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("noop = %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("schedule follows the same rule", func(t *testing.T) {
		cat := mustCompile(t, `
schedule { 'night': range => '1 - 3' }
class m { exec { 'x': command => '/bin/x' } }
class n { exec { 'y': command => '/bin/y' } }
class { 'm': schedule => 'night' }
class { 'n': schedule => 'night' }
contain n`)
		if got := cat.Lookup("Exec[x]").Params["schedule"]; got != nil {
			t.Errorf("Exec[x] schedule = %v, want unset", got)
		}
		if got := cat.Lookup("Exec[y]").Params["schedule"]; got != "night" {
			t.Errorf("Exec[y] schedule = %v, want night", got)
		}
	})
}

// TestCollectorsSeeDefaults: a collector matches values that resource
// defaults fill in, as in Puppet, which applies defaults when it creates
// the resource.
func TestCollectorsSeeDefaults(t *testing.T) {
	cat := mustCompile(t, `
Exec { timeout => 77 }
exec { 'a': command => '/bin/a' }
exec { 'b': command => '/bin/b', timeout => 5 }
exec { 'listener': command => '/bin/l', timeout => 10, refreshonly => true }
@exec { 'v': command => '/bin/v' }
Exec <| timeout == 77 |> ~> Exec['listener']`)
	want := []string{"Exec[a] ~> Exec[listener]", "Exec[v] ~> Exec[listener]"}
	if got := edgeStrings(cat); !reflect.DeepEqual(got, want) {
		t.Errorf("edges\n got  %q\n want %q", got, want)
	}
	if cat.Lookup("Exec[v]").Virtual {
		t.Error("the collector did not realize Exec[v] through its default")
	}
}

// TestSiteIsAName: application orchestration's words are ordinary names in
// Puppet 7.
func TestSiteIsAName(t *testing.T) {
	cat := mustCompile(t, `
class site { notify { 'in site': } }
class application { }
include site, application
$produces = 1
define consumes { }
consumes { 'x': }`)
	if cat.Lookup("Class[Site]") == nil || cat.Lookup("Notify[in site]") == nil || cat.Lookup("Consumes[x]") == nil {
		t.Error("site, application or consumes not declared")
	}
}

// TestChainFromUnrealizedVirtual: Puppet drops an arrow whose source is an
// unrealized virtual resource without a word.
func TestChainFromUnrealizedVirtual(t *testing.T) {
	cat := mustCompile(t, `
@exec { 'ghost': command => '/bin/g' }
exec { 'real': command => '/bin/r' }
Exec['ghost'] -> Exec['real']`)
	if got := edgeStrings(cat); len(got) != 0 {
		t.Errorf("edges = %q, want none", got)
	}
}

// TestEvalDepthBounded: evaluation deeper than maxEvalDepth (here classes
// each including the next) is an error at its position, not a stack
// overflow.
func TestEvalDepthBounded(t *testing.T) {
	var b strings.Builder
	const n = 12_000
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "class c%d { include c%d }\n", i, i+1)
	}
	fmt.Fprintf(&b, "class c%d { }\ninclude c0\n", n)
	_, err := compileSrc(t, b.String())
	if err == nil || !strings.Contains(err.Error(), "expression nested too deeply (more than 10000 levels)") {
		t.Fatalf("err = %.300v", err)
	}
}
