package kubespec

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"time"
)

// Labels and annotations almanac puts on the Jobs it creates (and on their
// Pods, through the Pod template).
const (
	// LabelJob is the almanac job (LabelValue of its name).
	LabelJob = "almanac.sh/job"
	// LabelRunID is the almanac run id.
	LabelRunID = "almanac.sh/run-id"
	// LabelInstant is the scheduled instant, in Unix seconds.
	LabelInstant = "almanac.sh/instant"
	// LabelAttempt is the run's attempt (1 for the first).
	LabelAttempt = "almanac.sh/attempt"
	// AnnotationJob is the almanac job's full name.
	AnnotationJob = "almanac.sh/job"
	// AnnotationScheduled is the scheduled instant, RFC 3339.
	AnnotationScheduled = "almanac.sh/scheduled-time"
)

// maxPrefix bounds the part of a Job's name taken from the almanac job,
// so the whole name (prefix, hash, attempt) stays within the 63 characters
// a Job's name may have (its Pods carry it in a label).
const maxPrefix = 40

// JobName is the name of the Kubernetes Job of an almanac job's run for
// an instant and attempt: the job's name made a DNS label (lower case,
// '.' and '_' as '-', at most 40 characters), a hash of the job's name and
// the instant, and the attempt after the first. The same run always gets
// the same name, which makes creating its Job idempotent.
func JobName(job string, instant time.Time, attempt int) string {
	h := fnv.New32a()
	fmt.Fprintf(h, "%s\x00%d", job, instant.UnixNano())
	name := sanitize(job, maxPrefix) + "-" + fmt.Sprintf("%08x", h.Sum32())
	if attempt > 1 {
		name += "-" + strconv.Itoa(attempt)
	}
	return name
}

// LabelValue is job as a label value: the name itself when it is one (at
// most 63 characters, ending in a letter or digit), else a shortened form
// with a hash of the whole name.
func LabelValue(job string) string {
	if len(job) <= 63 && job != "" && isAlnum(job[len(job)-1]) {
		return job
	}
	h := fnv.New32a()
	h.Write([]byte(job))
	return strings.TrimRight(job[:min(len(job), 54)], "._-") + "-" + fmt.Sprintf("%08x", h.Sum32())
}

// sanitize makes s a DNS-1123 label prefix of at most n characters.
func sanitize(s string, n int) string {
	b := make([]byte, 0, n)
	for i := 0; i < len(s) && len(b) < n; i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		case isAlnum(c):
		default:
			c = '-'
		}
		b = append(b, c)
	}
	out := strings.Trim(string(b), "-")
	if out == "" {
		return "job"
	}
	return out
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
