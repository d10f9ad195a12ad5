package agent

import (
	"bytes"
	"reflect"
	"testing"
	"time"
)

func TestReportCodec(t *testing.T) {
	at := time.Date(2026, 3, 1, 2, 0, 0, 0, time.UTC)
	r := &Report{ID: 7, Host: "web-1", Start: at, End: at.Add(time.Second), Status: "changed", ExitCode: 2,
		Resources: []ResourceStatus{{Ref: "Exec[a]", Status: "changed"}},
		Events:    []Event{{Time: at, Level: "Notice", Source: "Exec[a]", Message: "executed successfully"}},
		Gated:     []GatedResource{{Ref: "Exec[a]", Schedule: "nightly"}}}
	head, body, err := EncodeReport(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		got  func() (*Report, error)
		want Report
	}{
		{"whole", func() (*Report, error) { return DecodeReport(42, head, body) },
			Report{ID: 42, Host: "web-1", Start: at, End: at.Add(time.Second), Status: "changed", ExitCode: 2,
				Resources: r.Resources, Events: r.Events}},
		{"head only", func() (*Report, error) { return DecodeReportHead(42, head) },
			Report{ID: 42, Host: "web-1", Start: at, End: at.Add(time.Second), Status: "changed", ExitCode: 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.got()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*got, tc.want) {
				t.Errorf("decoded %+v, want %+v", *got, tc.want)
			}
		})
	}
	if bytes.Contains(head, []byte("Exec[a]")) {
		t.Errorf("head carries the body's resources: %s", head)
	}
	if _, err := DecodeReport(1, head, []byte("{")); err == nil {
		t.Error("a broken body decoded without an error")
	}
}
