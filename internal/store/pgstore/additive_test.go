package pgstore

import (
	"io/fs"
	"path"
	"testing"

	"github.com/almanac-sh/almanac/internal/migrate"
)

// grandfathered are migrations that predate the expand/contract rule and
// may not be edited any more: databases already ran them.
var grandfathered = map[string]string{}

// TestMigrationsAreAdditive enforces the rule of docs/development.md
// ("Schema changes"): a migration in migrations/ only adds, so release N
// and N-1 can share one database; what it removes goes in a contract step
// (migrations/contract/NNN_name.sql, NNN the expand migration it
// completes), which the leader runs once no older node is live.
func TestMigrationsAreAdditive(t *testing.T) {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	numbers := map[int]bool{}
	for _, name := range names {
		numbers[migrate.Latest([]string{name})] = true
		t.Run(path.Base(name), func(t *testing.T) {
			if _, ok := grandfathered[path.Base(name)]; ok {
				return
			}
			body, err := migrations.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range migrate.CheckAdditive(string(body)) {
				t.Errorf("%s %s; move it to a contract step", name, f)
			}
		})
	}
	contracts, _ := fs.Glob(migrations, "migrations/contract/*.sql")
	for _, name := range contracts {
		if n := migrate.Latest([]string{name}); !numbers[n] {
			t.Errorf("%s completes no expand migration numbered %d", name, n)
		}
	}
}
