package catalog

import (
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unsafe"
	"weak"
)

// TestDetach: a detached resource equals the original and shares none of
// the manifest text, so keeping it does not keep the text.
func TestDetach(t *testing.T) {
	text := strings.Clone(`
define site::thing($paths) {
  schedule { "maint-${title}":
    range   => ['02:00 - 04:00', '22:00 - 23:00'],
    weekday => ['Sat', 'Sun'],
    windows => [{ days => 'Mon', start_time => '01:00', length_minutes => 30 }],
    tag     => ['night'],
  }
}
site::thing { 'db': paths => ['/srv'] }
`)
	textPtr := weak.Make(unsafe.StringData(text))
	cat, err := CompileSources(Options{}, Source{Name: "detach.pp", Text: text})
	if err != nil {
		t.Fatal(err)
	}
	text = ""
	r := cat.Lookup("Schedule[maint-db]")
	if r == nil {
		t.Fatal("no Schedule[maint-db]")
	}
	d := r.Detach()
	if !reflect.DeepEqual(d, r) {
		t.Errorf("Detach() = %+v, want %+v", d, r)
	}
	if d.Ref() != "Schedule[maint-db]" {
		t.Errorf("Ref() = %q", d.Ref())
	}
	cat, r = nil, nil
	runtime.GC()
	if textPtr.Value() != nil {
		t.Error("the manifest text is reachable from the detached resource")
	}
	runtime.KeepAlive(d)
}

// TestTypeRefNameKeepsNoInput: the cache of capitalized type names holds
// copies of what it is given, and a bounded number of them.
func TestTypeRefNameKeepsNoInput(t *testing.T) {
	text := strings.Clone("  my_module::some_type  ")
	textPtr := weak.Make(unsafe.StringData(text))
	if got := typeRefName(text[2 : len(text)-2]); got != "My_module::Some_type" {
		t.Errorf("typeRefName = %q", got)
	}
	text = ""
	runtime.GC()
	if textPtr.Value() != nil {
		t.Error("typeRefNames keeps the caller's string")
	}
	for i := range 2 * maxTypeRefNames {
		typeRefName("t" + strings.Repeat("x", i%50) + string(rune('a'+i%26)) + strings.Repeat("y", i/50))
	}
	n := 0
	typeRefNames.Range(func(_, _ any) bool { n++; return true })
	if n > maxTypeRefNames {
		t.Errorf("typeRefNames holds %d names, more than %d", n, maxTypeRefNames)
	}
}
