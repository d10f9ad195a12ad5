package nodeselect

import (
	"errors"
	"strings"
	"testing"
)

// nodes is a small fleet the table tests select from.
var nodes = []struct {
	name   string
	labels map[string]string
}{
	{"db-1", map[string]string{"role": "db", "zone": "eu"}},
	{"db-2", map[string]string{"role": "db", "zone": "us", "canary": ""}},
	{"web-1", map[string]string{"role": "web", "zone": "eu"}},
	{"bare", nil},
}

// selected lists the names of the nodes s matches.
func selected(s Selector) string {
	var out []string
	for _, n := range nodes {
		if s.Matches(n.name, n.labels) {
			out = append(out, n.name)
		}
	}
	return strings.Join(out, " ")
}

func TestParse(t *testing.T) {
	tests := []struct {
		src, want, canon string
		mode             Mode
	}{
		{"", "db-1 db-2 web-1 bare", "any", ModeAny},
		{"  any ", "db-1 db-2 web-1 bare", "any", ModeAny},
		{"all", "db-1 db-2 web-1 bare", "all", ModeAll},
		{"web-1", "web-1", "web-1", ModeMatch},
		{"nosuch", "", "nosuch", ModeMatch},
		{"role=db", "db-1 db-2", "role=db", ModeMatch},
		{"role == db", "db-1 db-2", "role=db", ModeMatch},
		{"role!=db", "web-1 bare", "role!=db", ModeMatch},
		{"role=db,zone=eu", "db-1", "role=db,zone=eu", ModeMatch},
		{" role = db , zone != eu ", "db-2", "role=db,zone!=eu", ModeMatch},
		{"role in (db, web)", "db-1 db-2 web-1", "role in (db,web)", ModeMatch},
		{"role in (db,db)", "db-1 db-2", "role in (db)", ModeMatch},
		{"zone notin (us)", "db-1 web-1 bare", "zone notin (us)", ModeMatch},
		{"canary=", "db-2", "canary=", ModeMatch},
		{"db-1,role=db", "db-1", "db-1,role=db", ModeMatch},
		{"role=db,db-2", "db-2", "db-2,role=db", ModeMatch},
		{"example.com/tier=gold", "", "example.com/tier=gold", ModeMatch},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			s, err := Parse(tt.src)
			if err != nil {
				t.Fatal(err)
			}
			if s.Mode != tt.mode {
				t.Errorf("mode %v, want %v", s.Mode, tt.mode)
			}
			if got := selected(s); got != tt.want {
				t.Errorf("selects %q, want %q", got, tt.want)
			}
			if got := s.String(); got != tt.canon {
				t.Errorf("String() = %q, want %q", got, tt.canon)
			}
			again, err := Parse(s.String())
			if err != nil || again.String() != s.String() {
				t.Errorf("Parse(String()) = %v, %v", again, err)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		src  string
		col  int
		want string
	}{
		{",", 1, "want a node name or a label key, found ','"},
		{"role=db,", 9, "want a node name or a label key, found end of selector"},
		{"role=db zone=eu", 9, "want ',' between terms, found 'z'"},
		{"role db", 6, `want =, !=, in or notin after "role", found 'd'`},
		{"role=db;zone=eu", 8, "want ',' between terms, found ';'"},
		{"role<db", 5, `unexpected '<' after "role"`},
		{"role = d b", 10, "want ',' between terms"},
		{"role=-db", 6, `label value "-db": must start and end with a letter or digit`},
		{"-role=db", 1, `label key "-role"`},
		{"Ex.com/k=v", 1, "not a DNS subdomain"},
		{"role in db", 9, "want '(' to open the value list, found 'd'"},
		{"role in (db", 12, "value list not closed with ')'"},
		{"role in ()", 10, "want a value, found ')'"},
		{"role in (db;web)", 12, "want ',' or ')' in the value list, found ';'"},
		{"role notin (db),role=web", 17, `label key "role" already used at col 1`},
		{"any,role=db", 1, `"any" must stand alone`},
		{"role=db,all", 9, `"all" must stand alone`},
		{"db-1,db-2", 6, "two names match no node"},
		{"a/b", 1, "'/' is not allowed"},
		{"role=" + strings.Repeat("x", 64), 6, "longer than 63 characters"},
		{strings.Repeat("a", MaxLen+1), MaxLen + 1, "longer than 1024 bytes"},
		{"role=\x1b", 6, "want ',' between terms, found '\\x1b'"},
	}
	for _, tt := range tests {
		t.Run(tt.src[:min(len(tt.src), 30)], func(t *testing.T) {
			_, err := Parse(tt.src)
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v, want a *SyntaxError", err)
			}
			if se.Col != tt.col || !strings.Contains(se.Msg, tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q (col %d), want col %d and %q", err, se.Col, tt.col, tt.want)
			}
		})
	}
}

func TestCheckKey(t *testing.T) {
	for _, k := range []string{"role", "a", "a.b_c-d", "example.com/role", "k8s.io/x", strings.Repeat("k", 63)} {
		if err := CheckKey(k); err != nil {
			t.Errorf("CheckKey(%q): %v", k, err)
		}
	}
	for _, k := range []string{"", "/role", "example.com/", "a b", "-a", "a-", strings.Repeat("k", 64), "EX.com/a", "a..b/c", "ünï"} {
		if err := CheckKey(k); err == nil {
			t.Errorf("CheckKey(%q) accepted", k)
		}
	}
}

func TestLabelsString(t *testing.T) {
	l := Labels{"zone": "eu", "role": "db", "canary": ""}
	if got := l.String(); got != "canary=,role=db,zone=eu" {
		t.Errorf("String() = %q", got)
	}
	if !Labels(nil).Equal(Labels{}) || l.Equal(Labels{"zone": "eu"}) || l.Equal(Labels{"zone": "eu", "role": "db", "canary": "x"}) {
		t.Error("Equal")
	}
}

// FuzzParse: no input panics; an accepted selector renders to text that
// parses to the same selector, selecting the same nodes.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "any", "all", "web-1", "role=db,zone!=eu", "role in (db,web)", "k notin (a)",
		"example.com/k==v", "role in (db", "a,b", ",,", "role=db,any"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		s, err := Parse(src)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		again, err := Parse(s.String())
		if err != nil {
			t.Fatalf("Parse(%q) ok, but its String %q fails: %v", src, s.String(), err)
		}
		if again.String() != s.String() || selected(again) != selected(s) {
			t.Fatalf("round trip of %q: %q selects %q, %q selects %q", src, s.String(), selected(s), again.String(), selected(again))
		}
	})
}
