package durationtext

import (
	"testing"
	"time"
)

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0ms"},
		{24 * time.Millisecond, "24ms"},
		{999 * time.Millisecond, "999ms"},
		{999600 * time.Microsecond, "1s"},
		{time.Second, "1s"},
		{2500 * time.Millisecond, "2.5s"},
		{2040 * time.Millisecond, "2s"},
		{2960 * time.Millisecond, "3s"},
		{9400 * time.Millisecond, "9.4s"},
		{10 * time.Second, "10s"},
		{59 * time.Second, "59s"},
		{65 * time.Second, "1m 5s"},
		{2*time.Hour + 10*time.Minute, "2h 10m"},
		{28 * time.Hour, "1d 4h"},
		{-24 * time.Millisecond, "24ms"},
	} {
		t.Run(tc.d.String(), func(t *testing.T) {
			if got := Format(tc.d); got != tc.want {
				t.Errorf("Format(%s) = %q, want %q", tc.d, got, tc.want)
			}
		})
	}
}
