package cli

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// TestJournalPriorities checks that under the journal every line starts
// with its sd-daemon priority, including lines of derived loggers and of
// concurrent writers, and has no time; outside it nothing is prefixed.
func TestJournalPriorities(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			lv := new(slog.LevelVar)
			l, err := newLogger(&buf, format, "debug", lv, true)
			if err != nil {
				t.Fatal(err)
			}
			l.Debug("d")
			l.Info("i")
			l.With("component", "controller").WithGroup("g").Warn("w", "k", 1)
			l.Error("e")
			l.Log(t.Context(), slog.LevelError+4, "worse")
			lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
			want := []string{"<7>", "<6>", "<4>", "<3>", "<3>"}
			if len(lines) != len(want) {
				t.Fatalf("lines:\n%s", buf.String())
			}
			for i, line := range lines {
				if !strings.HasPrefix(line, want[i]) || strings.Contains(line, "time") {
					t.Errorf("line %d = %q, want prefix %s and no time", i, line, want[i])
				}
			}
			if !strings.Contains(lines[2], "controller") {
				t.Errorf("derived logger lost its attributes: %q", lines[2])
			}

			buf.Reset()
			var wg sync.WaitGroup
			for i := 0; i < 8; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for j := 0; j < 50; j++ {
						l.Warn("concurrent", "n", j)
					}
				}()
			}
			wg.Wait()
			for _, line := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
				if !strings.HasPrefix(line, "<4>") || strings.Count(line, "<4>") != 1 {
					t.Fatalf("interleaved line %q", line)
				}
			}
		})
	}
	var buf bytes.Buffer
	l, err := newLogger(&buf, "text", "info", new(slog.LevelVar), false)
	if err != nil {
		t.Fatal(err)
	}
	l.Warn("w")
	if !strings.HasPrefix(buf.String(), "time=") {
		t.Errorf("outside the journal: %q, want a plain line with its time", buf.String())
	}
}
