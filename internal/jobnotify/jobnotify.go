// Package jobnotify tells people about their jobs: it receives the job
// controller's outcomes (a failed run, a success after failures, missed
// instants) and delivers them to each job's notify targets (email over
// SMTP, a JSON webhook, a Slack-compatible incoming webhook), in the
// background, with retries, recording every attempt in the event log.
//
// The controller never waits for a delivery: Report only queues, and a
// full queue drops the notification with a log line and a count.
package jobnotify

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/smtp"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/fleet"
	"github.com/almanac-sh/almanac/internal/job"
	redactpkg "github.com/almanac-sh/almanac/internal/redact"
	"github.com/almanac-sh/almanac/internal/store"
)

// Event is the JSON body a webhook receives.
type Event struct {
	// Event is the outcome: failure, success, recovered or missed.
	Event       string    `json:"event"`
	Job         string    `json:"job"`
	RunID       int64     `json:"run_id,omitempty"`
	ScheduledAt time.Time `json:"scheduled_at"`
	State       string    `json:"state,omitempty"`
	ExitCode    *int      `json:"exit_code,omitempty"`
	Message     string    `json:"message,omitempty"`
	// OutputTail is the last lines of the run's output (at most 20 lines
	// and 4 KiB).
	OutputTail string    `json:"output_tail,omitempty"`
	URL        string    `json:"url,omitempty"`
	Time       time.Time `json:"time"`
	// Subject is set on alerts that are not about one job's run.
	Subject string `json:"subject,omitempty"`
}

// EventAppender records delivery attempts; the store satisfies it.
type EventAppender interface {
	EventAppend(ctx context.Context, events ...store.Event) error
}

// Config configures a Notifier.
type Config struct {
	// SMTP and From are the mail server (host:port) and sender for
	// mailto: targets; without them such targets fail.
	SMTP, From string
	// SMTPAuth, if set, authenticates to the mail server, over STARTTLS.
	SMTPAuth smtp.Auth
	// Default targets are used for jobs that name none.
	Default []string
	// PublicURL is the daemon's address as people reach it, for links.
	PublicURL string
	Events    EventAppender
	Clock     clock.Clock
	Logger    *slog.Logger
	// HTTP is the client for webhooks (default: 10 s timeout).
	HTTP *http.Client
	// Attempts and Backoff shape retries: Backoff, 2×Backoff … between
	// attempts (defaults 5 and 10 s).
	Attempts int
	Backoff  time.Duration
	// Queue bounds the notifications waiting (default 1000).
	Queue int
}

// Notifier delivers outcomes. Create it with New, call Run in a goroutine,
// and pass Report as job.Config.Report.
type Notifier struct {
	cfg     Config
	queue   chan delivery
	dropped atomic.Int64
	// defaults, once set by SetDefault, replace cfg.Default.
	defaults atomic.Pointer[[]string]
}

type delivery struct {
	target string
	ev     Event
}

// New returns a Notifier for cfg.
func New(cfg Config) *Notifier {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.HTTP == nil {
		cfg.HTTP = &http.Client{Timeout: 10 * time.Second}
	}
	if cfg.Attempts <= 0 {
		cfg.Attempts = 5
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = 10 * time.Second
	}
	if cfg.Queue <= 0 {
		cfg.Queue = 1000
	}
	return &Notifier{cfg: cfg, queue: make(chan delivery, cfg.Queue)}
}

// Dropped counts notifications dropped because the queue was full.
func (n *Notifier) Dropped() int64 { return n.dropped.Load() }

// Report queues o for each of its job's targets that wants its kind. It
// never blocks.
func (n *Notifier) Report(_ context.Context, o job.Outcome) {
	targets := o.Spec.Notify
	if len(targets) == 0 {
		targets = n.defaultTargets()
	}
	on := o.Spec.NotifyOn
	if len(on) == 0 {
		on = job.DefaultNotifyOn
	}
	// Overdue is asked for by setting alert_after, whatever notify_on says.
	if len(targets) == 0 || (!slices.Contains(on, o.Kind) && o.Kind != job.OutcomeOverdue) {
		return
	}
	ev := n.event(o)
	for _, t := range targets {
		select {
		case n.queue <- delivery{target: t, ev: ev}:
		default:
			d := n.dropped.Add(1)
			n.cfg.Logger.Error("notification queue full; dropped", "job", ev.Job, "event", ev.Event, "target", redact(t), "dropped", d)
		}
	}
}

// event builds the documented body for o.
func (n *Notifier) event(o job.Outcome) Event {
	ev := Event{Event: o.Kind, Job: o.Spec.Name, RunID: o.Run.ID, ScheduledAt: o.Run.ScheduledTime,
		State: string(o.Run.State), ExitCode: o.Run.ExitCode, Message: o.Message, Time: o.Time,
		OutputTail: tail(o.Run.Output, 20, 4<<10)}
	if n.cfg.PublicURL != "" {
		if o.Run.ID != 0 {
			ev.URL = fmt.Sprintf("%s/runs/%d", strings.TrimRight(n.cfg.PublicURL, "/"), o.Run.ID)
		} else {
			ev.URL = strings.TrimRight(n.cfg.PublicURL, "/") + "/jobs/" + o.Spec.Name
		}
	}
	return ev
}

// tail returns the last lines of out, at most maxLines and maxBytes.
func tail(out []byte, maxLines, maxBytes int) string {
	s := strings.TrimRight(string(out), "\n")
	if len(s) > maxBytes {
		s = s[len(s)-maxBytes:]
	}
	lines := strings.Split(s, "\n")
	if len(lines) > maxLines {
		lines = lines[len(lines)-maxLines:]
	}
	return strings.Join(lines, "\n")
}

// Run delivers queued notifications until ctx ends.
func (n *Notifier) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case d := <-n.queue:
			n.deliver(ctx, d)
		}
	}
}

// deliver tries one target up to Attempts times with exponential backoff,
// recording each attempt.
func (n *Notifier) deliver(ctx context.Context, d delivery) {
	wait := n.cfg.Backoff
	for attempt := 1; ; attempt++ {
		err := n.send(ctx, d)
		n.record(ctx, d, attempt, err)
		if err == nil || attempt >= n.cfg.Attempts {
			return
		}
		t := n.cfg.Clock.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C():
		}
		wait *= 2
	}
}

// record writes one attempt to the event log and the daemon's log.
func (n *Notifier) record(ctx context.Context, d delivery, attempt int, err error) {
	kind, msg := store.EventNotifySent, fmt.Sprintf("%s notification sent to %s (attempt %d)", d.ev.Event, redact(d.target), attempt)
	if err != nil {
		kind = store.EventNotifyFailed
		msg = fmt.Sprintf("%s notification to %s failed (attempt %d of %d): %v", d.ev.Event, redact(d.target), attempt, n.cfg.Attempts, err)
		n.cfg.Logger.Warn("notification failed", "job", d.ev.Job, "event", d.ev.Event, "target", redact(d.target), "attempt", attempt, "err", err)
	}
	if n.cfg.Events == nil {
		return
	}
	data, _ := json.Marshal(map[string]any{"target": redact(d.target), "attempt": attempt, "event": d.ev.Event})
	e := store.Event{Time: n.cfg.Clock.Now(), Kind: kind, Job: d.ev.Job, RunID: d.ev.RunID, Message: msg, Data: data}
	if err := n.cfg.Events.EventAppend(ctx, e); err != nil {
		n.cfg.Logger.Error("record notification", "err", err)
	}
}

// redact keeps a webhook URL's scheme and host only: its path often holds
// a secret (Slack's does).
func redact(target string) string { return redactpkg.Target(target) }

// send delivers one notification once.
func (n *Notifier) send(ctx context.Context, d delivery) error {
	switch {
	case strings.HasPrefix(d.target, "mailto:"):
		if n.cfg.SMTP == "" {
			return errors.New("no SMTP server configured (serve --smtp and --smtp-from)")
		}
		sm := &fleet.SMTPNotifier{Addr: n.cfg.SMTP, From: n.cfg.From, Auth: n.cfg.SMTPAuth}
		if sm.Auth != nil {
			host, _, _ := net.SplitHostPort(n.cfg.SMTP)
			sm.TLSConfig = &tls.Config{ServerName: host}
		}
		return sm.Notify(ctx, fleet.Notification{To: strings.TrimPrefix(d.target, "mailto:"),
			Subject: subject(d.ev), Body: text(d.ev), Time: d.ev.Time})
	case strings.HasPrefix(d.target, "slack+"):
		body, _ := json.Marshal(map[string]string{"text": subject(d.ev) + "\n" + text(d.ev)})
		return n.post(ctx, strings.TrimPrefix(d.target, "slack+"), body)
	default:
		body, err := json.Marshal(d.ev)
		if err != nil {
			return err
		}
		return n.post(ctx, d.target, body)
	}
}

// post sends body as JSON; any 2xx status is success.
func (n *Notifier) post(ctx context.Context, url string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "almanac")
	resp, err := n.cfg.HTTP.Do(req)
	if err != nil {
		return redactpkg.Err(err) // the client's error holds the whole URL
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("the webhook answered %s", resp.Status)
	}
	return nil
}

// Alert sends a message that is not about a job (a reboot slot held too
// long) to the daemon's default targets. It never blocks.
func (n *Notifier) Alert(_ context.Context, subject, body string) {
	ev := Event{Event: "alert", Subject: subject, Message: body, Time: n.cfg.Clock.Now()}
	for _, t := range n.defaultTargets() {
		select {
		case n.queue <- delivery{target: t, ev: ev}:
		default:
			n.dropped.Add(1)
			n.cfg.Logger.Error("notification queue full; dropped", "event", "alert", "target", redact(t))
		}
	}
}

// subject is the one-line summary of ev.
func subject(ev Event) string {
	if ev.Subject != "" {
		return ev.Subject
	}
	switch ev.Event {
	case job.OutcomeFailure:
		return fmt.Sprintf("[almanac] %s failed", ev.Job)
	case job.OutcomeRecovered:
		return fmt.Sprintf("[almanac] %s recovered", ev.Job)
	case job.OutcomeMissed:
		return fmt.Sprintf("[almanac] %s missed a run", ev.Job)
	case job.OutcomeOverdue:
		return fmt.Sprintf("[almanac] %s is overdue: no recent success", ev.Job)
	}
	return fmt.Sprintf("[almanac] %s succeeded", ev.Job)
}

// text is the plain-text body of an email or Slack message.
func text(ev Event) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Job %s: %s", ev.Job, ev.Event)
	if ev.RunID != 0 {
		fmt.Fprintf(&b, " (run %d", ev.RunID)
		if ev.ExitCode != nil {
			fmt.Fprintf(&b, ", exit %d", *ev.ExitCode)
		}
		b.WriteString(")")
	}
	fmt.Fprintf(&b, "\nScheduled for %s\n", ev.ScheduledAt.UTC().Format(time.RFC3339))
	if ev.Message != "" {
		fmt.Fprintf(&b, "%s\n", ev.Message)
	}
	if ev.OutputTail != "" {
		fmt.Fprintf(&b, "\nLast lines of output:\n%s\n", ev.OutputTail)
	}
	if ev.URL != "" {
		fmt.Fprintf(&b, "\n%s\n", ev.URL)
	}
	return b.String()
}

// SetDefault replaces the targets of jobs that name none (serve's
// --notify-default, reloaded on SIGHUP); the caller has checked them.
func (n *Notifier) SetDefault(targets []string) {
	t := slices.Clone(targets)
	n.defaults.Store(&t)
}

// defaultTargets are the targets of jobs that name none: Config.Default
// until SetDefault replaces them.
func (n *Notifier) defaultTargets() []string {
	if t := n.defaults.Load(); t != nil {
		return *t
	}
	return n.cfg.Default
}
