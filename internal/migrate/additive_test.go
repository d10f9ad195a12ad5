package migrate

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestCheckAdditive(t *testing.T) {
	tests := []struct {
		name, sql string
		want      string // a substring of the first finding; "" for none
	}{
		{"new table", "CREATE TABLE t (a int NOT NULL, b text);", ""},
		{"nullable column", "ALTER TABLE t ADD COLUMN c text;", ""},
		{"defaulted NOT NULL columns", "ALTER TABLE t ADD COLUMN c text NOT NULL DEFAULT '', ADD COLUMN d int NOT NULL DEFAULT 0;", ""},
		{"index and constraint", "CREATE INDEX i ON t (a); ALTER TABLE t ADD CONSTRAINT k UNIQUE (a, b);", ""},
		{"a comment may say drop", "-- we never DROP anything here\nCREATE TABLE u (a int);", ""},
		{"drop column", "ALTER TABLE t DROP COLUMN c;", "drops"},
		{"drop constraint", "ALTER TABLE runs DROP CONSTRAINT k;", "drops"},
		{"rename", "ALTER TABLE t RENAME TO u;", "renames"},
		{"type change", "ALTER TABLE t ALTER COLUMN a TYPE bigint;", "changes a column"},
		{"delete", "DELETE FROM t WHERE a = 1;", "deletes rows"},
		{"NOT NULL without default", "ALTER TABLE t ADD COLUMN c text NOT NULL;", "NOT NULL column without a DEFAULT"},
		{"second column NOT NULL without default", "ALTER TABLE t ADD COLUMN c text NOT NULL DEFAULT '', ADD COLUMN d int NOT NULL;", "NOT NULL column"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CheckAdditive(tt.sql)
			if tt.want == "" {
				if len(got) != 0 {
					t.Fatalf("CheckAdditive = %q, want nothing", got)
				}
				return
			}
			if len(got) == 0 || !strings.Contains(got[0], tt.want) {
				t.Fatalf("CheckAdditive = %q, want a finding with %q", got, tt.want)
			}
		})
	}
}

func TestCheckDir(t *testing.T) {
	fsys := fstest.MapFS{
		"m/001_init.sql":          {Data: []byte("CREATE TABLE a (x int);")},
		"m/002_drop.sql":          {Data: []byte("ALTER TABLE a DROP COLUMN x;")},
		"m/003_old.sql":           {Data: []byte("DROP TABLE b;")},
		"m/contract/002_drop.sql": {Data: []byte("ALTER TABLE a DROP COLUMN y;")},
		"m/contract/009_lone.sql": {Data: []byte("DROP TABLE c;")},
	}
	found, err := CheckDir(fsys, "m", map[string]string{"003_old.sql": "predates the rule"})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(found, "\n")
	if len(found) != 2 || !strings.Contains(got, "m/002_drop.sql drops") || !strings.Contains(got, "009_lone.sql completes no expand migration numbered 9") {
		t.Fatalf("CheckDir found:\n%s\nwant 002_drop.sql's DROP and the lone contract step", got)
	}
}
