package manifest

import "testing"

// TestErrorListBound: past MaxErrors an ErrorList counts errors in one
// last entry; Sort keeps that entry last, merging those of lists appended
// together, and Count stands for every error.
func TestErrorListBound(t *testing.T) {
	tests := []struct {
		name    string
		lists   []int // errors added to each list, appended together in order
		entries int
		more    int
	}{
		{"under the bound", []int{3}, 3, 0},
		{"at the bound", []int{MaxErrors}, MaxErrors, 0},
		{"one past", []int{MaxErrors + 1}, MaxErrors + 1, 1},
		{"far past", []int{3 * MaxErrors}, MaxErrors + 1, 2 * MaxErrors},
		{"two full lists appended", []int{MaxErrors + 2, MaxErrors + 5}, 2*MaxErrors + 1, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var all ErrorList
			total := 0
			for li, n := range tt.lists {
				var l ErrorList
				for i := range n {
					// Later lines first: Sort must order those kept
					// (the first found).
					l.Add(Pos{File: "a.pp", Line: n - i, Col: li + 1}, "e%d", i)
				}
				all = append(all, l...)
				total += n
			}
			all.Sort()
			if got := all.Count(); got != total {
				t.Errorf("Count() = %d, want %d", got, total)
			}
			if len(all) != tt.entries {
				t.Fatalf("%d entries, want %d", len(all), tt.entries)
			}
			last := all[len(all)-1]
			if last.More != tt.more {
				t.Errorf("last entry counts %d more, want %d", last.More, tt.more)
			}
			for i, e := range all[:len(all)-1] {
				if e.More != 0 {
					t.Errorf("entry %d counts %d more; only the last may", i, e.More)
				}
			}
			if tt.more == 1 && last.Error() != "... and 1 more error" {
				t.Errorf("last entry %q", last.Error())
			}
			kept := all
			if tt.more > 0 {
				kept = all[:len(all)-1]
			}
			for i := 1; i < len(kept); i++ {
				if kept[i].Pos.Before(kept[i-1].Pos) {
					t.Fatalf("entry %d at %v sorts before entry %d at %v", i, kept[i].Pos, i-1, kept[i-1].Pos)
				}
			}
		})
	}
}
