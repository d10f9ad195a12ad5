package migrate

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"
)

// fakeTx records statements and answers the recorded version.
type fakeTx struct {
	version int
	execs   []string
}

func (f *fakeTx) Exec(_ context.Context, q string, args ...any) error {
	f.execs = append(f.execs, q)
	if strings.HasPrefix(q, "INSERT INTO") {
		f.version = args[0].(int)
	}
	return nil
}

func (f *fakeTx) QueryInt(context.Context, string) (int, error) { return f.version, nil }

func TestApply(t *testing.T) {
	fsys := fstest.MapFS{
		"m/001_init.sql": {Data: []byte("CREATE TABLE a (x int)")},
		"m/002_more.sql": {Data: []byte("ALTER TABLE a ADD y int")},
		"m/bad.sql":      {Data: []byte("")},
	}
	tests := []struct {
		name    string
		names   []string
		version int
		ran     []string
		err     string
	}{
		{"fresh database runs all, in order", []string{"m/002_more.sql", "m/001_init.sql"}, 0,
			[]string{"CREATE TABLE a (x int)", "ALTER TABLE a ADD y int"}, ""},
		{"only the newer ones", []string{"m/001_init.sql", "m/002_more.sql"}, 1, []string{"ALTER TABLE a ADD y int"}, ""},
		{"up to date", []string{"m/001_init.sql", "m/002_more.sql"}, 2, nil, ""},
		{"database newer than the binary", []string{"m/001_init.sql"}, 5, nil, "schema version 5 is newer than this binary's 1"},
		{"unnumbered file", []string{"m/bad.sql"}, 0, nil, "migration bad.sql: name must start with a number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tx := &fakeTx{version: tt.version}
			err := Apply(context.Background(), tx, fsys, tt.names, "v", "$1")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var ran []string
			for _, q := range tx.execs {
				if !strings.HasPrefix(q, "CREATE TABLE IF NOT EXISTS") && !strings.HasPrefix(q, "INSERT INTO") {
					ran = append(ran, q)
				}
			}
			if strings.Join(ran, ";") != strings.Join(tt.ran, ";") {
				t.Fatalf("ran %q, want %q", ran, tt.ran)
			}
		})
	}
}
