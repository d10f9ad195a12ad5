package fleet

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// smtpMessage is what the test SMTP server received in one transaction.
type smtpMessage struct {
	from, to string
	data     string
}

// startSMTP runs a minimal SMTP server on a loopback port; it accepts every
// message (or rejects RCPT when reject is set) and delivers it on the channel.
func startSMTP(t *testing.T, reject bool) (string, <-chan smtpMessage) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	got := make(chan smtpMessage, 4)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go serveSMTP(conn, reject, got)
		}
	}()
	return ln.Addr().String(), got
}

func serveSMTP(conn net.Conn, reject bool, got chan<- smtpMessage) {
	defer conn.Close()
	r := bufio.NewReader(conn)
	say := func(s string) { io.WriteString(conn, s+"\r\n") }
	say("220 test ESMTP")
	var m smtpMessage
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		cmd := strings.TrimRight(line, "\r\n")
		upper := strings.ToUpper(cmd)
		switch {
		case strings.HasPrefix(upper, "EHLO"), strings.HasPrefix(upper, "HELO"):
			say("250-test")
			say("250 8BITMIME")
		case strings.HasPrefix(upper, "MAIL FROM:"):
			m.from, _, _ = strings.Cut(strings.TrimLeft(cmd[len("MAIL FROM:"):], "< "), ">")
			say("250 ok")
		case strings.HasPrefix(upper, "RCPT TO:"):
			if reject {
				say("550 no such user")
				continue
			}
			m.to = strings.Trim(cmd[len("RCPT TO:"):], "<> ")
			say("250 ok")
		case upper == "DATA":
			say("354 go ahead")
			var b strings.Builder
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" {
					break
				}
				b.WriteString(l)
			}
			m.data = b.String()
			say("250 queued")
			got <- m
		case upper == "QUIT":
			say("221 bye")
			return
		default:
			say("250 ok")
		}
	}
}

var testNote = Notification{
	Kind: NotifyActionFailed, To: "ops@example.com", Resource: "i-1", Name: "web-1",
	Subject: "almanac: stop of web-1\r\nBcc: evil@example.com failed", Body: "line one\nline two",
	Time: time.Date(2024, 6, 3, 18, 15, 0, 0, time.UTC),
}

func TestSMTPNotifier(t *testing.T) {
	addr, got := startSMTP(t, false)
	n := &SMTPNotifier{Addr: addr, From: "almanac@example.com"}
	if err := n.Notify(context.Background(), testNote); err != nil {
		t.Fatal(err)
	}
	m := <-got
	if m.from != "almanac@example.com" || m.to != "ops@example.com" {
		t.Errorf("envelope from %q to %q", m.from, m.to)
	}
	for _, want := range []string{
		"From: almanac@example.com\r\n", "To: ops@example.com\r\n",
		"Subject: almanac: stop of web-1  Bcc: evil@example.com failed\r\n",
		"Date: Mon, 03 Jun 2024 18:15:00 +0000\r\n", "\r\n\r\nline one\r\nline two\r\n",
	} {
		if !strings.Contains(m.data, want) {
			t.Errorf("message lacks %q:\n%s", want, m.data)
		}
	}
	if strings.Contains(m.data, "\nBcc:") {
		t.Error("header injection through the subject")
	}
}

func TestSMTPNotifierErrors(t *testing.T) {
	addr, _ := startSMTP(t, true)
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
	addr, got := startSMTP(t, false)
	tags := map[string]string{"almanac-schedule-stop": "mon1800", "almanac-schedule-timezone": "utc", "almanac-schedule-notify": "ops@example.com"}
	h := newHarness(t, "2024-06-03T17:00:00Z", "UTC", vm("vm-1", Running, tags))
	h.s.cfg.Notifier = &SMTPNotifier{Addr: addr, From: "almanac@example.com"}
	h.src.fail["vm-1"] = 100
	h.runUntil(h.at("2024-06-03T19:00:00Z"))
	m := <-got
	if m.to != "ops@example.com" || !strings.Contains(m.data, "Subject: almanac: stop of vm-1 failed") || !strings.Contains(m.data, "api timeout") {
		t.Errorf("message to %q:\n%s", m.to, m.data)
	}
	if sent := h.kinds("vm-1", EventNotificationSent); len(sent) != 1 {
		t.Errorf("notification-sent events: %q", sent)
	}
}
