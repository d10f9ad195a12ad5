// Package sqlitedamage damages SQLite database files the way failing disks
// and careless hands do, for tests of what notices.
package sqlitedamage

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"os"

	_ "modernc.org/sqlite" // the driver the store uses
)

// LoseIndexEntry makes index (say, sqlite_autoindex_jobs_1) forget the
// entry whose key holds key: the key's bytes inside the index's root page
// become ghost, a name of the same length that no row has. The page stays
// well formed, so quick_check passes, but lookups through the index no
// longer find the row; integrity_check reports it missing. The database
// must be closed; its WAL is checkpointed first.
func LoseIndexEntry(path, index, key, ghost string) error {
	if len(ghost) != len(key) {
		return errors.New("the ghost key must be as long as the key")
	}
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		return err
	}
	var root, pageSize int64
	_, err = db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	if err == nil {
		err = db.QueryRow(`SELECT rootpage FROM sqlite_master WHERE name = ?`, index).Scan(&root)
	}
	if err == nil {
		err = db.QueryRow(`PRAGMA page_size`).Scan(&pageSize)
	}
	if err := errors.Join(err, db.Close()); err != nil {
		return fmt.Errorf("find index %s: %w", index, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	page := make([]byte, pageSize)
	if _, err := f.ReadAt(page, (root-1)*pageSize); err != nil {
		return err
	}
	i := bytes.Index(page, []byte(key))
	if i < 0 {
		return fmt.Errorf("%q is not in the root page of %s", key, index)
	}
	copy(page[i:], ghost)
	_, err = f.WriteAt(page, (root-1)*pageSize)
	return err
}
