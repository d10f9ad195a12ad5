package calendar

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"
)

func TestLoadZone(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", "UTC"},
		{"UTC", "UTC"},
		{"America/New_York", "America/New_York"},
		{"america-new_york", "America/New_York"},
		{"america-argentina-san_juan", "America/Argentina/San_Juan"},
		{"etc-gmt+5", "Etc/GMT+5"},
		{"etc-gmt-5", "Etc/GMT-5"},
		{"america-port-au-prince", "America/Port-au-Prince"},
		{"europe-berlin", "Europe/Berlin"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			loc, err := LoadZone(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if loc.String() != tt.want {
				t.Fatalf("got %s, want %s", loc, tt.want)
			}
		})
	}
}

func TestLoadZoneUnknown(t *testing.T) {
	tests := []struct {
		in, suggestion string
	}{
		{"america-new_yrok", "america-new_york"},
		{"Europe/Berln", "Europe/Berlin"},
		{"Local", "UTC"},
		{"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := LoadZone(tt.in)
			var uz *UnknownZoneError
			if !errors.As(err, &uz) {
				t.Fatalf("err = %v, want UnknownZoneError", err)
			}
			if uz.Suggestion != tt.suggestion {
				t.Fatalf("suggestion = %q, want %q (%v)", uz.Suggestion, tt.suggestion, err)
			}
		})
	}
}

func TestTagFormCollisionFree(t *testing.T) {
	seen := map[string]string{}
	for _, n := range zoneNames {
		tag := TagForm(n)
		if prev, ok := seen[tag]; ok {
			t.Errorf("%s and %s share tag form %s", prev, n, tag)
		}
		seen[tag] = n
	}
}

func BenchmarkLoadZoneCached(b *testing.B) {
	if _, err := LoadZone("america-new_york"); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := LoadZone("america-new_york"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLoadZoneCacheBounded: any mix of case names a zone, but only its IANA
// name and its tag form are cached, each as a string of its own, so
// callers cannot grow the cache without bound or make it keep their input.
func TestLoadZoneCacheBounded(t *testing.T) {
	names := []string{"america-new_york", "AMERICA/NEW_YORK", "America/New_york", "aMERICA-nEW_yORK", "America/New_York"}
	for _, n := range names {
		// Built at run time: a substring of a larger allocation, as a
		// name read from a manifest or a request is.
		in := strings.Clone("x" + n)[1:]
		loc, err := LoadZone(in)
		if err != nil {
			t.Fatal(err)
		}
		if loc.String() != "America/New_York" {
			t.Fatalf("LoadZone(%q) = %s", n, loc)
		}
		zoneCache.Range(func(k, _ any) bool {
			if key := k.(string); unsafe.StringData(key) == unsafe.StringData(in) {
				t.Errorf("the cache keeps the caller's string %q as a key", in)
			}
			return true
		})
	}
	var spellings []string
	zoneCache.Range(func(k, v any) bool {
		if v.(*time.Location).String() == "America/New_York" {
			spellings = append(spellings, k.(string))
		}
		return true
	})
	slices.Sort(spellings)
	if want := []string{"America/New_York", "america-new_york"}; !slices.Equal(spellings, want) {
		t.Errorf("cached spellings = %q, want %q", spellings, want)
	}
}
