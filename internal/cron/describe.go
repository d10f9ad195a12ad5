package cron

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"time"
)

var ordinals = [...]string{"first", "second", "third", "fourth", "fifth"}

// Describe returns the schedule in plain English, for example
// "at 02:00 every day" or "every 5 minutes on Monday through Friday".
func (s *Spec) Describe() string {
	var b strings.Builder
	if s.every > 0 {
		b.WriteString("every " + (time.Duration(s.every) * time.Second).String())
	} else {
		tod, wildcard := s.describeTime()
		days := s.describeDays()
		months := s.describeMonths()
		b.WriteString(tod)
		switch {
		case days == "" && months == "" && !wildcard:
			b.WriteString(" every day")
		case days == "" && months != "":
			b.WriteString(" every day " + months)
		case days != "":
			b.WriteString(" " + days)
			if months != "" {
				b.WriteString(" " + months)
			}
		}
	}
	if s.loc != time.UTC && s.every == 0 {
		b.WriteString(" (" + s.loc.String() + ")")
	}
	return b.String()
}

// describeTime describes the second, minute and hour fields; wildcard says
// the phrase already reads as recurring within a day.
func (s *Spec) describeTime() (string, bool) {
	nh, nm, ns := bits.OnesCount32(s.hours), bits.OnesCount64(s.mins), bits.OnesCount64(s.secs)
	if nm == 1 && ns == 1 && nh <= 4 {
		var times []string
		for h := s.hours; h != 0; h &= h - 1 {
			t := fmt.Sprintf("%02d:%02d", bits.TrailingZeros32(h), s.firstMin)
			if s.firstSec != 0 {
				t += fmt.Sprintf(":%02d", s.firstSec)
			}
			times = append(times, t)
		}
		return "at " + joinAnd(times), false
	}
	var parts []string
	unitPhrase := func(set uint64, max int, unit string) string {
		n := bits.OnesCount64(set)
		if n == max {
			return "every " + unit
		}
		if k := stepOf(set, max); k > 1 {
			return fmt.Sprintf("every %d %ss", k, unit)
		}
		if n == 1 {
			return fmt.Sprintf("at %s %d", unit, bits.TrailingZeros64(set))
		}
		return fmt.Sprintf("at %ss %s", unit, listBits(set, 0, max-1, nil))
	}
	if s.hasSec && !(ns == 1 && s.firstSec == 0) {
		parts = append(parts, unitPhrase(s.secs, 60, "second"))
		if nm != 60 {
			parts = append(parts, "of "+strings.TrimPrefix(unitPhrase(s.mins, 60, "minute"), "at "))
		}
	} else {
		parts = append(parts, unitPhrase(s.mins, 60, "minute"))
	}
	if nh != 24 {
		if k := stepOf(uint64(s.hours), 24); k > 1 {
			parts = append(parts, fmt.Sprintf("every %d hours", k))
		} else if nh == 1 {
			parts = append(parts, fmt.Sprintf("during hour %02d", s.firstTOD/3600))
		} else {
			parts = append(parts, "during hours "+listBits(uint64(s.hours), 0, 23, func(v int) string { return fmt.Sprintf("%02d", v) }))
		}
	}
	return strings.Join(parts, " "), true
}

// stepOf returns k if set is exactly {0, k, 2k, ...} below max (k > 1).
func stepOf(set uint64, max int) int {
	if set&1 == 0 || bits.OnesCount64(set) < 2 {
		return 0
	}
	k := bits.TrailingZeros64(set &^ 1)
	var want uint64
	for v := 0; v < max; v += k {
		want |= 1 << v
	}
	if want == set {
		return k
	}
	return 0
}

// listBits renders the set bits in [lo, hi] as "1, 3 and 5-9".
func listBits(set uint64, lo, hi int, name func(int) string) string {
	if name == nil {
		name = strconv.Itoa
	}
	var items []string
	for v := lo; v <= hi; v++ {
		if set&(1<<v) == 0 {
			continue
		}
		e := v
		for e+1 <= hi && set&(1<<(e+1)) != 0 {
			e++
		}
		switch {
		case e-v >= 2:
			items = append(items, name(v)+"-"+name(e))
		case e == v+1:
			items = append(items, name(v), name(e))
		default:
			items = append(items, name(v))
		}
		v = e
	}
	return joinAnd(items)
}

func weekdayName(v int) string { return time.Weekday(v % 7).String() }

func (s *Spec) describeDays() string {
	var dom, dow []string
	if !s.domStar {
		if s.dom != 0 {
			if bits.OnesCount32(s.dom) == 1 {
				dom = append(dom, "day "+listBits(uint64(s.dom), 1, 31, nil)+" of the month")
			} else {
				dom = append(dom, "days "+listBits(uint64(s.dom), 1, 31, nil)+" of the month")
			}
		}
		if s.lastDay {
			dom = append(dom, "the last day of the month")
		}
		if s.lastWeekday {
			dom = append(dom, "the last weekday of the month")
		}
		for w := s.nearestWeekday; w != 0; w &= w - 1 {
			dom = append(dom, fmt.Sprintf("the weekday nearest day %d", bits.TrailingZeros32(w)))
		}
	}
	if !s.dowStar {
		if s.dow != 0 {
			n := bits.OnesCount8(s.dow)
			lo, hi := bits.TrailingZeros8(s.dow), bits.Len8(s.dow)-1
			if n >= 3 && hi-lo+1 == n {
				dow = append(dow, weekdayName(lo)+" through "+weekdayName(hi))
			} else {
				var names []string
				for v := 1; v <= 7; v++ { // Monday first
					if s.dow&(1<<(v%7)) != 0 {
						names = append(names, weekdayName(v))
					}
				}
				dow = append(dow, joinAnd(names))
			}
		}
		for w := s.lastDow; w != 0; w &= w - 1 {
			dow = append(dow, "the last "+weekdayName(bits.TrailingZeros8(w))+" of the month")
		}
		for x := s.nth; x != 0; x &= x - 1 {
			b := bits.TrailingZeros64(x)
			dow = append(dow, "the "+ordinals[b%5]+" "+weekdayName(b/5)+" of the month")
		}
	}
	switch {
	case len(dom) == 0 && len(dow) == 0:
		return ""
	case len(dow) == 0:
		return "on " + joinAnd(dom)
	case len(dom) == 0:
		return "on " + joinAnd(dow)
	case s.and:
		return "on " + joinAnd(dom) + " if it is a " + strings.Join(dow, " or ")
	}
	return "on " + joinAnd(dom) + " and on " + joinAnd(dow)
}

func (s *Spec) describeMonths() string {
	if s.month == 0x1ffe {
		return ""
	}
	n := bits.OnesCount16(s.month)
	lo, hi := bits.TrailingZeros16(s.month), bits.Len16(s.month)-1
	if n >= 3 && hi-lo+1 == n {
		return "in " + time.Month(lo).String() + " through " + time.Month(hi).String()
	}
	var names []string
	for m := lo; m <= hi; m++ {
		if s.month&(1<<m) != 0 {
			names = append(names, time.Month(m).String())
		}
	}
	return "in " + joinAnd(names)
}
