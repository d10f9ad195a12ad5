package migrate

import (
	"fmt"
	"io/fs"
	"path"
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

// CheckDir runs CheckAdditive over every expand migration DIR/*.sql of
// fsys except those named in skip (by base name: migrations that predate
// the rule, which databases already ran), and checks that every contract
// step DIR/contract/NNN_name.sql completes an expand migration NNN. It
// returns one line per finding.
func CheckDir(fsys fs.ReadFileFS, dir string, skip map[string]string) ([]string, error) {
	names, err := fs.Glob(fsys, dir+"/*.sql")
	if err != nil {
		return nil, err
	}
	numbers := map[int]bool{}
	var found []string
	for _, name := range names {
		numbers[Latest([]string{name})] = true
		if _, ok := skip[path.Base(name)]; ok {
			continue
		}
		body, err := fsys.ReadFile(name)
		if err != nil {
			return nil, err
		}
		for _, f := range CheckAdditive(string(body)) {
			found = append(found, fmt.Sprintf("%s %s; move it to a contract step", name, f))
		}
	}
	contracts, err := fs.Glob(fsys, dir+"/contract/*.sql")
	if err != nil {
		return nil, err
	}
	for _, name := range contracts {
		if n := Latest([]string{name}); !numbers[n] {
			found = append(found, fmt.Sprintf("%s completes no expand migration numbered %d", name, n))
		}
	}
	return found, nil
}
