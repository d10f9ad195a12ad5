package cron

import "math/bits"

// Civil arithmetic on proleptic Gregorian dates, in days since 1970-01-01
// and seconds since 1970-01-01 00:00:00 of a wall clock ("walls"). These are
// integer operations; the zone database is consulted only in spec.go.

const secondsPerDay = 86400

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// daysFromCivil returns the day number of y-m-d (Howard Hinnant's
// algorithm). Years from 1 on take an unsigned path whose divisions by
// constants compile to multiplications.
func daysFromCivil(y int64, m, d int) int64 {
	if m <= 2 {
		y--
	}
	mp := uint64((m + 9) % 12)
	doy := (153*mp+2)/5 + uint64(d) - 1
	if y >= 0 {
		uy := uint64(y)
		era := uy / 400
		yoe := uy - era*400
		doe := yoe*365 + yoe/4 - yoe/100 + doy
		return int64(era*146097+doe) - 719468
	}
	era := floorDiv(y, 400)
	yoe := uint64(y - era*400)
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + int64(doe) - 719468
}

// civilFromDays is the inverse of daysFromCivil.
func civilFromDays(z int64) (y int64, m, d int) {
	z += 719468
	var era int64
	var doe uint64
	if z >= 0 {
		e := uint64(z) / 146097
		era, doe = int64(e), uint64(z)-e*146097
	} else {
		era = floorDiv(z, 146097)
		doe = uint64(z - era*146097)
	}
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = int64(yoe) + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = int(doy - (153*mp+2)/5 + 1)
	if mp < 10 {
		m = int(mp + 3)
	} else {
		m = int(mp - 9)
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

// splitWall splits a wall time into its day number and second of the day.
func splitWall(w int64) (int64, int) {
	if w >= 0 {
		day := uint64(w) / secondsPerDay
		return int64(day), int(uint64(w) - day*secondsPerDay)
	}
	day := floorDiv(w, secondsPerDay)
	return day, int(w - day*secondsPerDay)
}

func isLeap(y int64) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func monthLen(y int64, m int) int {
	switch m {
	case 2:
		if isLeap(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// weekday returns the weekday of a day number, 0 = Sunday.
func weekday(days int64) int {
	if days >= -4 {
		return int(uint64(days+4) % 7)
	}
	w := (days + 4) % 7
	if w < 0 {
		w += 7
	}
	return int(w)
}

// dayMaskFor returns the days (bits 1..n) of a month with n days whose first
// day is weekday first that the day-of-month and day-of-week fields accept.
func (s *Spec) dayMaskFor(n, first int) uint32 {
	lenMask := uint32(1)<<(n+1) - 2
	dom := s.dom
	if s.domSpecial {
		dom |= s.domSpecialMask(n, first)
	}
	dow := s.dowByFirst[first]
	if s.dowSpecial {
		dow |= s.dowSpecialMask(n, first)
	}
	var m uint32
	if s.and {
		m = dom & dow
	} else {
		m = dom | dow
	}
	return m & lenMask
}

// domSpecialMask evaluates L, LW and nW for one month.
func (s *Spec) domSpecialMask(n, first int) uint32 {
	var m uint32
	lastWD := (first + n - 1) % 7
	if s.lastDay {
		m |= 1 << n
	}
	if s.lastWeekday {
		switch lastWD {
		case 6:
			m |= 1 << (n - 1)
		case 0:
			m |= 1 << (n - 2)
		default:
			m |= 1 << n
		}
	}
	for w := s.nearestWeekday; w != 0; w &= w - 1 {
		d := bits.TrailingZeros32(w)
		if d > n {
			break
		}
		switch (first + d - 1) % 7 {
		case 6: // Saturday: the Friday before, or Monday the 3rd
			if d == 1 {
				d = 3
			} else {
				d--
			}
		case 0: // Sunday: the Monday after, or the Friday before the last day
			if d == n {
				d -= 2
			} else {
				d++
			}
		}
		m |= 1 << d
	}
	return m
}

// dowSpecialMask evaluates nL and n#k for one month.
func (s *Spec) dowSpecialMask(n, first int) uint32 {
	var m uint32
	lastWD := (first + n - 1) % 7
	for w := s.lastDow; w != 0; w &= w - 1 {
		wd := bits.TrailingZeros8(w)
		m |= 1 << (n - (lastWD-wd+7)%7)
	}
	for x := s.nth; x != 0; x &= x - 1 {
		b := bits.TrailingZeros64(x)
		wd, k := b/5, b%5
		d := 1 + (wd-first+7)%7 + 7*k
		if d <= n {
			m |= 1 << d
		}
	}
	return m
}

// monthMask returns the matching days of month m of year y and the day
// number of its first day.
func (s *Spec) monthMask(y int64, m int) (uint32, int64) {
	d1 := daysFromCivil(y, m, 1)
	return s.dayMaskFor(monthLen(y, m), weekday(d1)), d1
}

// monthMaskAt is monthMask when the day number d1 of the month's first day
// is already known.
func (s *Spec) monthMaskAt(y int64, m int, d1 int64) uint32 {
	return s.dayMaskFor(monthLen(y, m), weekday(d1))
}

// nextMonth returns the month after (y, m) that the month field accepts.
func (s *Spec) nextMonth(y int64, m int) (int64, int) {
	if next := s.month &^ (uint16(1)<<(m+1) - 1); next != 0 {
		return y, bits.TrailingZeros16(next)
	}
	return y + 1, bits.TrailingZeros16(s.month)
}

// prevMonth returns the month before (y, m) that the month field accepts.
func (s *Spec) prevMonth(y int64, m int) (int64, int) {
	if prev := s.month & (uint16(1)<<m - 1); prev != 0 {
		return y, bits.Len16(prev) - 1
	}
	return y - 1, bits.Len16(s.month) - 1
}

// nextTOD returns the first matching second of the day >= sod.
func (s *Spec) nextTOD(sod int) (int, bool) {
	h, mi, sec := sod/3600, sod/60%60, sod%60
	if s.hours&(1<<h) != 0 {
		if s.mins&(1<<mi) != 0 {
			if r := s.secs >> sec; r != 0 {
				return sod + bits.TrailingZeros64(r), true
			}
		}
		if r := s.mins >> (mi + 1); r != 0 {
			return h*3600 + (mi+1+bits.TrailingZeros64(r))*60 + s.firstSec, true
		}
	}
	if r := s.hours >> (h + 1); r != 0 {
		return (h+1+bits.TrailingZeros32(r))*3600 + s.firstMin*60 + s.firstSec, true
	}
	return 0, false
}

// prevTOD returns the last matching second of the day <= sod.
func (s *Spec) prevTOD(sod int) (int, bool) {
	h, mi, sec := sod/3600, sod/60%60, sod%60
	if s.hours&(1<<h) != 0 {
		if s.mins&(1<<mi) != 0 {
			if r := s.secs & (uint64(1)<<(sec+1) - 1); r != 0 {
				return h*3600 + mi*60 + bits.Len64(r) - 1, true
			}
		}
		if r := s.mins & (uint64(1)<<mi - 1); r != 0 {
			return h*3600 + (bits.Len64(r)-1)*60 + s.lastSec, true
		}
	}
	if r := s.hours & (uint32(1)<<h - 1); r != 0 {
		return (bits.Len32(r)-1)*3600 + s.lastMin*60 + s.lastSec, true
	}
	return 0, false
}

// todCountLE returns how many matching seconds of the day are <= sod
// (0 for sod < 0).
func (s *Spec) todCountLE(sod int) int64 {
	if sod < 0 {
		return 0
	}
	h, mi, sec := sod/3600, sod/60%60, sod%60
	ns := int64(bits.OnesCount64(s.secs))
	nm := int64(bits.OnesCount64(s.mins))
	n := int64(bits.OnesCount32(s.hours&(uint32(1)<<h-1))) * nm * ns
	if s.hours&(1<<h) != 0 {
		n += int64(bits.OnesCount64(s.mins&(uint64(1)<<mi-1))) * ns
		if s.mins&(1<<mi) != 0 {
			n += int64(bits.OnesCount64(s.secs & (uint64(1)<<(sec+1) - 1)))
		}
	}
	return n
}

// nextCivil returns the first matching wall time >= w.
func (s *Spec) nextCivil(w int64) int64 {
	day, sod := splitWall(w)
	if s.everyDay {
		if tod, ok := s.nextTOD(sod); ok {
			return day*secondsPerDay + int64(tod)
		}
		return (day+1)*secondsPerDay + s.firstTOD
	}
	y, m, d := civilFromDays(day)
	if s.month&(1<<m) != 0 {
		d1 := day - int64(d) + 1
		mask := s.monthMaskAt(y, m, d1)
		if mask&(1<<d) != 0 {
			if tod, ok := s.nextTOD(sod); ok {
				return day*secondsPerDay + int64(tod)
			}
		}
		if rest := mask &^ (uint32(1)<<(d+1) - 1); rest != 0 {
			return (d1+int64(bits.TrailingZeros32(rest))-1)*secondsPerDay + s.firstTOD
		}
	}
	for {
		y, m = s.nextMonth(y, m)
		if mask, d1 := s.monthMask(y, m); mask != 0 {
			return (d1+int64(bits.TrailingZeros32(mask))-1)*secondsPerDay + s.firstTOD
		}
	}
}

// prevCivil returns the last matching wall time <= w.
func (s *Spec) prevCivil(w int64) int64 {
	day, sod := splitWall(w)
	if s.everyDay {
		if tod, ok := s.prevTOD(sod); ok {
			return day*secondsPerDay + int64(tod)
		}
		return (day-1)*secondsPerDay + s.lastTOD
	}
	y, m, d := civilFromDays(day)
	if s.month&(1<<m) != 0 {
		d1 := day - int64(d) + 1
		mask := s.monthMaskAt(y, m, d1)
		if mask&(1<<d) != 0 {
			if tod, ok := s.prevTOD(sod); ok {
				return day*secondsPerDay + int64(tod)
			}
		}
		if rest := mask & (uint32(1)<<d - 1); rest != 0 {
			return (d1+int64(bits.Len32(rest))-2)*secondsPerDay + s.lastTOD
		}
	}
	for {
		y, m = s.prevMonth(y, m)
		if mask, d1 := s.monthMask(y, m); mask != 0 {
			return (d1+int64(bits.Len32(mask))-2)*secondsPerDay + s.lastTOD
		}
	}
}

// civilMatches reports whether wall time w matches the spec.
func (s *Spec) civilMatches(w int64) bool {
	return s.nextCivil(w) == w
}

// countCivil returns the number of matching wall times in [lo, hi], by whole
// months and days rather than by enumerating them.
func (s *Spec) countCivil(lo, hi int64) int64 {
	if lo > hi {
		return 0
	}
	dlo, dhi := floorDiv(lo, secondsPerDay), floorDiv(hi, secondsPerDay)
	slo, shi := int(lo-dlo*secondsPerDay), int(hi-dhi*secondsPerDay)
	if dlo == dhi {
		if s.dayMatches(dlo) {
			return s.todCountLE(shi) - s.todCountLE(slo-1)
		}
		return 0
	}
	var n int64
	if s.dayMatches(dlo) {
		n += s.perDay - s.todCountLE(slo-1)
	}
	if s.dayMatches(dhi) {
		n += s.todCountLE(shi)
	}
	return n + s.matchingDays(dlo+1, dhi-1)*s.perDay
}

func (s *Spec) dayMatches(day int64) bool {
	y, m, d := civilFromDays(day)
	if s.month&(1<<m) == 0 {
		return false
	}
	mask, _ := s.monthMask(y, m)
	return mask&(1<<d) != 0
}

// matchingDays counts the matching days in the day range [a, b], one month
// mask at a time.
func (s *Spec) matchingDays(a, b int64) int64 {
	if a > b {
		return 0
	}
	y, m, d := civilFromDays(a)
	by, bm, bd := civilFromDays(b)
	var n int64
	for {
		last := y == by && m == bm
		if s.month&(1<<m) != 0 {
			mask, _ := s.monthMask(y, m)
			mask &^= uint32(1)<<d - 1
			if last {
				mask &= uint32(1)<<(bd+1) - 1
			}
			n += int64(bits.OnesCount32(mask))
		}
		if last {
			return n
		}
		d = 1
		if m == 12 {
			y, m = y+1, 1
		} else {
			m++
		}
	}
}
