package webui_test

import (
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/webui"
)

// schemes reads the colour variables of style.css: the light scheme of
// :root and the dark one of the prefers-color-scheme block.
func schemes(t *testing.T, css string) map[string]map[string]string {
	t.Helper()
	varRE := regexp.MustCompile(`--([a-z-]+):\s*#([0-9a-fA-F]{6}|[0-9a-fA-F]{3})\b`)
	read := func(block string) map[string]string {
		m := map[string]string{}
		for _, v := range varRE.FindAllStringSubmatch(block, -1) {
			hex := v[2]
			if len(hex) == 3 { // #fff is #ffffff
				hex = string([]byte{hex[0], hex[0], hex[1], hex[1], hex[2], hex[2]})
			}
			m[v[1]] = "#" + hex
		}
		return m
	}
	dark := strings.Index(css, "prefers-color-scheme: dark")
	if dark < 0 {
		t.Fatal("no dark scheme in style.css")
	}
	return map[string]map[string]string{"light": read(css[:dark]), "dark": read(css[dark : dark+strings.Index(css[dark:], "\n}")])}
}

func luminance(hex string) float64 {
	c := func(i int) float64 {
		v, _ := strconv.ParseUint(hex[i:i+2], 16, 8)
		s := float64(v) / 255
		if s <= 0.03928 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*c(1) + 0.7152*c(3) + 0.0722*c(5)
}

func contrast(a, b string) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// TestBadgeContrast checks every badge colour against the page and card
// backgrounds in both schemes: WCAG AA asks 4.5:1 for text this size.
func TestBadgeContrast(t *testing.T) {
	b, err := os.ReadFile("static/style.css")
	if err != nil {
		t.Fatal(err)
	}
	css := string(b)
	sc := schemes(t, css)
	rules := regexp.MustCompile(`(\.badge\.[^{]+)\{\s*color:\s*var\(--([a-z-]+)\)`).FindAllStringSubmatch(css, -1)
	if len(rules) < 5 {
		t.Fatalf("found only %d badge colour rules", len(rules))
	}
	for _, r := range rules {
		for name, vars := range sc {
			fg := vars[r[2]]
			if fg == "" || vars["bg"] == "" || vars["card"] == "" {
				t.Fatalf("%s scheme: --%s, --bg or --card is not a #rrggbb colour", name, r[2])
			}
			for _, bg := range []string{"bg", "card"} {
				if c := contrast(fg, vars[bg]); c < 4.5 {
					t.Errorf("%s scheme: %s (--%s %s) on --%s %s has contrast %.2f, want at least 4.5", name, strings.TrimSpace(r[1]), r[2], fg, bg, vars[bg], c)
				}
			}
		}
	}
}

func TestSkipLink(t *testing.T) {
	h := newHarness(t, webui.Config{})
	_, body := h.get("/")
	if i, j := strings.Index(body, `class="skip" href="#main"`), strings.Index(body, `<main id="main"`); i < 0 || j < 0 || i > j {
		t.Error("no skip-to-content link before the main content")
	}
}

// TestMatrixContrast checks the node matrix's filled cells and their
// legend keys: the symbol, in the card colour, must stand out from every
// state's fill in both schemes.
func TestMatrixContrast(t *testing.T) {
	b, err := os.ReadFile("static/style.css")
	if err != nil {
		t.Fatal(err)
	}
	css := string(b)
	sc := schemes(t, css)
	fills := regexp.MustCompile(`\.(?:matrix td|key)\.([a-z]+)(?: > a)?(?:, \.key\.[a-z]+)? \{ background: var\(--([a-z-]+)\); \}`).FindAllStringSubmatch(css, -1)
	states := map[string]bool{}
	for _, f := range fills {
		states[f[1]] = true
		for name, vars := range sc {
			if c := contrast(vars["card"], vars[f[2]]); c < 4.5 {
				t.Errorf("%s scheme: the symbol on a %s cell (--card on --%s) has contrast %.2f, want at least 4.5", name, f[1], f[2], c)
			}
		}
	}
	for _, s := range []string{"succeeded", "running", "pending", "failed", "killed", "missed", "skipped", "other"} {
		if !states[s] {
			t.Errorf("no fill rule for %s cells", s)
		}
	}
	if strings.Count(css, "color: var(--card)") < 2 {
		t.Error("the matrix cells and keys do not draw their symbols in the card colour")
	}
}
