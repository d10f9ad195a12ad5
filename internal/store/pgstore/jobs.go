package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/almanac-sh/almanac/internal/store"
)

const jobCols = `name, spec, source, version, created_at, updated_at,
	last_schedule_time, last_successful_time, succeeded, failed, wave_paused`

func scanJob(r pgx.Row) (store.Job, error) {
	var j store.Job
	var spec []byte
	var source string
	var created, updated, lastSched, lastOK pgtype.Timestamptz
	var name string
	var paused bool
	if err := r.Scan(&name, &spec, &source, &j.Version, &created, &updated,
		&lastSched, &lastOK, &j.Status.Succeeded, &j.Status.Failed, &paused); err != nil {
		return j, err
	}
	if err := json.Unmarshal(spec, &j.Spec); err != nil {
		return j, fmt.Errorf("job %q: decode spec: %w", name, err)
	}
	// Operator state lives beside the spec, not in it.
	j.Spec.WavePaused = paused
	j.Spec.Name = name
	j.Source = store.Source(source)
	j.CreatedAt, j.UpdatedAt = fromTS(created), fromTS(updated)
	j.Status.LastScheduleTime, j.Status.LastSuccessfulTime = fromTS(lastSched), fromTS(lastOK)
	return j, nil
}

// JobCreate inserts a job; ErrDuplicate if the name exists.
func (s *Store) JobCreate(ctx context.Context, p store.JobCreateParams) (store.Job, error) {
	if p.Spec.Name == "" {
		return store.Job{}, errors.New("pgstore: create job: empty name")
	}
	spec, err := store.EncodeSpec(p.Spec)
	if err != nil {
		return store.Job{}, fmt.Errorf("pgstore: encode job %q: %w", p.Spec.Name, err)
	}
	now := s.now(p.Now)
	var j store.Job
	err = s.tx(ctx, 0, func(tx querier) error {
		var err error
		j, err = scanJob(tx.QueryRow(ctx, `
			INSERT INTO jobs (name, spec, source, version, created_at, updated_at,
			                  last_schedule_time, last_successful_time, succeeded, failed)
			VALUES ($1, $2, $3, 1, $4, $4, $5, $6, $7, $8)
			ON CONFLICT (name) DO NOTHING
			RETURNING `+jobCols,
			p.Spec.Name, spec, string(p.Source), now,
			ts(p.Status.LastScheduleTime), ts(p.Status.LastSuccessfulTime), p.Status.Succeeded, p.Status.Failed))
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("pgstore: job %q: %w", p.Spec.Name, store.ErrDuplicate)
		}
		if err != nil {
			return fmt.Errorf("pgstore: create job %q: %w", p.Spec.Name, err)
		}
		return appendEvents(ctx, tx, now, j.Spec.Name, 0, p.Events)
	})
	return j, err
}

// JobCreateBatch inserts the jobs in one transaction, all or none;
// ErrDuplicate if any name exists.
func (s *Store) JobCreateBatch(ctx context.Context, ps []store.JobCreateParams) error {
	specs := make([][]byte, len(ps))
	for i, p := range ps {
		if p.Spec.Name == "" {
			return errors.New("pgstore: create job: empty name")
		}
		spec, err := store.EncodeSpec(p.Spec)
		if err != nil {
			return fmt.Errorf("pgstore: encode job %q: %w", p.Spec.Name, err)
		}
		specs[i] = spec
	}
	return s.tx(ctx, 0, func(tx querier) error {
		for i, p := range ps {
			now := s.now(p.Now)
			var name string
			err := tx.QueryRow(ctx, `
				INSERT INTO jobs (name, spec, source, version, created_at, updated_at,
				                  last_schedule_time, last_successful_time, succeeded, failed)
				VALUES ($1, $2, $3, 1, $4, $4, $5, $6, $7, $8)
				ON CONFLICT (name) DO NOTHING
				RETURNING name`,
				p.Spec.Name, specs[i], string(p.Source), now,
				ts(p.Status.LastScheduleTime), ts(p.Status.LastSuccessfulTime), p.Status.Succeeded, p.Status.Failed).Scan(&name)
			if errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("pgstore: job %q: %w", p.Spec.Name, store.ErrDuplicate)
			}
			if err != nil {
				return fmt.Errorf("pgstore: create job %q: %w", p.Spec.Name, err)
			}
			if err := appendEvents(ctx, tx, now, name, 0, p.Events); err != nil {
				return err
			}
		}
		return nil
	})
}

// JobUpdate replaces a job's spec (and source, when given), keeping its status.
func (s *Store) JobUpdate(ctx context.Context, p store.JobUpdateParams) (store.Job, error) {
	spec, err := store.EncodeSpec(p.Spec)
	if err != nil {
		return store.Job{}, fmt.Errorf("pgstore: encode job %q: %w", p.Spec.Name, err)
	}
	now := s.now(p.Now)
	var j store.Job
	err = s.tx(ctx, 0, func(tx querier) error {
		var err error
		j, err = scanJob(tx.QueryRow(ctx, `
			UPDATE jobs SET spec = $2, source = COALESCE(NULLIF($3, ''), source),
			                version = version + 1, updated_at = $4
			 WHERE name = $1 AND ($5 = 0 OR version = $5)
			RETURNING `+jobCols,
			p.Spec.Name, spec, string(p.Source), now, p.IfVersion))
		if errors.Is(err, pgx.ErrNoRows) {
			var exists bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM jobs WHERE name = $1)`, p.Spec.Name).Scan(&exists); err != nil {
				return fmt.Errorf("pgstore: update job %q: %w", p.Spec.Name, err)
			}
			if !exists {
				return fmt.Errorf("pgstore: job %q: %w", p.Spec.Name, store.ErrNotFound)
			}
			return fmt.Errorf("pgstore: job %q is not at version %d: %w", p.Spec.Name, p.IfVersion, store.ErrConflict)
		}
		if err != nil {
			return fmt.Errorf("pgstore: update job %q: %w", p.Spec.Name, err)
		}
		return appendEvents(ctx, tx, now, j.Spec.Name, 0, p.Events)
	})
	return j, err
}

// JobDelete removes a job and its runs.
func (s *Store) JobDelete(ctx context.Context, p store.JobDeleteParams) error {
	now := s.now(time.Time{})
	return s.tx(ctx, 0, func(tx querier) error {
		tag, err := tx.Exec(ctx, `DELETE FROM jobs WHERE name = $1`, p.Name)
		if err != nil {
			return fmt.Errorf("pgstore: delete job %q: %w", p.Name, err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("pgstore: job %q: %w", p.Name, store.ErrNotFound)
		}
		return appendEvents(ctx, tx, now, p.Name, 0, p.Events)
	})
}

// JobGet returns one job.
func (s *Store) JobGet(ctx context.Context, name string) (store.Job, error) {
	j, err := scanJob(s.pool.QueryRow(ctx, `SELECT `+jobCols+` FROM jobs WHERE name = $1`, name))
	if errors.Is(err, pgx.ErrNoRows) {
		return j, fmt.Errorf("pgstore: job %q: %w", name, store.ErrNotFound)
	}
	if err != nil {
		return j, fmt.Errorf("pgstore: get job %q: %w", name, err)
	}
	return j, nil
}

// JobList returns jobs ordered by name.
func (s *Store) JobList(ctx context.Context, p store.JobListParams) ([]store.Job, error) {
	var limit any
	if p.Limit > 0 {
		limit = p.Limit
	}
	rows, err := s.pool.Query(ctx, `
		SELECT `+jobCols+` FROM jobs
		 WHERE name > $1 AND ($2 = '' OR source = $2) AND ($4 = '' OR strpos(name, $4) > 0)
		   AND (NOT $5 OR coalesce((spec::jsonb ->> 'alert_after_seconds')::bigint, 0) > 0)
		   AND ($6 = '' OR left(name, length($6)) = $6)
		 ORDER BY name
		 LIMIT $3`, p.After, string(p.Source), limit, p.NameContains, p.WithAlertAfter, p.NamePrefix)
	if err != nil {
		return nil, fmt.Errorf("pgstore: list jobs: %w", err)
	}
	jobs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.Job, error) { return scanJob(r) })
	if err != nil {
		return nil, fmt.Errorf("pgstore: list jobs: %w", err)
	}
	return jobs, nil
}

// JobCounts counts the jobs and the suspended ones.
func (s *Store) JobCounts(ctx context.Context) (store.JobCounts, error) {
	var c store.JobCounts
	err := s.pool.QueryRow(ctx,
		`SELECT count(*), count(*) FILTER (WHERE (spec::jsonb ->> 'suspend')::boolean) FROM jobs`).Scan(&c.Total, &c.Suspended)
	if err != nil {
		return c, fmt.Errorf("pgstore: count jobs: %w", err)
	}
	return c, nil
}

// JobAdvance moves a job's LastScheduleTime forward, never back.
func (s *Store) JobAdvance(ctx context.Context, p store.JobAdvanceParams) error {
	now := s.now(time.Time{})
	return s.tx(ctx, p.Term, func(tx querier) error {
		tag, err := tx.Exec(ctx, `
			UPDATE jobs SET last_schedule_time = GREATEST(last_schedule_time, $2)
			 WHERE name = $1`, p.Name, ts(p.LastScheduleTime))
		if err != nil {
			return fmt.Errorf("pgstore: advance job %q: %w", p.Name, err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("pgstore: job %q: %w", p.Name, store.ErrNotFound)
		}
		return appendEvents(ctx, tx, now, p.Name, 0, p.Events)
	})
}

// JobSetWavePaused sets a job's operator wave pause. Naming source in the
// SET list fires the jobs trigger, so every node hears of it.
func (s *Store) JobSetWavePaused(ctx context.Context, p store.JobSetWavePausedParams) (bool, error) {
	now := s.now(p.Now)
	var changed bool
	err := s.tx(ctx, p.Term, func(tx querier) error {
		tag, err := tx.Exec(ctx, `UPDATE jobs SET wave_paused = $2, source = source WHERE name = $1 AND wave_paused <> $2`, p.Name, p.Paused)
		if err != nil {
			return fmt.Errorf("pgstore: pause waves of %q: %w", p.Name, err)
		}
		if tag.RowsAffected() == 0 {
			var exists bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM jobs WHERE name = $1)`, p.Name).Scan(&exists); err != nil {
				return fmt.Errorf("pgstore: pause waves of %q: %w", p.Name, err)
			}
			if !exists {
				return fmt.Errorf("pgstore: job %q: %w", p.Name, store.ErrNotFound)
			}
			return nil
		}
		changed = true
		return appendEvents(ctx, tx, now, p.Name, 0, p.Events)
	})
	return changed, err
}
