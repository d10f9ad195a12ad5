package pgstore

import (
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
// completes), which runs once no older node is live.
func TestMigrationsAreAdditive(t *testing.T) {
	found, err := migrate.CheckDir(migrations, "migrations", grandfathered)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Error(f)
	}
}
