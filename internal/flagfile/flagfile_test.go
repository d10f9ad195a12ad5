package flagfile

import (
	"bytes"
	"flag"
	"strings"
	"testing"
	"time"
)

// listValue is a repeatable flag.
type listValue []string

func (l *listValue) String() string     { return strings.Join(*l, ",") }
func (l *listValue) Set(s string) error { *l = append(*l, s); return nil }

// testFlags is a flag set of every kind of flag.
func testFlags() (*flag.FlagSet, *listValue) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.String("name", "", "a name")
	fs.Bool("on", false, "a switch")
	fs.Int("count", 1, "a count")
	fs.Duration("wait", time.Second, "a duration")
	fs.String("api-token", "", "a secret")
	fs.String("api-token-file", "", "the secret's file")
	fs.String("db", "", "a URL")
	l := &listValue{}
	fs.Var(l, "item", "an item (repeatable)")
	fs.String("config", "", "the file")
	return fs, l
}

func TestApply(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		src  string
		set  []string // command line
		want map[string]string
		err  string
	}{
		{name: "every kind", src: "name = \"x\"\non = true\ncount = 3\nwait = \"2m\"\nitem = [\"a\", \"b\"]\n",
			want: map[string]string{"name": "x", "on": "true", "count": "3", "wait": "2m0s", "item": "a,b"}},
		{name: "one value for a repeatable flag", src: "item = \"a\"\n", want: map[string]string{"item": "a"}},
		{name: "quoted key", src: "\"name\" = \"q\"\n", want: map[string]string{"name": "q"}},
		{name: "command line wins", src: "name = \"file\"\nitem = [\"f\"]\n", set: []string{"--name=cli", "--item=c"},
			want: map[string]string{"name": "cli", "item": "c"}},
		{name: "dash in a key", src: "api-token = \"x\"\n", err: "t.toml:1:1: api-token: unknown key"},
		{name: "unknown", src: "# c\n\n   nmae = 1\n", err: "t.toml:3:4: nmae: unknown key"},
		{name: "skipped flag", src: "config = \"x\"\n", err: "t.toml:1:1: config: unknown key"},
		{name: "array element of the wrong type", src: "item = [true]\n", err: "t.toml:1:1: item: want a string or a number, not a boolean"},
		{name: "number for a switch", src: "on = 1\n", err: "on: want true or false, not a number"},
		{name: "date", src: "name = 2026-01-01\n", err: "name: want a string or a number, not a date"},
		{name: "bad int", src: "count = \"many\"\n", err: `count: invalid value "many"`},
		{name: "dotted key", src: "name.x = 1\n", err: `t.toml:1:1: "name" is a table`},
		{name: "the probe's dotted key", src: strings.Repeat("b.", 10000) + "c = 1\n", err: "t.toml:1:1: dotted key nested more than 64 levels deep"},
		{name: "deep header", src: "name = \"x\"\n[" + strings.Repeat("a.", 100) + "a]\n", err: "t.toml:2:1: table header nested more than 64 levels deep"},
		{name: "deep array-of-tables header", src: "[[" + strings.Repeat("a.", 100) + "a]]\n", err: "t.toml:1:1: table header nested more than 64 levels deep"},
		{name: "deep arrays", src: "item = " + strings.Repeat("[", 1<<20-8), err: "t.toml:1:71: arrays or inline tables nested more than 64 levels deep"},
		{name: "syntax", src: "name = \"open\n", err: "t.toml:1:"},
		{name: "duplicate key", src: "name = \"a\"\nname = \"b\"\n", err: "t.toml:2:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs, _ := testFlags()
			if err := fs.Parse(tt.set); err != nil {
				t.Fatal(err)
			}
			set := map[string]bool{}
			fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
			f, err := Parse("t.toml", tt.src)
			if err == nil {
				err = f.Apply(fs, set, map[string]bool{"config": true})
			}
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for name, want := range tt.want {
				if got := fs.Lookup(name).Value.String(); got != want {
					t.Errorf("--%s = %q, want %q", name, got, want)
				}
			}
		})
	}
}

func TestPrintMasksAndRoundTrips(t *testing.T) {
	t.Parallel()
	fs, _ := testFlags()
	Record(fs)
	if err := fs.Parse([]string{"--api-token=hunter2", "--api-token-file=/etc/tok", "--db=postgres://u:pw@h/db",
		"--item=a", "--item=b\"c", "--count=4"}); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Print(&b, fs, map[string]bool{"config": true}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{`api_token = "********"`, `api_token_file = "/etc/tok"`, `db = "postgres://u:xxxxx@h/db"`,
		`item = ["a", "b\"c"]`, "count = 4\n", `wait = "1s" # default`, "on = false # default"} {
		if !strings.Contains(out, want) {
			t.Errorf("Print lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "hunter2") || strings.Contains(out, ":pw@") || strings.Contains(out, "config") {
		t.Errorf("Print shows a secret or a skipped flag:\n%s", out)
	}
	f, err := Parse("printed", out)
	if err != nil {
		t.Fatal(err)
	}
	back, list := testFlags()
	if err := f.Apply(back, nil, map[string]bool{"config": true}); err != nil {
		t.Fatal(err)
	}
	if len(*list) != 2 || (*list)[1] != `b"c` || back.Lookup("count").Value.String() != "4" {
		t.Errorf("read back: item %q count %s", *list, back.Lookup("count").Value)
	}
}

func FuzzParseApply(f *testing.F) {
	for _, s := range []string{"name = \"x\"\n", "item = [\"a\", 1]\non = true\n", "[t]\nx = 1\n", "a.b.c = 1", "wait = \"1h\"\ncount = 1e3\n", "\"\" = 1\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		file, err := Parse("f.toml", src)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("multi-line error %q", err)
			}
			return
		}
		fs, _ := testFlags()
		if err := file.Apply(fs, nil, map[string]bool{"config": true}); err != nil && !strings.HasPrefix(err.Error(), "f.toml") {
			t.Errorf("error %q does not name the file", err)
		}
	})
}
