package job

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/store"
)

func TestParseStat(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		want       procStat
		err        bool
	}{
		{"plain", "4242 (sleep) S 1 4242 4242 0 -1 4194304 90 0 0 0 0 0 0 0 20 0 1 0 889123 2523136 132 18446744073709551615", procStat{State: 'S', Pgrp: 4242, Start: 889123}, false},
		{"name with spaces and parens", "77 (a) b (c) Z 1 70 70 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0 1", procStat{State: 'Z', Pgrp: 70, Start: 5}, false},
		{"too short", "77 (x) S 1 70 70", procStat{}, true},
		{"no name", "77 S 1 70 70 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0", procStat{}, true},
		{"bad start", "77 (x) S 1 70 70 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 x 0 0", procStat{}, true},
		{"bad state", "77 (x) SS 1 70 70 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0", procStat{}, true},
		{"state not a letter", "77 (x) \x00 1 70 70 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0", procStat{}, true},
		{"state a digit", "77 (x) 0 1 70 70 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0", procStat{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseStat([]byte(tc.line))
			if (err != nil) != tc.err || got != tc.want {
				t.Errorf("parseStat = %+v, %v; want %+v (error %v)", got, err, tc.want, tc.err)
			}
		})
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add([]byte("4242 (sleep) S 1 4242 4242 0 -1 4194304 90 0 0 0 0 0 0 0 20 0 1 0 889123 2523136 132 1"))
	f.Add([]byte("1 ()) R 0 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 2 0 0"))
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := parseStat(b)
		if err == nil && st.State == 0 {
			t.Errorf("parsed %q without a state", b)
		}
	})
}

// TestReapOrphans: a process group recorded for an interrupted run is
// stopped if its first process is still the one recorded, and left alone
// if the recorded start time does not match (a reused pid).
func TestReapOrphans(t *testing.T) {
	ctx := context.Background()
	start := func() Process {
		p, err := (&Exec{}).Start(ctx, store.Run{ID: 1, Job: "j"}, store.JobSpec{Command: []string{"sleep", "300"}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Kill(); <-p.Done() })
		return p
	}
	c := &Controller{cfg: Config{KillGrace: 5 * time.Second}, clock: clock.Real{}, log: slog.New(slog.DiscardHandler)}

	mine, reused := start(), start()
	gm, gr := mine.(grouped).Group(), reused.(grouped).Group()
	if gm.PGID <= 0 || gm.Start == 0 {
		t.Fatalf("group of a started process = %+v", gm)
	}
	gr.Start++ // as if the pid now belonged to a later process
	runs := []store.Run{{ID: 1, Process: gm}, {ID: 2, Process: gr}, {ID: 3}}
	notes := c.reapOrphans(runs)
	select {
	case <-mine.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the recorded group is still running")
	}
	if !strings.Contains(notes[1], "stopped with SIGTERM") {
		t.Errorf("note for the stopped group = %q", notes[1])
	}
	select {
	case <-reused.Done():
		t.Error("a group whose start time does not match was signalled")
	default:
	}
	if !strings.Contains(notes[2], "left alone") || notes[3] != "" {
		t.Errorf("notes = %v", notes)
	}
	if n := c.reapOrphans([]store.Run{{ID: 1, Process: gm}})[1]; !strings.Contains(n, "already exited") {
		t.Errorf("note for a group that is gone = %q", n)
	}
}
