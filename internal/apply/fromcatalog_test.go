package apply

import (
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/catalog"
	"github.com/almanac-sh/almanac/internal/manifest"
)

func compile(t *testing.T, src string) *Catalog {
	t.Helper()
	f, err := manifest.ParseFile("test.pp", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	c, err := catalog.Compile(f)
	if err != nil {
		t.Fatal(err)
	}
	return FromCatalog(c)
}

// Puppet 7.23 (verified): an included class is contained by Stage[main] and
// so is not ordered by an edge to the class that includes it; a contained
// one is.
func TestFromCatalogContainVsInclude(t *testing.T) {
	cat := compile(t, `
class inner_included { exec { 'inner_included': } }
class inner_contained { exec { 'inner_contained': } }
class outer { include inner_included  contain inner_contained }
include outer
exec { 'first': }
Exec['first'] -> Class['outer']
`)
	res := runCatalog(cat, nil)
	if res.err != nil {
		t.Fatal(res.err)
	}
	got := strings.Join(res.report.Evaluated, " ")
	if strings.Index(got, "Exec[inner_included]") > strings.Index(got, "Exec[first]") ||
		strings.Index(got, "Exec[inner_contained]") < strings.Index(got, "Exec[first]") {
		t.Fatalf("order %s", got)
	}
}

func TestFromCatalogRefreshAndVirtual(t *testing.T) {
	cat := compile(t, `
@exec { 'virt': }
exec { 'a': } ~> exec { 'b': refreshonly => true }
`)
	res := runCatalog(cat, nil)
	if res.err != nil {
		t.Fatal(res.err)
	}
	if got := strings.Join(res.trace, ","); got != "run a,refresh b" {
		t.Fatalf("trace %s\n%s", got, res.output())
	}
}
