package apply

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// fakeExec behaves like Puppet's exec without running anything: params
// "refreshonly", "insync", "fail" (sync fails) and "refreshfail".
type fakeExec struct{ trace *[]string }

func (f fakeExec) Changes(_ context.Context, r *Resource, _ Logger) ([]Change, error) {
	if r.Params["refreshonly"] == true || r.Params["insync"] == true {
		return nil, nil
	}
	if r.Params["unreadable"] == true {
		return nil, errors.New("cannot read")
	}
	return []Change{{
		Property: "returns", Is: "'notrun'", Should: "['0']",
		Sync: func(context.Context, Logger) (string, error) {
			*f.trace = append(*f.trace, "run "+r.Title)
			if r.Params["fail"] == true {
				return "", errors.New("'/bin/false' returned 1 instead of one of [0]")
			}
			return "executed successfully", nil
		},
	}}, nil
}

func (f fakeExec) Refresh(_ context.Context, r *Resource, _ Logger) error {
	*f.trace = append(*f.trace, "refresh "+r.Title)
	if r.Params["refreshfail"] == true {
		return errors.New("'/bin/false' returned 1 instead of one of [0]")
	}
	return nil
}

// fakeFile always needs creating and cannot refresh.
type fakeFile struct{ trace *[]string }

func (f fakeFile) Changes(_ context.Context, r *Resource, _ Logger) ([]Change, error) {
	return []Change{{Property: "ensure", Is: "'absent'", Should: "'file'",
		Sync: func(context.Context, Logger) (string, error) {
			*f.trace = append(*f.trace, "create "+r.Title)
			return "created", nil
		}}}, nil
}

type fakeNotify struct{}

func (fakeNotify) Changes(_ context.Context, r *Resource, _ Logger) ([]Change, error) {
	msg := fmt.Sprint(r.Params["message"])
	return []Change{{Property: "message", Is: "'absent'", Should: "'" + msg + "'",
		Sync: func(_ context.Context, log Logger) (string, error) {
			log.Log(Notice, "", msg)
			return "defined 'message' as '" + msg + "'", nil
		}}}, nil
}

// builder makes catalogs shaped like Puppet's: Stage[main] holding
// Class[Settings] and Class[Main], resources in Class[Main] unless placed
// elsewhere.
type builder struct {
	cat Catalog
	in  string
}

func newBuilder() *builder {
	b := &builder{in: "Class[Main]"}
	b.cat.Resources = []*Resource{
		{Type: "Stage", Title: "main"},
		{Type: "Class", Title: "Settings", Container: "Stage[main]"},
		{Type: "Class", Title: "Main", Container: "Stage[main]"},
	}
	return b
}

// add declares a resource; kv are param name/value pairs.
func (b *builder) add(typ, title string, kv ...any) *builder {
	r := &Resource{Type: typ, Title: title, Params: map[string]any{}, Container: b.in}
	for i := 0; i+1 < len(kv); i += 2 {
		r.Params[kv[i].(string)] = kv[i+1]
	}
	if typ == "Class" {
		r.Container = "Stage[main]"
	}
	b.cat.Resources = append(b.cat.Resources, r)
	return b
}

// class declares a class contained in the current container (contain) and
// makes it the container for following adds until done.
func (b *builder) class(name string) *builder {
	b.add("Class", name)
	b.cat.Edges = append(b.cat.Edges, Edge{From: b.in, To: "Class[" + name + "]", Kind: Contain})
	b.in = "Class[" + name + "]"
	return b
}

func (b *builder) done() *builder { b.in = "Class[Main]"; return b }

// edges adds relationships written "A -> B" or "A ~> B".
func (b *builder) edges(specs ...string) *builder {
	for _, s := range specs {
		kind, sep := Before, " -> "
		if strings.Contains(s, " ~> ") {
			kind, sep = Notify, " ~> "
		}
		from, to, _ := strings.Cut(s, sep)
		b.cat.Edges = append(b.cat.Edges, Edge{From: from, To: to, Kind: kind, Pos: "test.pp:1:1"})
	}
	return b
}

type result struct {
	lines  []string
	trace  []string
	report *Report
	err    error
}

func (res result) output() string { return strings.Join(res.lines, "\n") }

type gateFunc func(last, now time.Time) bool

func (g gateFunc) Match(last, now time.Time) bool { return g(last, now) }

func runCatalog(cat *Catalog, mod func(*Options)) result {
	return runOrdered(cat, OrderManifest, 0, mod)
}

func runOrdered(cat *Catalog, ordering Ordering, seed uint64, mod func(*Options)) result {
	var res result
	opts := Options{
		Log: LoggerFunc(func(l Level, src, msg string) {
			if l == Debug {
				return
			}
			if src != "" {
				src += ": "
			}
			res.lines = append(res.lines, l.String()+": "+src+msg)
		}),
		Providers: map[string]Provider{
			"exec":   fakeExec{&res.trace},
			"file":   fakeFile{&res.trace},
			"notify": fakeNotify{},
		},
	}
	if mod != nil {
		mod(&opts)
	}
	p, err := NewPlan(cat, ordering, seed)
	if err != nil {
		res.err = err
		return res
	}
	res.report, res.err = Run(context.Background(), p, opts)
	return res
}
