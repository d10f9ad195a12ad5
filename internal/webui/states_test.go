package webui

import (
	"os"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/api/apitype"
)

// TestEveryRunStateStyled: every run state the API can answer has its own
// class in the UI (not "other"), a symbol and word for the wave matrix, and
// a colour in the badge, timeline, strip, matrix and legend rules of
// style.css, so a state never shows unstyled.
func TestEveryRunStateStyled(t *testing.T) {
	b, err := os.ReadFile("static/style.css")
	if err != nil {
		t.Fatal(err)
	}
	css := string(b)
	for _, s := range apitype.RunStates {
		t.Run(s, func(t *testing.T) {
			if got := stateClass(s); got != s {
				t.Errorf("stateClass(%q) = %q", s, got)
			}
			if _, ok := cellLooks[s]; !ok {
				t.Errorf("no symbol and word for %q in the wave matrix", s)
			}
			for _, sel := range []string{".badge." + s, ".run." + s + " circle", ".matrix td." + s, ".key." + s} {
				if !strings.Contains(css, sel) {
					t.Errorf("style.css has no rule for %s", sel)
				}
			}
		})
	}
}
