package exec

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/apply"
	"github.com/almanac-sh/almanac/internal/clock"
)

// TestTries runs a command that fails until its third run, as Puppet's
// exec does with tries and try_sleep: the pauses are taken on the injected
// clock (after every failed try, the last one too), and only the last try's
// output is logged.
func TestTries(t *testing.T) {
	tests := []struct {
		name      string
		tries     any
		trySleep  any
		wantRuns  int
		wantErr   string
		wantPause time.Duration
	}{
		{"one try by default", nil, nil, 1, "returned 1 instead of one of [0]", 0},
		{"fails on every try", int64(2), int64(5), 2, "returned 1 instead of one of [0]", 10 * time.Second},
		{"succeeds on the third try", int64(3), int64(5), 3, "", 10 * time.Second},
		{"more tries than needed", "4", 0.5, 3, "", time.Second},
		{"no pause without try_sleep", int64(3), nil, 3, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			count := filepath.Join(t.TempDir(), "count")
			cmd := "echo run >> " + count + "; n=$(wc -l < " + count + "); echo try $n; [ $n -ge 3 ]"
			r := res(cmd)
			if tt.tries != nil {
				r.Params["tries"] = tt.tries
			}
			if tt.trySleep != nil {
				r.Params["try_sleep"] = tt.trySleep
			}
			start := time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)
			fake := clock.NewFake(start)
			var l logs
			err := syncDriven(t, Provider{Clock: fake}, r, &l, fake)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			data, _ := os.ReadFile(count)
			if got := strings.Count(string(data), "run"); got != tt.wantRuns {
				t.Errorf("command ran %d times, want %d", got, tt.wantRuns)
			}
			if got := fake.Now().Sub(start); got != tt.wantPause {
				t.Errorf("paused %v, want %v", got, tt.wantPause)
			}
			joined := strings.Join(l, "\n")
			if tt.wantErr != "" && !strings.Contains(joined, "returns: try "+itoa(tt.wantRuns)) {
				t.Errorf("the last try's output is not logged:\n%s", joined)
			}
			if strings.Contains(joined, "Notice: Exec["+cmd+"]/returns: try 1") && tt.wantRuns > 1 {
				t.Errorf("an earlier try's output is logged:\n%s", joined)
			}
		})
	}
}

func itoa(n int) string { return string(rune('0' + n)) }

// syncDriven syncs r's changes while moving the fake clock on whenever the
// provider waits on it, so no test waits for real time.
func syncDriven(t *testing.T, p Provider, r *apply.Resource, l *logs, fake *clock.Fake) error {
	t.Helper()
	changes, err := p.Changes(context.Background(), r, l)
	if err != nil || len(changes) != 1 {
		t.Fatalf("Changes = %v, %v", changes, err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := changes[0].Sync(context.Background(), l)
		done <- err
	}()
	for {
		select {
		case err := <-done:
			return err
		default:
		}
		if next, ok := fake.NextDeadline(); ok {
			fake.Set(next)
		}
		runtime.Gosched()
	}
}

// TestTryCanceled: a canceled run stops waiting between tries.
func TestTryCanceled(t *testing.T) {
	fake := clock.NewFake(time.Unix(0, 0))
	r := res("false", "tries", int64(3), "try_sleep", int64(60))
	ctx, cancel := context.WithCancel(context.Background())
	var l logs
	changes, err := Provider{Clock: fake}.Changes(ctx, r, &l)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := changes[0].Sync(ctx, &l)
		done <- err
	}()
	for fake.PendingTimers() == 0 {
		runtime.Gosched()
	}
	cancel()
	if err := <-done; err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Fatalf("err = %v, want context canceled", err)
	}
}
