package cli

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
	"github.com/almanac-sh/almanac/internal/api/apitype"
)

// getApplies prints the daemon agent's apply reports, newest first
// (`almanac get applies`).
func getApplies(ctx context.Context, e *env, c *apiclient.Client, page string, limit int, jsonOut bool) error {
	l, err := c.ApplyList(ctx, page, limit)
	if err != nil {
		return agentErr(err)
	}
	if jsonOut {
		return writeJSONOut(e.stdout, l)
	}
	t := newTable(e.stdout, "ID", "TRIGGER", "STATUS", "STARTED", "DURATION", "CHANGED", "FAILED", "SKIPPED", "WARNINGS", "EXIT")
	for _, r := range l.Items {
		t.row(strconv.FormatInt(r.ID, 10), r.Trigger.String(), r.Status, fmtTime(&r.Start),
			r.End.Sub(r.Start).Round(time.Millisecond).String(), strconv.Itoa(r.Summary.Changed),
			strconv.Itoa(r.Summary.Failed), strconv.Itoa(r.Summary.Skipped), strconv.Itoa(r.Summary.Warnings),
			strconv.Itoa(r.ExitCode))
	}
	if err := t.flush(); err != nil {
		return err
	}
	if l.NextPage != "" {
		fmt.Fprintf(e.stdout, "(more: --page %s)\n", l.NextPage)
	}
	printAgentStatus(e, l.Agent)
	return nil
}

func printAgentStatus(e *env, s apitype.AgentStatus) {
	var parts []string
	if s.Running != nil {
		parts = append(parts, "applying now ("+s.Running.String()+")")
	}
	if s.Pending != nil {
		parts = append(parts, "next: "+s.Pending.String()+" (queued)")
	}
	if s.NextGate != nil {
		parts = append(parts, fmt.Sprintf("next gate: %s at %s", s.NextGate.String(), fmtTime(&s.NextGate.At)))
	}
	if s.Standby {
		parts = append(parts, "standby: another node leads the cluster and applies")
	} else if s.NextInterval != nil {
		parts = append(parts, "next interval apply: "+fmtTime(s.NextInterval))
	}
	if len(parts) > 0 {
		fmt.Fprintf(e.stdout, "agent %s: %s\n", s.Host, strings.Join(parts, "; "))
	}
}

// describeApply prints one apply report (`almanac describe apply ID`).
func describeApply(ctx context.Context, e *env, c *apiclient.Client, idArg string, jsonOut bool) error {
	id, err := strconv.ParseInt(idArg, 10, 64)
	if err != nil || id <= 0 {
		return usagef("describe apply: %q is not an apply report id (see 'almanac get applies')", idArg)
	}
	r, err := c.ApplyGet(ctx, id)
	if err != nil {
		return agentErr(err)
	}
	if jsonOut {
		return writeJSONOut(e.stdout, r)
	}
	printReport(e, &r)
	return nil
}

// printReport writes a report in the describe layout.
func printReport(e *env, r *apitype.ApplyReport) {
	w := e.stdout
	fmt.Fprintf(w, "Apply:     %d\n", r.ID)
	fmt.Fprintf(w, "Host:      %s\n", r.Host)
	fmt.Fprintf(w, "Trigger:   %s", r.Trigger.String())
	if len(r.Trigger.Resources) > 0 {
		fmt.Fprintf(w, " (for %s)", strings.Join(r.Trigger.Resources, ", "))
	}
	if r.Trigger.Coalesced > 0 {
		fmt.Fprintf(w, " (+%d coalesced)", r.Trigger.Coalesced)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Started:   %s\n", fmtTime(&r.Start))
	fmt.Fprintf(w, "Duration:  %s\n", r.End.Sub(r.Start).Round(time.Millisecond))
	fmt.Fprintf(w, "Status:    %s (exit code %d)\n", r.Status, r.ExitCode)
	if r.Error != "" {
		fmt.Fprintf(w, "Error:     %s\n", r.Error)
	}
	s := r.Summary
	fmt.Fprintf(w, "Summary:   %d resources: %d changed, %d failed, %d skipped, %d refreshed, %d noop\n",
		s.Resources, s.Changed, s.Failed, s.Skipped, s.Refreshed, s.Noop)
	if len(r.Warnings) > 0 {
		fmt.Fprintln(w, "Warnings:")
		for _, wn := range r.Warnings {
			fmt.Fprintf(w, "  %s\n", wn.Message)
		}
	}
	if len(r.Resources) > 0 {
		fmt.Fprintln(w, "Resources:")
		t := newTable(w, "  REF", "STATUS", "SCHEDULE", "NEXT OPENING", "REASON")
		for _, rs := range r.Resources {
			status := rs.Status
			if rs.Refreshed {
				status += ",refreshed"
			}
			t.row("  "+rs.Ref, status, rs.Schedule, fmtTime(rs.NextOpening), rs.Reason)
		}
		t.flush()
	}
	if len(r.Events) > 0 {
		fmt.Fprintln(w, "Events:")
		for _, ev := range r.Events {
			src := ev.Source
			if src != "" {
				src += ": "
			}
			fmt.Fprintf(w, "  %s %s: %s%s\n", fmtTime(&ev.Time), ev.Level, src, ev.Message)
		}
	}
}

// agentErr is apiErr for the apply routes, which a daemon serves only when it
// runs an agent: their absence is explained rather than reported as a
// missing route.
func agentErr(err error) error {
	var ae *apiclient.Error
	if errors.As(err, &ae) && ae.Status == http.StatusNotFound && strings.HasPrefix(ae.API.Message, "no such API route") {
		return fmt.Errorf("this daemon runs no agent, so it has no apply reports (start it with 'almanac serve --manifests DIR')")
	}
	return apiErr(err)
}
