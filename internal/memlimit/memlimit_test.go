package memlimit

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestBound(t *testing.T) {
	t.Cleanup(func() { debug.SetMemoryLimit(math.MaxInt64) })
	tests := []struct {
		name     string
		set      int64 // a limit already in force; 0 for none
		total    int
		bounded  bool
		restored int64
	}{
		{"small input: no limit", 0, MinInput - 1, false, math.MaxInt64},
		{"large input: a limit over the input's share", 0, 8 << 20, true, math.MaxInt64},
		{"a limit already set stays", 1 << 40, 8 << 20, false, 1 << 40},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			debug.SetMemoryLimit(math.MaxInt64)
			if tt.set != 0 {
				debug.SetMemoryLimit(tt.set)
			}
			before := debug.SetMemoryLimit(-1)
			restore := Bound(tt.total)
			during := debug.SetMemoryLimit(-1)
			if tt.bounded {
				if during == math.MaxInt64 || during < int64(tt.total)*PerInputByte {
					t.Errorf("limit during = %d, want one above %d", during, int64(tt.total)*PerInputByte)
				}
				// Nested: an enclosing Bound's limit is left alone.
				inner := Bound(tt.total)
				if got := debug.SetMemoryLimit(-1); got != during {
					t.Errorf("nested Bound changed the limit to %d", got)
				}
				inner()
			} else if during != before {
				t.Errorf("limit during = %d, want %d unchanged", during, before)
			}
			restore()
			restore()
			if got := debug.SetMemoryLimit(-1); got != tt.restored {
				t.Errorf("limit after = %d, want %d", got, tt.restored)
			}
		})
	}
}

func TestTuneDaemon(t *testing.T) {
	prev := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(prev) })
	tests := []struct {
		name string
		gogc string
		want int
	}{
		{"GOGC unset: the daemon's target", "", DaemonGCPercent},
		{"GOGC set: left as the runtime read it", "200", 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			debug.SetGCPercent(100)
			TuneDaemon(func(k string) string {
				if k == "GOGC" {
					return tt.gogc
				}
				return ""
			})
			if got := debug.SetGCPercent(100); got != tt.want {
				t.Errorf("GC percent = %d, want %d", got, tt.want)
			}
		})
	}
}
