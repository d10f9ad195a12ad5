package puppetsched

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"testing"
	"time"
)

// oracleCase is one line of testdata/oracle/cases.jsonl: random attributes,
// zone and instants (testdata/oracle/gen.go) with the answer of Puppet 7.23's
// own schedule type (testdata/oracle/oracle.rb).
type oracleCase struct {
	Attrs   map[string]any `json:"attrs"`
	TZ      string         `json:"tz"`
	Prev    int64          `json:"prev"`
	NowSec  int64          `json:"now_sec"`
	NowNsec int64          `json:"now_nsec"`
	Puppet  string         `json:"puppet"`
}

// jsonValue turns decoded JSON into the values a manifest compiler hands
// over: json.Number becomes int64 (or float64), recursively.
func jsonValue(v any) any {
	switch x := v.(type) {
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n
		}
		f, _ := x.Float64()
		return f
	case []any:
		for i := range x {
			x[i] = jsonValue(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = jsonValue(x[k])
		}
	}
	return v
}

// TestPuppetOracle replays cases answered by a real Puppet and requires the
// same answer: the same validation message, the same match, or the same
// error raised while matching.
func TestPuppetOracle(t *testing.T) {
	data, err := os.ReadFile("testdata/oracle/cases.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		n++
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.UseNumber()
		var c oracleCase
		if err := dec.Decode(&c); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		attrs := jsonValue(c.Attrs).(map[string]any)
		got := func() string {
			p, err := FromAttrs(attrs)
			if err != nil {
				return "new: " + err.Error()
			}
			s, err := New("s", p, WithDefaultLocation(zone(t, c.TZ)))
			if err != nil {
				return "new: " + err.Error()
			}
			var prev time.Time
			if c.Prev != 0 {
				prev = time.Unix(c.Prev, 0)
			}
			ok, err := s.Eval(prev, time.Unix(c.NowSec, c.NowNsec))
			var me *MatchError
			if errors.As(err, &me) {
				return "match: " + me.Msg
			}
			if ok {
				return "true"
			}
			return "false"
		}()
		if got != c.Puppet {
			t.Errorf("line %d: %s tz=%s prev=%d now=%v:\n got %s\nwant %s", n, sc.Text()[:min(len(sc.Text()), 200)], c.TZ, c.Prev,
				time.Unix(c.NowSec, c.NowNsec).In(zone(t, c.TZ)), got, c.Puppet)
		}
	}
	if n < 1000 {
		t.Fatalf("only %d oracle cases", n)
	}
}
