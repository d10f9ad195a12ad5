package apply

import (
	"runtime"
	"strings"
	"testing"
	"time"
	"unsafe"
	"weak"

	"github.com/almanac-sh/almanac/internal/catalog"
)

// TestCatalogSchedulesKeepNoText: the schedules outlive their catalog in
// agent mode (the agent wakes at their openings), so they must not keep
// the manifest text in memory.
func TestCatalogSchedulesKeepNoText(t *testing.T) {
	text := strings.Clone(`
schedule { 'maint-window': range => '02:00 - 04:00', weekday => ['Sat', 'Sun'], time_zone => 'europe-berlin' }
notify { 'gated': schedule => 'maint-window' }
`)
	textPtr := weak.Make(unsafe.StringData(text))
	cat, err := catalog.CompileSources(catalog.Options{}, catalog.Source{Name: "s.pp", Text: text})
	if err != nil {
		t.Fatal(err)
	}
	text = ""
	ss, err := CatalogSchedules(cat, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	cat = nil
	s, ok := ss.Lookup("maint-window")
	if !ok || s.Name() != "maint-window" {
		t.Fatalf("Lookup(maint-window) = %v, %v", s, ok)
	}
	runtime.GC()
	if textPtr.Value() != nil {
		t.Error("the manifest text is reachable from the catalog's schedules")
	}
	runtime.KeepAlive(ss)
}
