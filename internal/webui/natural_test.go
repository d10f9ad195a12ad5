package webui

import (
	"slices"
	"strings"
	"testing"
)

func TestNaturalCompare(t *testing.T) {
	for _, tt := range []struct {
		in, want []string
	}{
		{[]string{"backup-10", "backup-2", "backup-1"}, []string{"backup-1", "backup-2", "backup-10"}},
		{[]string{"db10-web2", "db2-web10", "db2-web9"}, []string{"db2-web9", "db2-web10", "db10-web2"}},
		{[]string{"a", "a1", "a-1", "b"}, []string{"a", "a-1", "a1", "b"}},
		{[]string{"x-01", "x-1", "x-001"}, []string{"x-1", "x-01", "x-001"}},
		{[]string{"n99999999999999999999", "n100000000000000000000"}, []string{"n99999999999999999999", "n100000000000000000000"}},
	} {
		t.Run(strings.Join(tt.in, ","), func(t *testing.T) {
			got := slices.Clone(tt.in)
			slices.SortFunc(got, NaturalCompare)
			if !slices.Equal(got, tt.want) {
				t.Errorf("sorted %v, want %v", got, tt.want)
			}
			for _, a := range tt.in {
				for _, b := range tt.in {
					if NaturalCompare(a, b) != -NaturalCompare(b, a) || (NaturalCompare(a, b) == 0) != (a == b) {
						t.Errorf("NaturalCompare(%q, %q) is not a strict order", a, b)
					}
				}
			}
		})
	}
}

func FuzzNaturalCompare(f *testing.F) {
	f.Add("backup-2", "backup-10")
	f.Add("a0", "a00")
	f.Fuzz(func(t *testing.T, a, b string) {
		if c := NaturalCompare(a, b); c != -NaturalCompare(b, a) || (c == 0) != (a == b) {
			t.Errorf("NaturalCompare(%q, %q) = %d, reversed %d", a, b, c, NaturalCompare(b, a))
		}
	})
}
