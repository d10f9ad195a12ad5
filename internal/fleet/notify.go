package fleet

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/smtp"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/redact"
)

// NotificationKind says why a notification was sent.
type NotificationKind string

// The notification kinds.
const (
	// NotifyActionFailed: an action still failed after its retries.
	NotifyActionFailed NotificationKind = "action-failed"
	// NotifyScheduleChanged: the resource's schedule tags changed.
	NotifyScheduleChanged NotificationKind = "schedule-changed"
)

// Notification is a message for a resource's notify address.
type Notification struct {
	Kind     NotificationKind `json:"kind"`
	To       string           `json:"to"`
	Resource string           `json:"resource"`
	Name     string           `json:"name"`
	Subject  string           `json:"subject"`
	Body     string           `json:"body"`
	Time     time.Time        `json:"time"`
}

// Notifier delivers notifications.
type Notifier interface {
	Notify(ctx context.Context, n Notification) error
}

// SMTPNotifier sends each notification as a plain-text email.
type SMTPNotifier struct {
	Addr      string    // host:port of the SMTP server
	From      string    // envelope and header sender
	Auth      smtp.Auth // optional
	TLSConfig *tls.Config
	// LocalName is the name given in HELO/EHLO (default "localhost").
	LocalName string
}

// Notify delivers n by SMTP. It uses STARTTLS when the server offers it and
// TLSConfig is set.
func (s *SMTPNotifier) Notify(ctx context.Context, n Notification) error {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", s.Addr)
	if err != nil {
		return fmt.Errorf("smtp: %w", err)
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	host, _, _ := net.SplitHostPort(s.Addr)
	c, err := smtp.NewClient(conn, host)
	if err != nil {
		conn.Close()
		return fmt.Errorf("smtp: %w", err)
	}
	defer c.Close()
	name := s.LocalName
	if name == "" {
		name = "localhost"
	}
	if err := c.Hello(name); err != nil {
		return fmt.Errorf("smtp: %w", err)
	}
	if ok, _ := c.Extension("STARTTLS"); ok && s.TLSConfig != nil {
		if err := c.StartTLS(s.TLSConfig); err != nil {
			return fmt.Errorf("smtp: %w", err)
		}
	}
	if s.Auth != nil {
		if err := c.Auth(s.Auth); err != nil {
			return fmt.Errorf("smtp: %w", err)
		}
	}
	if err := c.Mail(s.From); err != nil {
		return fmt.Errorf("smtp: MAIL FROM: %w", err)
	}
	if err := c.Rcpt(n.To); err != nil {
		return fmt.Errorf("smtp: RCPT TO %s: %w", n.To, err)
	}
	w, err := c.Data()
	if err != nil {
		return fmt.Errorf("smtp: DATA: %w", err)
	}
	if _, err := w.Write(formatMail(s.From, n)); err != nil {
		return fmt.Errorf("smtp: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("smtp: %w", err)
	}
	return c.Quit()
}

// formatMail renders n as an RFC 5322 message with CRLF line ends. Header
// values are stripped of line breaks so tag values cannot inject headers.
func formatMail(from string, n Notification) []byte {
	hdr := func(s string) string { return strings.NewReplacer("\r", " ", "\n", " ").Replace(s) }
	var b bytes.Buffer
	fmt.Fprintf(&b, "From: %s\r\n", hdr(from))
	fmt.Fprintf(&b, "To: %s\r\n", hdr(n.To))
	fmt.Fprintf(&b, "Subject: %s\r\n", hdr(n.Subject))
	fmt.Fprintf(&b, "Date: %s\r\n", n.Time.Format(time.RFC1123Z))
	b.WriteString("MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n")
	for _, line := range strings.Split(strings.ReplaceAll(n.Body, "\r\n", "\n"), "\n") {
		b.WriteString(line)
		b.WriteString("\r\n")
	}
	return b.Bytes()
}

// WebhookNotifier POSTs each notification as JSON (the Notification fields)
// to URL. Any 2xx status is success.
type WebhookNotifier struct {
	URL    string
	Client *http.Client // default http.DefaultClient
	// Header is added to each request (for example an Authorization token).
	Header http.Header
}

// Notify posts n.
func (w *WebhookNotifier) Notify(ctx context.Context, n Notification) error {
	body, err := json.Marshal(n)
	if err != nil {
		return fmt.Errorf("webhook: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("webhook: %w", err)
	}
	for k, vs := range w.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	req.Header.Set("Content-Type", "application/json")
	client := w.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("webhook: %w", redact.Err(err)) // the client's error holds the whole URL
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("webhook: %s answered %s", redact.Webhook(w.URL), resp.Status)
	}
	return nil
}
