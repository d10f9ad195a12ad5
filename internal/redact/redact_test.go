package redact

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

func TestURL(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:secret@db:5432/x?sslmode=disable": "postgres://u:xxxxx@db:5432/x?sslmode=disable",
		"postgres://u@db/x":                             "postgres://u@db/x",
		"postgres://db/x?a=b@c":                         "postgres://db/x?a=b@c",
		"postgres://u:p@ss@db/x":                        "postgres://u:xxxxx@db/x",
		"not a url":                                     "not a url",
	} {
		if got := URL(in); got != want {
			t.Errorf("URL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTarget(t *testing.T) {
	for in, want := range map[string]string{
		"mailto:ops@example.com":                                "mailto:ops@example.com",
		"https://hooks.slack.com/services/T000/B000/XXXX":       "https://hooks.slack.com/…",
		"slack+https://hooks.slack.com/services/T000/B000/XXXX": "slack+https://hooks.slack.com/…",
		"https://example.com:8443/hook?token=abc":               "https://example.com:8443/…",
		"https://example.com?token=abc":                         "https://example.com/…",
		"https://user:pw@example.com/hook":                      "https://example.com/…",
		"https://user:pw@example.com":                           "https://example.com/…",
		"https://example.com/":                                  "https://example.com/",
		"http://example.com":                                    "http://example.com",
		"garbage":                                               "…",
	} {
		if got := Target(in); got != want {
			t.Errorf("Target(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestErr(t *testing.T) {
	err := &url.Error{Op: "Post", URL: "https://hooks.slack.com/services/T/B/SECRET", Err: errors.New("dial tcp: refused")}
	got := Err(err).Error()
	if strings.Contains(got, "SECRET") || !strings.Contains(got, "hooks.slack.com") || !strings.Contains(got, "refused") {
		t.Fatalf("Err = %q", got)
	}
	if plain := errors.New("x"); Err(plain) != plain {
		t.Fatal("Err changed an error without a URL")
	}
}
