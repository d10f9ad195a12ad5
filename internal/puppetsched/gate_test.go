package puppetsched

import "testing"

// TestRunGate checks that a run gate matches as its schedule does and that
// a matching failure reads as Puppet's bare message.
func TestRunGate(t *testing.T) {
	now := at(2024, 1, 1, 1, 30, 0)
	tests := []struct {
		name    string
		p       Params
		want    bool
		wantErr string
	}{
		{"matches", Params{Range: "1 - 2"}, true, ""},
		{"outside range", Params{Range: "3 - 4"}, false, ""},
		{"divided by zero", Params{Period: "hourly", Repeat: int64(0)}, false, "divided by 0"},
		{"bad seconds", Params{Range: "1:00:99 - 2"}, false, "argument out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := mustNew(t, tt.p).Gate()
			got, err := g.Eval(never, now)
			if got != tt.want {
				t.Errorf("Eval = %v, want %v", got, tt.want)
			}
			if m := g.Match(never, now); m != tt.want {
				t.Errorf("Match = %v, want %v", m, tt.want)
			}
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("unexpected error %v", err)
			case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr):
				t.Errorf("error = %v, want exactly %q", err, tt.wantErr)
			}
		})
	}
}
