package servetest_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/almanac-sh/almanac/internal/servetest"
)

func TestServingURL(t *testing.T) {
	tests := []struct {
		name, log string
		want      string // "" means nothing is sent
	}{
		{"first serving record", `{"msg":"starting"}` + "\n" + `{"msg":"serving","url":"http://127.0.0.1:1"}` + "\n" + `{"msg":"serving","url":"http://127.0.0.1:2"}` + "\n", "http://127.0.0.1:1"},
		{"text lines are passed over", "not json\n" + `{"msg":"serving","url":"http://[::1]:9"}`, "http://[::1]:9"},
		{"never serves", `{"msg":"starting"}` + "\n" + `{"msg":"stopped"}` + "\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for u := range servetest.ServingURL(strings.NewReader(tt.log)) {
				got = append(got, u)
			}
			switch {
			case tt.want == "" && len(got) != 0:
				t.Errorf("sent %q, want nothing", got)
			case tt.want != "" && (len(got) != 1 || got[0] != tt.want):
				t.Errorf("sent %q, want just %q", got, tt.want)
			}
		})
	}
}

func TestLogConcurrentWrites(t *testing.T) {
	var l servetest.Log
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 100; j++ {
				l.Write([]byte("x\n"))
			}
		}()
	}
	wg.Wait()
	if n := strings.Count(l.String(), "x\n"); n != 800 {
		t.Errorf("%d lines, want 800", n)
	}
}
