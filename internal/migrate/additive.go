package migrate

import (
	"fmt"
	"regexp"
	"strings"
)

// The statements an expand migration may not contain: each removes or
// changes something a node of the previous release may read or write.
var forbidden = []struct {
	re  *regexp.Regexp
	why string
}{
	{regexp.MustCompile(`\bDROP\b`), "drops something the previous release may read"},
	{regexp.MustCompile(`\bRENAME\b`), "renames something the previous release may read"},
	{regexp.MustCompile(`\bALTER\s+COLUMN\b`), "changes a column the previous release may read or write"},
	{regexp.MustCompile(`\bTRUNCATE\b|\bDELETE\s+FROM\b`), "deletes rows the previous release may read"},
}

var (
	lineComment = regexp.MustCompile(`--[^\n]*`)
	addColumn   = regexp.MustCompile(`\bADD\s+(COLUMN\s+)?`)
	notNull     = regexp.MustCompile(`\bNOT\s+NULL\b`)
	hasDefault  = regexp.MustCompile(`\bDEFAULT\b`)
)

// CheckAdditive reports what in the SQL of an expand migration is not
// additive: a DROP, a RENAME, an ALTER COLUMN, deleted rows, or a column
// added NOT NULL without a DEFAULT (the previous release's inserts do not
// set it). Such a change belongs in a contract step (migrations/contract),
// which runs once no node of an older schema is live. The check reads
// statements, not a parse tree: it errs towards refusing.
func CheckAdditive(sql string) []string {
	body := strings.ToUpper(lineComment.ReplaceAllString(sql, ""))
	var found []string
	for _, stmt := range strings.Split(body, ";") {
		stmt = strings.Join(strings.Fields(stmt), " ")
		if stmt == "" {
			continue
		}
		for _, f := range forbidden {
			if f.re.MatchString(stmt) {
				found = append(found, fmt.Sprintf("%s: %.80s", f.why, stmt))
			}
		}
		if !strings.HasPrefix(stmt, "ALTER TABLE") {
			continue
		}
		parts := addColumn.Split(stmt, -1)
		for _, col := range parts[1:] {
			col, _, _ = strings.Cut(col, ", ADD ")
			if notNull.MatchString(col) && !hasDefault.MatchString(col) && !strings.HasPrefix(col, "CONSTRAINT") {
				found = append(found, fmt.Sprintf("adds a NOT NULL column without a DEFAULT, which the previous release's inserts leave out: %.80s", col))
			}
		}
	}
	return found
}
