package kubespec

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
)

func TestJobName(t *testing.T) {
	at := time.Date(2026, 3, 1, 2, 0, 0, 0, time.UTC)
	tests := []struct {
		job     string
		attempt int
		prefix  string
	}{
		{"backup", 1, "backup-"},
		{"Nightly_DB.dump", 1, "nightly-db-dump-"},
		{"backup", 3, "backup-"},
		{strings.Repeat("a", 128), 12, strings.Repeat("a", 40) + "-"},
		{"---x", 1, "x-"},
		{"_", 1, "job-"},
	}
	for _, tt := range tests {
		t.Run(tt.job, func(t *testing.T) {
			name := JobName(tt.job, at, tt.attempt)
			if !strings.HasPrefix(name, tt.prefix) {
				t.Errorf("JobName = %q, want prefix %q", name, tt.prefix)
			}
			if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
				t.Errorf("JobName %q is not a DNS label: %v", name, errs)
			}
			if name != JobName(tt.job, at, tt.attempt) {
				t.Error("JobName is not deterministic")
			}
			if tt.attempt > 1 && !strings.HasSuffix(name, "-"+strconv.Itoa(tt.attempt)) {
				t.Errorf("JobName %q does not end with the attempt", name)
			}
		})
	}
	a := JobName("backup", at, 1)
	for _, other := range []string{JobName("backup", at.Add(time.Minute), 1), JobName("backup", at, 2), JobName("Backup", at, 1)} {
		if other == a {
			t.Errorf("two runs share the Job name %q", a)
		}
	}
}

func TestLabelValue(t *testing.T) {
	for _, job := range []string{"backup", "a.b_c-d", strings.Repeat("x", 63), strings.Repeat("x", 64), strings.Repeat("y", 120) + "_", "ends-"} {
		v := LabelValue(job)
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			t.Errorf("LabelValue(%q) = %q: %v", job, v, errs)
		}
		if len(job) <= 63 && job[len(job)-1] != '-' && v != job {
			t.Errorf("LabelValue(%q) = %q, want the name itself", job, v)
		}
	}
	if LabelValue(strings.Repeat("x", 64)) == LabelValue(strings.Repeat("x", 65)) {
		t.Error("two long names share a label value")
	}
}
