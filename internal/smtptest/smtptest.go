// Package smtptest runs a minimal SMTP server on loopback for tests: it
// speaks enough of RFC 5321 (HELO/EHLO, MAIL, RCPT, DATA, QUIT) for a real
// client such as net/smtp to deliver messages, and hands each message over
// a channel with its envelope.
package smtptest

import (
	"bufio"
	"io"
	"net"
	"strings"
	"testing"
)

// Message is what the server received in one transaction.
type Message struct {
	From, To string // the envelope's addresses, without brackets
	Data     string // the message, headers and body, CRLF line ends
}

// Start listens on a free loopback port until the test ends and returns
// the address and the messages received.
func Start(t testing.TB) (addr string, messages <-chan Message) {
	return start(t, false)
}

// StartRejecting is Start with a server that refuses every recipient
// (550), to test delivery failures.
func StartRejecting(t testing.TB) (addr string, messages <-chan Message) {
	return start(t, true)
}

func start(t testing.TB, reject bool) (string, <-chan Message) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	got := make(chan Message, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serve(c, reject, got)
		}
	}()
	return ln.Addr().String(), got
}

// serve speaks SMTP on one connection.
func serve(c net.Conn, reject bool, got chan<- Message) {
	defer c.Close()
	r := bufio.NewReader(c)
	say := func(s string) { io.WriteString(c, s+"\r\n") }
	say("220 smtptest ESMTP")
	var m Message
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		cmd := strings.TrimRight(line, "\r\n")
		upper := strings.ToUpper(cmd)
		switch {
		case strings.HasPrefix(upper, "EHLO"), strings.HasPrefix(upper, "HELO"):
			say("250-smtptest")
			say("250 8BITMIME")
		case strings.HasPrefix(upper, "MAIL FROM:"):
			m = Message{}
			m.From, _, _ = strings.Cut(strings.TrimLeft(cmd[len("MAIL FROM:"):], "< "), ">")
			say("250 ok")
		case strings.HasPrefix(upper, "RCPT TO:"):
			if reject {
				say("550 no such user")
				continue
			}
			m.To = strings.Trim(cmd[len("RCPT TO:"):], "<> ")
			say("250 ok")
		case upper == "DATA":
			say("354 end with <CRLF>.<CRLF>")
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
			m.Data = b.String()
			say("250 queued")
			select {
			case got <- m:
			default:
			}
		case upper == "QUIT":
			say("221 bye")
			return
		default:
			say("250 ok")
		}
	}
}
