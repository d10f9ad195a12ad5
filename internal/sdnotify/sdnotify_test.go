package sdnotify

import (
	"context"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
)

// listen opens a unixgram socket like systemd's at addr and returns it.
func listen(t *testing.T, addr string) *net.UnixConn {
	t.Helper()
	name := addr
	if name[0] == '@' {
		name = "\x00" + name[1:]
	}
	c, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: name, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// receive reads one datagram, waiting at most a while.
func receive(t *testing.T, c *net.UnixConn) string {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 4096)
	n, err := c.Read(buf)
	if err != nil {
		t.Fatalf("no notification: %v", err)
	}
	return string(buf[:n])
}

func TestNotify(t *testing.T) {
	for _, tt := range []struct{ name, addr string }{
		{"path", filepath.Join(t.TempDir(), "notify")},
		{"abstract", "@almanac-test-" + strconv.Itoa(os.Getpid())},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sock := listen(t, tt.addr)
			t.Setenv("NOTIFY_SOCKET", tt.addr)
			n := FromEnv()
			if !n.Enabled() {
				t.Fatal("not enabled with NOTIFY_SOCKET set")
			}
			for _, msg := range []string{Ready, Stopping, "STATUS=serving\nREADY=1"} {
				if err := n.Notify(msg); err != nil {
					t.Fatal(err)
				}
				if got := receive(t, sock); got != msg {
					t.Errorf("received %q, want %q", got, msg)
				}
			}
		})
	}
	t.Run("no socket", func(t *testing.T) {
		t.Setenv("NOTIFY_SOCKET", "")
		if n := FromEnv(); n.Enabled() || n.Notify(Ready) != nil {
			t.Error("a notifier without a socket sends or fails")
		}
	})
	t.Run("socket gone", func(t *testing.T) {
		t.Setenv("NOTIFY_SOCKET", filepath.Join(t.TempDir(), "missing"))
		if err := FromEnv().Notify(Ready); err == nil {
			t.Error("no error for a missing socket")
		}
	})
}

func TestWatchdogInterval(t *testing.T) {
	self := strconv.Itoa(os.Getpid())
	tests := []struct {
		usec, pid string
		want      time.Duration
		err       bool
	}{
		{"", "", 0, false},
		{"30000000", "", 30 * time.Second, false},
		{"30000000", self, 30 * time.Second, false},
		{"30000000", "1", 0, false}, // meant for another process
		{"soon", "", 0, true},
		{"-5", "", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.usec+"/"+tt.pid, func(t *testing.T) {
			t.Setenv("WATCHDOG_USEC", tt.usec)
			t.Setenv("WATCHDOG_PID", tt.pid)
			got, err := WatchdogInterval()
			if got != tt.want || (err != nil) != tt.err {
				t.Errorf("WatchdogInterval = %v, %v; want %v, error %v", got, err, tt.want, tt.err)
			}
		})
	}
}

// TestLiveness checks that keep-alives go out only while the watched loop
// turns: a loop that stops turning stops them.
func TestLiveness(t *testing.T) {
	addr := filepath.Join(t.TempDir(), "notify")
	sock := listen(t, addr)
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	l := NewLiveness(&Notifier{socket: addr}, 20*time.Second, clk, slog.New(slog.DiscardHandler))
	if l.Period() != 5*time.Second {
		t.Errorf("Period = %v", l.Period())
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { l.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	waitTimer := func() {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); clk.PendingTimers() == 0; {
			if time.Now().After(deadline) {
				t.Fatal("Run never armed its timer")
			}
			time.Sleep(time.Millisecond)
		}
	}
	waitTimer()
	l.Alive()
	clk.Advance(10 * time.Second)
	if got := receive(t, sock); got != Watchdog {
		t.Fatalf("received %q", got)
	}
	// No Alive since: the next tick sends nothing.
	waitTimer()
	clk.Advance(10 * time.Second)
	waitTimer()
	// The turn is over (its timer is re-armed): a keep-alive would be queued.
	sock.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if n, err := sock.Read(make([]byte, 64)); err == nil {
		t.Fatalf("a keep-alive went out (%d bytes) though the loop did not turn", n)
	}
	l.Alive()
	clk.Advance(10 * time.Second)
	if got := receive(t, sock); got != Watchdog {
		t.Fatalf("received %q after the loop turned again", got)
	}
}
