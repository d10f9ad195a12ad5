package migrate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"testing/fstest"
)

// fakeTx records statements and answers the recorded versions.
type fakeTx struct {
	version    int
	contracted []int
	execs      []string
}

func (f *fakeTx) Exec(_ context.Context, q string, args ...any) error {
	f.execs = append(f.execs, q)
	switch {
	case strings.HasPrefix(q, "INSERT INTO v_contracted"):
		f.contracted = append(f.contracted, args[0].(int))
	case strings.HasPrefix(q, "INSERT INTO"):
		f.version = args[0].(int)
	}
	return nil
}

func (f *fakeTx) QueryInt(_ context.Context, q string) (int, error) {
	switch {
	case strings.Contains(q, "MAX(version), 0) FROM v_contracted"):
		m := 0
		for _, v := range f.contracted {
			m = max(m, v)
		}
		return m, nil
	case strings.Contains(q, "FROM v_contracted WHERE version = "):
		for _, v := range f.contracted {
			if strings.HasSuffix(q, fmt.Sprintf("= %d", v)) {
				return 1, nil
			}
		}
		return 0, nil
	}
	return f.version, nil
}

func (f *fakeTx) ran() []string {
	var ran []string
	for _, q := range f.execs {
		if !strings.HasPrefix(q, "CREATE TABLE IF NOT EXISTS") && !strings.HasPrefix(q, "INSERT INTO") {
			ran = append(ran, q)
		}
	}
	return ran
}

var testFS = fstest.MapFS{
	"m/001_init.sql":          {Data: []byte("CREATE TABLE a (x int)")},
	"m/002_more.sql":          {Data: []byte("ALTER TABLE a ADD y int")},
	"m/contract/002_more.sql": {Data: []byte("ALTER TABLE a DROP x")},
	"m/bad.sql":               {Data: []byte("")},
}

func TestRun(t *testing.T) {
	tests := []struct {
		name       string
		names      []string
		version    int
		contracted []int
		now        bool
		ran        []string
		err        string
	}{
		{"fresh database runs all, in order", []string{"m/002_more.sql", "m/001_init.sql"}, 0, nil, false,
			[]string{"CREATE TABLE a (x int)", "ALTER TABLE a ADD y int"}, ""},
		{"only the newer ones", []string{"m/001_init.sql", "m/002_more.sql"}, 1, nil, false, []string{"ALTER TABLE a ADD y int"}, ""},
		{"up to date", []string{"m/001_init.sql", "m/002_more.sql"}, 2, nil, false, nil, ""},
		{"expanded past the binary: runs on it", []string{"m/001_init.sql"}, 5, nil, false, nil, ""},
		{"contracted past the binary: refused", []string{"m/001_init.sql"}, 5, []int{2}, false, nil,
			"schema version 5 (v) was contracted at 2, past this binary's 1"},
		{"contract now runs the steps after the expansions", []string{"m/001_init.sql", "m/002_more.sql"}, 1, nil, true,
			[]string{"ALTER TABLE a ADD y int", "ALTER TABLE a DROP x"}, ""},
		{"a recorded step is not run again", []string{"m/001_init.sql", "m/002_more.sql"}, 2, []int{2}, true, nil, ""},
		{"unnumbered file", []string{"m/bad.sql"}, 0, nil, false, nil, "migration bad.sql: name must start with a number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tx := &fakeTx{version: tt.version, contracted: tt.contracted}
			opts := Options{Contract: []string{"m/contract/002_more.sql"}, ContractNow: tt.now, Log: slog.New(slog.DiscardHandler)}
			_, err := Run(context.Background(), tx, testFS, tt.names, "v", "$1", opts)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ran := tx.ran(); strings.Join(ran, ";") != strings.Join(tt.ran, ";") {
				t.Fatalf("ran %q, want %q", ran, tt.ran)
			}
		})
	}
}

func TestTooOldIsDistinct(t *testing.T) {
	tx := &fakeTx{version: 3, contracted: []int{2}}
	_, err := Run(context.Background(), tx, testFS, []string{"m/001_init.sql"}, "v", "$1", Options{Log: slog.New(slog.DiscardHandler)})
	var old *TooOldError
	if !errors.Is(err, ErrTooOld) || !errors.As(err, &old) || old.Binary != 1 || old.Contracted != 2 {
		t.Fatalf("err = %#v, want a TooOldError (binary 1, contracted 2)", err)
	}
}

// TestContractWaitsForLiveNodes: a step runs only once every live node
// knows its number, and once.
func TestContractWaitsForLiveNodes(t *testing.T) {
	tx := &fakeTx{version: 2}
	names := []string{"m/contract/002_more.sql"}
	opts := Options{Log: slog.New(slog.DiscardHandler)}
	if steps, err := Contract(context.Background(), tx, testFS, names, "v", "$1", 1, opts); err != nil || len(steps) != 0 {
		t.Fatalf("with a node at 1: steps %v, err %v; want none", steps, err)
	}
	steps, err := Contract(context.Background(), tx, testFS, names, "v", "$1", 2, opts)
	if err != nil || len(steps) != 1 || !steps[0].Contract || steps[0].To != 2 {
		t.Fatalf("with every node at 2: steps %+v, err %v; want the step for 2", steps, err)
	}
	if steps, err := Contract(context.Background(), tx, testFS, names, "v", "$1", 2, opts); err != nil || len(steps) != 0 {
		t.Fatalf("again: steps %v, err %v; want none", steps, err)
	}
	if p, err := Pending(context.Background(), tx, names, "v"); err != nil || len(p) != 0 {
		t.Fatalf("pending %v, %v; want none", p, err)
	}
}

// TestRunLogsEachMigration: every migration is logged with from, to and
// its duration.
func TestRunLogsEachMigration(t *testing.T) {
	var b strings.Builder
	tx := &fakeTx{}
	_, err := Run(context.Background(), tx, testFS, []string{"m/001_init.sql", "m/002_more.sql"}, "v", "$1",
		Options{Log: slog.New(slog.NewTextHandler(io.Writer(&b), nil))})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"migration=001_init.sql from=0 to=1 duration=", "migration=002_more.sql from=1 to=2 duration="} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, b.String())
		}
	}
}
