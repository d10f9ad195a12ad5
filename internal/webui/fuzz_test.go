package webui

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzSafeNext checks that a login's redirect target never leaves the site.
func FuzzSafeNext(f *testing.F) {
	for _, s := range []string{"/", "/jobs?x=1", "//evil.example", "/\\evil", "https://evil.example/", "javascript:alert(1)",
		"", "/%2f%2fevil", "/..//evil", " /x", "/\t/evil"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, next string) {
		got := safeNext(next)
		if !strings.HasPrefix(got, "/") || strings.HasPrefix(got, "//") || strings.HasPrefix(got, "/\\") {
			t.Fatalf("safeNext(%q) = %q", next, got)
		}
		u, err := url.Parse(got)
		if err != nil || u.Host != "" || u.Scheme != "" {
			t.Fatalf("safeNext(%q) = %q, which leaves the site", next, got)
		}
	})
}

// FuzzWeekDrawing checks the calendar geometry on any intervals and events:
// pieces stay inside one day and add up to the interval (at most a week),
// running periods are well formed, and rendering never panics.
func FuzzWeekDrawing(f *testing.F) {
	f.Add(540, 1020, 480, 1140, 300)
	f.Add(-60, 60, 10079, 0, 10080)
	f.Add(7000, 30000, 5, 5, -1)
	f.Fuzz(func(t *testing.T, start, end, a, b, now int) {
		iv := Interval{start, end}
		total := 0
		for _, p := range pieces(iv) {
			if p.day < 0 || p.day > 6 || p.from < 0 || p.to > dayMinutes || p.from >= p.to {
				t.Fatalf("pieces(%v) has a bad piece %+v", iv, p)
			}
			total += p.to - p.from
		}
		if want := max(0, min(end-start, weekMinutes)); total != want {
			t.Fatalf("pieces(%v) cover %d minutes, want %d", iv, total, want)
		}
		for _, p := range runningPeriods([]int{a, b + 17}, []int{b, a + 1000}) {
			if p.Start < 0 || p.Start >= weekMinutes || p.End <= p.Start || p.End-p.Start > weekMinutes {
				t.Fatalf("runningPeriods gave %+v", p)
			}
		}
		_ = weekCalendar{Label: "f", Blocks: []Interval{iv}, Starts: []int{a}, Stops: []int{b}, Now: now}.render()
	})
}
