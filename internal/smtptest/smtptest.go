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

// Start listens on a free loopback port until the test ends and returns
// the address and the messages received: the MAIL FROM and RCPT TO lines,
// then the data.
func Start(t testing.TB) (addr string, messages <-chan string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	got := make(chan string, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serve(c, got)
		}
	}()
	return ln.Addr().String(), got
}

// serve speaks SMTP on one connection.
func serve(c net.Conn, got chan<- string) {
	defer c.Close()
	r := bufio.NewReader(c)
	say := func(s string) { io.WriteString(c, s+"\r\n") }
	say("220 smtptest ESMTP")
	var msg strings.Builder
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		cmd := strings.ToUpper(strings.TrimSpace(line))
		switch {
		case strings.HasPrefix(cmd, "EHLO"), strings.HasPrefix(cmd, "HELO"):
			say("250 smtptest")
		case strings.HasPrefix(cmd, "MAIL FROM"):
			msg.Reset()
			msg.WriteString(strings.TrimSpace(line) + "\n")
			say("250 ok")
		case strings.HasPrefix(cmd, "RCPT TO"):
			msg.WriteString(strings.TrimSpace(line) + "\n")
			say("250 ok")
		case cmd == "DATA":
			say("354 end with <CRLF>.<CRLF>")
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" {
					break
				}
				msg.WriteString(l)
			}
			say("250 queued")
			select {
			case got <- msg.String():
			default:
			}
		case cmd == "RSET", cmd == "NOOP":
			say("250 ok")
		case cmd == "QUIT":
			say("221 bye")
			return
		default:
			say("502 not implemented")
		}
	}
}
