package webuitest

import (
	"time"

	"github.com/almanac-sh/almanac/internal/agent"
)

// DemoApplies is the number of apply reports the demo holds.
const DemoApplies = 4

// addApplies turns agent mode on and records four applies before now: the
// start-up apply, an interval apply that skips a gated exec, the apply at
// the opening of that exec's schedule, and a failed manual apply.
func addApplies(b *Backend, now time.Time) {
	next := now.Truncate(30 * time.Minute).Add(30*time.Minute + 7*time.Minute)
	gate := time.Date(now.Year(), now.Month(), now.Day()+1, 2, 0, 0, 0, time.UTC)
	b.SetAgent(agent.Status{Host: "demo", Interval: 30 * time.Minute, Splay: 7 * time.Minute, NextInterval: &next,
		NextGate: &agent.Trigger{Kind: agent.TriggerSchedule, Schedule: "nightly-db", Resources: []string{"Exec[vacuum]"}, At: gate}})

	at := func(d time.Duration) time.Time { return now.Add(-d).Truncate(time.Second) }
	report := func(start time.Time, took time.Duration, trig agent.Trigger, res []agent.ResourceStatus, evs []agent.Event, warns []agent.Warning, errText string) {
		r := agent.Report{Host: "demo", Trigger: trig, Start: start, End: start.Add(took), Resources: res, Events: evs, Warnings: warns, Error: errText}
		r.Finish()
		b.AddReport(r)
	}
	opening := gate.Add(-24 * time.Hour)
	s1 := at(26 * time.Hour)
	report(s1, 2300*time.Millisecond, agent.Trigger{Kind: agent.TriggerStartup, At: s1},
		[]agent.ResourceStatus{
			{Ref: "File[/etc/motd]", Status: agent.StatusChanged},
			{Ref: "Package[postgresql]", Status: agent.StatusUnchanged},
			{Ref: "Service[postgresql]", Status: agent.StatusChanged, Refreshed: true},
			{Ref: "Exec[vacuum]", Schedule: "nightly-db", Status: agent.StatusSkipped, Reason: "not scheduled: outside range 02:00 - 02:30", NextOpening: &opening},
		},
		[]agent.Event{
			{Time: s1.Add(400 * time.Millisecond), Level: "Notice", Source: "File[/etc/motd]/content", Message: "content changed '{sha256}3b1f' to '{sha256}9c0e'"},
			{Time: s1.Add(1900 * time.Millisecond), Level: "Notice", Source: "Service[postgresql]", Message: "Triggered 'refresh' from 1 event"},
		}, nil, "")
	s2 := at(25*time.Hour + 30*time.Minute)
	report(s2, 900*time.Millisecond, agent.Trigger{Kind: agent.TriggerInterval, At: s2},
		[]agent.ResourceStatus{
			{Ref: "File[/etc/motd]", Status: agent.StatusUnchanged},
			{Ref: "Package[postgresql]", Status: agent.StatusUnchanged},
			{Ref: "Service[postgresql]", Status: agent.StatusUnchanged},
			{Ref: "Exec[vacuum]", Schedule: "nightly-db", Status: agent.StatusSkipped, Reason: "not scheduled: outside range 02:00 - 02:30", NextOpening: &opening},
		}, nil,
		[]agent.Warning{{Ref: "Exec[reindex]", Schedule: "sunday-0300", Message: "the schedule opens for 1 minute a week, shorter than the 30m run interval; the agent wakes for it at each opening"}}, "")
	report(opening, 41*time.Second, agent.Trigger{Kind: agent.TriggerSchedule, Schedule: "nightly-db", Resources: []string{"Exec[vacuum]"}, At: opening},
		[]agent.ResourceStatus{
			{Ref: "File[/etc/motd]", Status: agent.StatusUnchanged},
			{Ref: "Package[postgresql]", Status: agent.StatusUnchanged},
			{Ref: "Service[postgresql]", Status: agent.StatusUnchanged},
			{Ref: "Exec[vacuum]", Schedule: "nightly-db", Status: agent.StatusChanged, NextOpening: &gate},
		},
		[]agent.Event{{Time: opening.Add(41 * time.Second), Level: "Notice", Source: "Exec[vacuum]/returns", Message: "executed successfully"}}, nil, "")
	s4 := at(50 * time.Minute)
	report(s4, 80*time.Millisecond, agent.Trigger{Kind: agent.TriggerManual, Reason: "deploy 42", At: s4}, nil,
		[]agent.Event{{Time: s4, Level: "Error", Message: "site.pp:14:3: unknown resource type 'servce'"}}, nil,
		"compile manifests: site.pp:14:3: unknown resource type 'servce'")
}
