package httpapi

import (
	"github.com/almanac-sh/almanac/internal/agent"
	"github.com/almanac-sh/almanac/internal/api/apitype"
)

// applyTrigger converts an agent trigger for the wire; nil stays nil.
func applyTrigger(t *agent.Trigger) *apitype.ApplyTrigger {
	if t == nil {
		return nil
	}
	return &apitype.ApplyTrigger{Kind: string(t.Kind), Schedule: t.Schedule, Resources: t.Resources,
		Reason: t.Reason, At: t.At, Coalesced: t.Coalesced}
}

// agentStatus converts the agent's status for the wire.
func agentStatus(s agent.Status) apitype.AgentStatus {
	out := apitype.AgentStatus{Host: s.Host, Interval: s.Interval, Splay: s.Splay,
		Running: applyTrigger(s.Running), Pending: applyTrigger(s.Pending), NextInterval: s.NextInterval,
		NextGate: applyTrigger(s.NextGate), Standby: s.Standby, Term: s.Term}
	if s.Last != nil {
		r := applyReport(s.Last)
		out.Last = &r
	}
	return out
}

// applyReport converts an apply report for the wire.
func applyReport(r *agent.Report) apitype.ApplyReport {
	out := apitype.ApplyReport{ID: r.ID, Host: r.Host, Trigger: *applyTrigger(&r.Trigger), Start: r.Start, End: r.End,
		Status: r.Status, ExitCode: r.ExitCode, Error: r.Error, Summary: apitype.ApplySummary(r.Summary)}
	for _, rs := range r.Resources {
		out.Resources = append(out.Resources, apitype.ApplyResource(rs))
	}
	for _, ev := range r.Events {
		out.Events = append(out.Events, apitype.ApplyEvent(ev))
	}
	for _, w := range r.Warnings {
		out.Warnings = append(out.Warnings, apitype.ApplyWarning(w))
	}
	return out
}
