package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

const jobColumns = `name, spec, source, version, created_at, updated_at,
	last_schedule_time, last_successful_time, succeeded, failed, wave_paused`

type rowScanner interface{ Scan(dest ...any) error }

func scanJob(r rowScanner) (store.Job, error) {
	var (
		j                store.Job
		name, spec, src  string
		created, updated int64
		last, lastOK     sql.NullInt64
	)
	var paused bool
	if err := r.Scan(&name, &spec, &src, &j.Version, &created, &updated, &last, &lastOK,
		&j.Status.Succeeded, &j.Status.Failed, &paused); err != nil {
		return store.Job{}, err
	}
	if err := json.Unmarshal([]byte(spec), &j.Spec); err != nil {
		return store.Job{}, fmt.Errorf("job %q: decode stored spec: %w", name, err)
	}
	// Operator state lives beside the spec, not in it.
	j.Spec.WavePaused = paused
	j.Spec.Name = name
	j.Source = store.Source(src)
	j.CreatedAt = time.UnixMicro(created).UTC()
	j.UpdatedAt = time.UnixMicro(updated).UTC()
	j.Status.LastScheduleTime = fromMicro(last)
	j.Status.LastSuccessfulTime = fromMicro(lastOK)
	return j, nil
}

// JobCreate implements store.Store.
func (s *Store) JobCreate(ctx context.Context, p store.JobCreateParams) (store.Job, error) {
	if p.Spec.Name == "" {
		return store.Job{}, errors.New("create job: empty name")
	}
	spec, err := store.EncodeSpec(p.Spec)
	if err != nil {
		return store.Job{}, fmt.Errorf("create job %q: %w", p.Spec.Name, err)
	}
	now := s.now(p.Now)
	var j store.Job
	err = s.tx(ctx, func(tx *sql.Tx) error {
		_, err := s.stmt(ctx, tx, sqlInsertJob).ExecContext(ctx,
			p.Spec.Name, string(spec), string(p.Source), now.UnixMicro(), now.UnixMicro(),
			micro(p.Status.LastScheduleTime), micro(p.Status.LastSuccessfulTime), p.Status.Succeeded, p.Status.Failed)
		if isUnique(err) {
			return fmt.Errorf("create job %q: %w", p.Spec.Name, store.ErrDuplicate)
		}
		if err != nil {
			return fmt.Errorf("create job %q: %w", p.Spec.Name, err)
		}
		if err := s.appendEvents(ctx, tx, now, p.Spec.Name, 0, p.Events); err != nil {
			return err
		}
		j, err = scanJob(s.stmt(ctx, tx, sqlJobByName).QueryRowContext(ctx, p.Spec.Name))
		return err
	})
	return j, err
}

// JobCreateBatch implements store.Store.
func (s *Store) JobCreateBatch(ctx context.Context, ps []store.JobCreateParams) error {
	specs := make([]string, len(ps))
	for i, p := range ps {
		if p.Spec.Name == "" {
			return errors.New("create job: empty name")
		}
		spec, err := store.EncodeSpec(p.Spec)
		if err != nil {
			return fmt.Errorf("create job %q: %w", p.Spec.Name, err)
		}
		specs[i] = string(spec)
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		insert := s.stmt(ctx, tx, sqlInsertJob)
		for i, p := range ps {
			now := s.now(p.Now)
			_, err := insert.ExecContext(ctx, p.Spec.Name, specs[i], string(p.Source), now.UnixMicro(), now.UnixMicro(),
				micro(p.Status.LastScheduleTime), micro(p.Status.LastSuccessfulTime), p.Status.Succeeded, p.Status.Failed)
			if isUnique(err) {
				return fmt.Errorf("create job %q: %w", p.Spec.Name, store.ErrDuplicate)
			}
			if err != nil {
				return fmt.Errorf("create job %q: %w", p.Spec.Name, err)
			}
			if err := s.appendEvents(ctx, tx, now, p.Spec.Name, 0, p.Events); err != nil {
				return err
			}
		}
		return nil
	})
}

// JobUpdate implements store.Store.
func (s *Store) JobUpdate(ctx context.Context, p store.JobUpdateParams) (store.Job, error) {
	spec, err := store.EncodeSpec(p.Spec)
	if err != nil {
		return store.Job{}, fmt.Errorf("update job %q: %w", p.Spec.Name, err)
	}
	now := s.now(p.Now)
	var j store.Job
	err = s.tx(ctx, func(tx *sql.Tx) error {
		var version int64
		err := tx.QueryRowContext(ctx, `SELECT version FROM jobs WHERE name = ?`, p.Spec.Name).Scan(&version)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("update job %q: %w", p.Spec.Name, store.ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("update job %q: %w", p.Spec.Name, err)
		}
		if p.IfVersion != 0 && p.IfVersion != version {
			return fmt.Errorf("update job %q: version %d, not %d: %w", p.Spec.Name, version, p.IfVersion, store.ErrConflict)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE jobs SET spec = ?, source = ?, version = version + 1, updated_at = ? WHERE name = ?`,
			string(spec), string(p.Source), now.UnixMicro(), p.Spec.Name); err != nil {
			return fmt.Errorf("update job %q: %w", p.Spec.Name, err)
		}
		if err := s.appendEvents(ctx, tx, now, p.Spec.Name, 0, p.Events); err != nil {
			return err
		}
		j, err = scanJob(tx.QueryRowContext(ctx, `SELECT `+jobColumns+` FROM jobs WHERE name = ?`, p.Spec.Name))
		return err
	})
	return j, err
}

// JobDelete implements store.Store.
func (s *Store) JobDelete(ctx context.Context, p store.JobDeleteParams) error {
	now := s.now(time.Time{})
	return s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM jobs WHERE name = ?`, p.Name)
		if err != nil {
			return fmt.Errorf("delete job %q: %w", p.Name, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("delete job %q: %w", p.Name, store.ErrNotFound)
		}
		return s.appendEvents(ctx, tx, now, p.Name, 0, p.Events)
	})
}

// JobGet implements store.Store.
func (s *Store) JobGet(ctx context.Context, name string) (store.Job, error) {
	j, err := scanJob(s.r.QueryRowContext(ctx, `SELECT `+jobColumns+` FROM jobs WHERE name = ?`, name))
	if errors.Is(err, sql.ErrNoRows) {
		return store.Job{}, fmt.Errorf("job %q: %w", name, store.ErrNotFound)
	}
	return j, err
}

// JobList implements store.Store.
func (s *Store) JobList(ctx context.Context, p store.JobListParams) ([]store.Job, error) {
	q := `SELECT ` + jobColumns + ` FROM jobs WHERE name > ?`
	args := []any{p.After}
	if p.Source != "" {
		q += ` AND source = ?`
		args = append(args, string(p.Source))
	}
	if p.NameContains != "" {
		q += ` AND instr(name, ?) > 0`
		args = append(args, p.NameContains)
	}
	if p.NamePrefix != "" {
		q += ` AND substr(name, 1, length(?)) = ?`
		args = append(args, p.NamePrefix, p.NamePrefix)
	}
	if p.WithAlertAfter {
		q += ` AND coalesce(json_extract(spec, '$.alert_after_seconds'), 0) > 0`
	}
	q += ` ORDER BY name`
	if p.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, p.Limit)
	}
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	defer rows.Close()
	var jobs []store.Job
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, fmt.Errorf("list jobs: %w", err)
		}
		jobs = append(jobs, j)
	}
	return jobs, rows.Err()
}

// JobCounts implements store.Store.
func (s *Store) JobCounts(ctx context.Context) (store.JobCounts, error) {
	var c store.JobCounts
	err := s.r.QueryRowContext(ctx,
		`SELECT count(*), coalesce(sum(json_extract(spec, '$.suspend') = 1), 0) FROM jobs`).Scan(&c.Total, &c.Suspended)
	if err != nil {
		return c, fmt.Errorf("count jobs: %w", err)
	}
	return c, nil
}

// JobAdvance implements store.Store.
func (s *Store) JobAdvance(ctx context.Context, p store.JobAdvanceParams) error {
	now := s.now(time.Time{})
	return s.tx(ctx, func(tx *sql.Tx) error {
		if err := s.advance(ctx, tx, p.Name, p.LastScheduleTime); err != nil {
			return err
		}
		return s.appendEvents(ctx, tx, now, p.Name, 0, p.Events)
	})
}

// advance moves a job's last_schedule_time forward, never back.
func (s *Store) advance(ctx context.Context, tx *sql.Tx, name string, t time.Time) error {
	res, err := s.stmt(ctx, tx, sqlAdvance).ExecContext(ctx, t.UnixMicro(), name)
	if err != nil {
		return fmt.Errorf("advance job %q: %w", name, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("advance job %q: %w", name, store.ErrNotFound)
	}
	return nil
}

// JobSetWavePaused implements store.Store.
func (s *Store) JobSetWavePaused(ctx context.Context, p store.JobSetWavePausedParams) (bool, error) {
	now := s.now(p.Now)
	var changed bool
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var paused bool
		err := tx.QueryRowContext(ctx, `SELECT wave_paused FROM jobs WHERE name = ?`, p.Name).Scan(&paused)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("job %q: %w", p.Name, store.ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("pause waves of %q: %w", p.Name, err)
		}
		if paused == p.Paused {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `UPDATE jobs SET wave_paused = ? WHERE name = ?`, p.Paused, p.Name); err != nil {
			return fmt.Errorf("pause waves of %q: %w", p.Name, err)
		}
		changed = true
		return s.appendEvents(ctx, tx, now, p.Name, 0, p.Events)
	})
	return changed, err
}
