package fleet

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
)

// Demo is a simulated fleet for trying almanac without a cloud: a handful of
// machines whose tags show every validation rule, with state kept in memory.
// It is safe for concurrent use.
type Demo struct {
	mu       sync.Mutex
	machines map[string]*Resource
	fail     map[string]int
}

// NewDemo returns the demo fleet:
//
//   - web-1, web-2: weekday office hours in New York, notify set;
//   - batch-1: nights in Berlin, hibernates (supported);
//   - legacy-1: ProsperOps spelling with aliases, an invalid notify address and
//     hibernation it does not support (two warnings, still scheduled);
//   - broken-1: an hour 25 in its start schedule (error, never acted on);
//   - clash-1: start and stop both at tue0800 (error);
//   - nozone-1: no time zone (error);
//   - db-1: no schedule tags at all (unscheduled).
func NewDemo() *Demo {
	d := &Demo{machines: map[string]*Resource{}, fail: map[string]int{}}
	add := func(id, name string, st State, hib bool, tags map[string]string) {
		d.machines[id] = &Resource{ID: id, Name: name, State: st, Tags: tags, SupportsHibernation: hib}
	}
	office := func(notify string) map[string]string {
		return map[string]string{
			"almanac-schedule-start":    "mon0800_tue0800_wed0800_thu0800_fri0800",
			"almanac-schedule-stop":     "mon1900_tue1900_wed1900_thu1900_fri1900",
			"almanac-schedule-timezone": "america-new_york",
			"almanac-schedule-notify":   notify,
			"team":                      "web",
		}
	}
	add("demo-web-1", "web-1", Running, false, office("web-team@example.com"))
	add("demo-web-2", "web-2", Stopped, false, office("web-team@example.com"))
	add("demo-batch-1", "batch-1", Hibernated, true, map[string]string{
		"almanac-schedule-start":          "mon2200_tue2200_wed2200_thu2200_fri2200",
		"almanac-schedule-stop":           "tue0600_wed0600_thu0600_fri0600_sat0600",
		"almanac-schedule-timezone":       "europe-berlin",
		"almanac-schedule-stop-hibernate": "true",
		"almanac-schedule-notify":         "batch@example.com",
	})
	add("demo-legacy-1", "legacy-1", Running, false, map[string]string{
		"prosperops-schedule-power-on":            "mon0900_tue0900_wed0900_thu0900_fri0900",
		"prosperops-schedule-power-off":           "mon1215_tue1215_wed1215_thu1700_fri1800",
		"prosperops-schedule-timezone":            "america-new_york",
		"prosperops-schedule-notify":              "prosper.bot at example.com",
		"prosperops-schedule-power-off-hibernate": "true",
	})
	add("demo-broken-1", "broken-1", Running, false, map[string]string{
		"almanac-schedule-start":    "mon0900_tue2500",
		"almanac-schedule-stop":     "mon1700",
		"almanac-schedule-timezone": "utc",
	})
	add("demo-clash-1", "clash-1", Stopped, false, map[string]string{
		"almanac-schedule-start":    "mon0800_tue0800_wed0800",
		"almanac-schedule-stop":     "mon2000_tue0800_wed2000",
		"almanac-schedule-timezone": "asia-tokyo",
	})
	add("demo-nozone-1", "nozone-1", Running, true, map[string]string{
		"almanac-schedule-stop": "sat0000",
	})
	add("demo-db-1", "db-1", Running, false, map[string]string{"team": "data"})
	return d
}

// List returns copies of every machine, sorted by id.
func (d *Demo) List(context.Context) ([]Resource, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]Resource, 0, len(d.machines))
	for _, m := range d.machines {
		c := *m
		c.Tags = make(map[string]string, len(m.Tags))
		for k, v := range m.Tags {
			c.Tags[k] = v
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b Resource) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// Start powers a machine on.
func (d *Demo) Start(_ context.Context, id string) error { return d.set(id, ActionStart) }

// Stop powers a machine off.
func (d *Demo) Stop(_ context.Context, id string) error { return d.set(id, ActionStop) }

// Hibernate suspends a machine that supports it.
func (d *Demo) Hibernate(_ context.Context, id string) error { return d.set(id, ActionHibernate) }

func (d *Demo) set(id string, a Action) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	m, ok := d.machines[id]
	if !ok {
		return fmt.Errorf("%s %s: no such machine", a, id)
	}
	if d.fail[id] > 0 {
		d.fail[id]--
		return fmt.Errorf("%s %s: simulated failure (the machine did not respond)", a, id)
	}
	if a == ActionHibernate && !m.SupportsHibernation {
		return fmt.Errorf("hibernate %s: machine does not support hibernation", id)
	}
	m.State = a.Target()
	return nil
}

// SetState changes a machine's state as an operator outside almanac would.
func (d *Demo) SetState(id string, s State) error {
	if !s.Valid() {
		return fmt.Errorf("invalid state %q", s)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	m, ok := d.machines[id]
	if !ok {
		return fmt.Errorf("no such machine %q", id)
	}
	m.State = s
	return nil
}

// SetTag sets a machine's tag; an empty value removes it.
func (d *Demo) SetTag(id, key, value string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	m, ok := d.machines[id]
	if !ok {
		return fmt.Errorf("no such machine %q", id)
	}
	if value == "" {
		delete(m.Tags, key)
	} else {
		m.Tags[key] = value
	}
	return nil
}

// FailNext makes the next n actions on machine id fail, to show retries and
// failure notifications.
func (d *Demo) FailNext(id string, n int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.fail[id] = n
}
