package fleet

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/smtptest"
)

var testNote = Notification{
	Kind: NotifyActionFailed, To: "ops@example.com", Resource: "i-1", Name: "web-1",
	Subject: "almanac: stop of web-1\r\nBcc: evil@example.com failed", Body: "line one\nline two",
	Time: time.Date(2024, 6, 3, 18, 15, 0, 0, time.UTC),
}

func TestSMTPNotifier(t *testing.T) {
	addr, got := smtptest.Start(t)
	n := &SMTPNotifier{Addr: addr, From: "almanac@example.com"}
	if err := n.Notify(context.Background(), testNote); err != nil {
		t.Fatal(err)
	}
	m := <-got
	if m.From != "almanac@example.com" || m.To != "ops@example.com" {
		t.Errorf("envelope from %q to %q", m.From, m.To)
	}
	for _, want := range []string{
		"From: almanac@example.com\r\n", "To: ops@example.com\r\n",
		"Subject: almanac: stop of web-1  Bcc: evil@example.com failed\r\n",
		"Date: Mon, 03 Jun 2024 18:15:00 +0000\r\n", "\r\n\r\nline one\r\nline two\r\n",
	} {
		if !strings.Contains(m.Data, want) {
			t.Errorf("message lacks %q:\n%s", want, m.Data)
		}
	}
	if strings.Contains(m.Data, "\nBcc:") {
		t.Error("header injection through the subject")
	}
}

func TestSMTPNotifierErrors(t *testing.T) {
	addr, _ := smtptest.StartRejecting(t)
	n := &SMTPNotifier{Addr: addr, From: "almanac@example.com"}
	if err := n.Notify(context.Background(), testNote); err == nil || !strings.Contains(err.Error(), "RCPT TO ops@example.com: 550") {
		t.Errorf("err = %v", err)
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := ln.Addr().String()
	ln.Close()
	if err := (&SMTPNotifier{Addr: dead, From: "a@b.c"}).Notify(context.Background(), testNote); err == nil || !strings.HasPrefix(err.Error(), "smtp: ") {
		t.Errorf("err = %v", err)
	}
}

func TestWebhookNotifier(t *testing.T) {
	var got Notification
	var auth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = r.Header.Get("Authorization")
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		if err := json.NewDecoder(r.Body).Decode(&got); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
		}
	}))
	defer srv.Close()
	n := &WebhookNotifier{URL: srv.URL, Client: srv.Client(), Header: http.Header{"Authorization": {"Bearer t"}}}
	if err := n.Notify(context.Background(), testNote); err != nil {
		t.Fatal(err)
	}
	if got.To != "ops@example.com" || got.Kind != NotifyActionFailed || got.Resource != "i-1" || !got.Time.Equal(testNote.Time) || auth != "Bearer t" {
		t.Errorf("received %+v (auth %q)", got, auth)
	}

	fail := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down", http.StatusServiceUnavailable)
	}))
	defer fail.Close()
	err := (&WebhookNotifier{URL: fail.URL}).Notify(context.Background(), testNote)
	if err == nil || !strings.Contains(err.Error(), "503 Service Unavailable") {
		t.Errorf("err = %v", err)
	}
}

// The scheduler's failure notification reaches a real SMTP conversation.
func TestSchedulerNotifiesBySMTP(t *testing.T) {
	addr, got := smtptest.Start(t)
	tags := map[string]string{"almanac-schedule-stop": "mon1800", "almanac-schedule-timezone": "utc", "almanac-schedule-notify": "ops@example.com"}
	h := newHarness(t, "2024-06-03T17:00:00Z", "UTC", vm("vm-1", Running, tags))
	h.s.cfg.Notifier = &SMTPNotifier{Addr: addr, From: "almanac@example.com"}
	h.src.fail["vm-1"] = 100
	h.runUntil(h.at("2024-06-03T19:00:00Z"))
	m := <-got
	if m.To != "ops@example.com" || !strings.Contains(m.Data, "Subject: almanac: stop of vm-1 failed") || !strings.Contains(m.Data, "api timeout") {
		t.Errorf("message to %q:\n%s", m.To, m.Data)
	}
	if sent := h.kinds("vm-1", EventNotificationSent); len(sent) != 1 {
		t.Errorf("notification-sent events: %q", sent)
	}
}
