package webui

import (
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// wm returns the week minute of a day (0 = Monday) and clock time.
func wm(day, hour, minute int) int { return day*dayMinutes + hour*60 + minute }

func TestPieces(t *testing.T) {
	tests := []struct {
		name string
		iv   Interval
		want []piece
	}{
		{"inside one day", Interval{wm(0, 9, 0), wm(0, 17, 0)}, []piece{{0, 540, 1020}}},
		{"to midnight", Interval{wm(2, 22, 0), wm(3, 0, 0)}, []piece{{2, 1320, 1440}}},
		{"across midnight", Interval{wm(5, 22, 0), wm(6, 6, 0)}, []piece{{5, 1320, 1440}, {6, 0, 360}}},
		{"across the week's end", Interval{wm(4, 22, 0), weekMinutes + wm(0, 2, 0)},
			[]piece{{4, 1320, 1440}, {5, 0, 1440}, {6, 0, 1440}, {0, 0, 120}}},
		{"starts next week", Interval{weekMinutes + wm(1, 1, 0), weekMinutes + wm(1, 2, 0)}, []piece{{1, 60, 120}}},
		{"starts last week", Interval{-60, 60}, []piece{{6, 1380, 1440}, {0, 0, 60}}},
		{"whole week", Interval{0, weekMinutes}, []piece{{0, 0, 1440}, {1, 0, 1440}, {2, 0, 1440}, {3, 0, 1440}, {4, 0, 1440}, {5, 0, 1440}, {6, 0, 1440}}},
		{"longer than a week is cut", Interval{0, 3 * weekMinutes}, []piece{{0, 0, 1440}, {1, 0, 1440}, {2, 0, 1440}, {3, 0, 1440}, {4, 0, 1440}, {5, 0, 1440}, {6, 0, 1440}}},
		{"empty", Interval{100, 100}, nil},
		{"reversed", Interval{200, 100}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pieces(tt.iv); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("pieces(%v) = %v, want %v", tt.iv, got, tt.want)
			}
		})
	}
}

var (
	blockRE = regexp.MustCompile(`<g class="block" data-start="(-?\d+)" data-end="(-?\d+)">`)
	rectRE  = regexp.MustCompile(`<rect x="(\d+)" y="([\d.]+)" width="(\d+)" height="([\d.]+)" rx="2"/>`)
)

func TestWeekCalendarBlocks(t *testing.T) {
	cal := weekCalendar{
		Label: "test <&> window",
		Blocks: []Interval{
			{wm(1, 6, 0), wm(1, 12, 0)},     // Tuesday morning: one rect
			{wm(5, 22, 0), wm(6, 6, 0)},     // Saturday night: two rects
			{wm(6, 23, 30), wm(0, 0, 30)},   // reversed: nothing
			{wm(3, 0, 0), wm(3, 0, 0) + 90}, // Thursday 00:00-01:30
		},
		Now: -1,
	}
	svg := string(cal.render())
	if !strings.Contains(svg, `aria-label="test &lt;&amp;&gt; window"`) {
		t.Errorf("label not escaped: %.200s", svg)
	}
	if n := len(blockRE.FindAllString(svg, -1)); n != 3 {
		t.Errorf("%d blocks, want 3", n)
	}
	rects := rectRE.FindAllStringSubmatch(svg, -1)
	want := [][4]string{
		// x = gutter + day*col + 2, y = header + minutes*hourH/60, width = col-4.
		{fmt.Sprint(calGutter + calColW + 2), fmt.Sprint(calHeader + 6*calHourH), fmt.Sprint(calColW - 4), fmt.Sprint(6 * calHourH)},
		{fmt.Sprint(calGutter + 5*calColW + 2), fmt.Sprint(calHeader + 22*calHourH), fmt.Sprint(calColW - 4), fmt.Sprint(2 * calHourH)},
		{fmt.Sprint(calGutter + 6*calColW + 2), fmt.Sprint(calHeader), fmt.Sprint(calColW - 4), fmt.Sprint(6 * calHourH)},
		{fmt.Sprint(calGutter + 3*calColW + 2), fmt.Sprint(calHeader), fmt.Sprint(calColW - 4), "18"},
	}
	if len(rects) != len(want) {
		t.Fatalf("%d rects, want %d:\n%s", len(rects), len(want), svg)
	}
	for i, r := range rects {
		if got := [4]string{r[1], r[2], r[3], r[4]}; got != want[i] {
			t.Errorf("rect %d = %v, want %v", i, got, want[i])
		}
	}
	if strings.Contains(svg, `class="now"`) {
		t.Error("Now < 0 drew a now line")
	}
	if !strings.Contains(svg, "<title>Sat 22:00 – Sun 06:00</title>") {
		t.Error("block title missing")
	}
}

func TestWeekCalendarNowAndMarkers(t *testing.T) {
	cal := weekCalendar{Label: "x", Starts: []int{wm(0, 8, 0), wm(4, 8, 0)}, Stops: []int{wm(0, 19, 0)}, Now: wm(2, 14, 30)}
	svg := string(cal.render())
	now := regexp.MustCompile(`<g class="now" data-minute="(\d+)"><title>now: ([^<]+)</title><line x1="(\d+)" y1="([\d.]+)"`).FindStringSubmatch(svg)
	if now == nil {
		t.Fatalf("no now line in %s", svg)
	}
	if now[1] != fmt.Sprint(wm(2, 14, 30)) || now[2] != "Wed 14:30" || now[3] != fmt.Sprint(calGutter+2*calColW) || now[4] != fmt.Sprint(calHeader+14*calHourH+calHourH/2) {
		t.Errorf("now line = %v", now[1:])
	}
	if n := strings.Count(svg, `class="marker start"`); n != 2 {
		t.Errorf("%d start markers, want 2", n)
	}
	if n := strings.Count(svg, `class="marker stop"`); n != 1 {
		t.Errorf("%d stop markers, want 1", n)
	}
}

func TestRunningPeriods(t *testing.T) {
	var officeStarts, officeStops, nightStarts, nightStops []int
	for d := range 5 {
		officeStarts = append(officeStarts, wm(d, 8, 0))
		officeStops = append(officeStops, wm(d, 19, 0))
		nightStarts = append(nightStarts, wm(d, 22, 0))
		nightStops = append(nightStops, wm(d+1, 6, 0))
	}
	var office, night []Interval
	for d := range 5 {
		office = append(office, Interval{wm(d, 8, 0), wm(d, 19, 0)})
		night = append(night, Interval{wm(d, 22, 0), wm(d+1, 6, 0)})
	}
	tests := []struct {
		name          string
		starts, stops []int
		want          []Interval
	}{
		{"office hours", officeStarts, officeStops, office},
		{"nights across midnight", nightStarts, nightStops, night},
		{"across the week's end", []int{wm(6, 22, 0)}, []int{wm(0, 6, 0)}, []Interval{{wm(6, 22, 0), weekMinutes + wm(0, 6, 0)}}},
		{"second start while running", []int{wm(0, 8, 0), wm(0, 10, 0)}, []int{wm(0, 12, 0)}, []Interval{{wm(0, 8, 0), wm(0, 12, 0)}}},
		{"second stop while stopped", []int{wm(0, 8, 0)}, []int{wm(0, 12, 0), wm(0, 14, 0)}, []Interval{{wm(0, 8, 0), wm(0, 12, 0)}}},
		{"only starts", []int{wm(0, 8, 0)}, nil, nil},
		{"only stops", nil, []int{wm(5, 0, 0)}, nil},
		{"start and stop at once", []int{wm(1, 8, 0)}, []int{wm(1, 8, 0)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := runningPeriods(tt.starts, tt.stops); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("runningPeriods = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestWeekMinute(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		t    time.Time
		loc  *time.Location
		want int
	}{
		{time.Date(2025, 3, 10, 0, 0, 0, 0, time.UTC), time.UTC, 0},                  // a Monday
		{time.Date(2025, 3, 16, 23, 59, 59, 0, time.UTC), time.UTC, weekMinutes - 1}, // the Sunday after
		{time.Date(2025, 3, 16, 23, 30, 0, 0, time.UTC), berlin, 30},                 // already Monday 00:30 in Berlin
		{time.Date(2025, 3, 12, 14, 7, 0, 0, time.UTC), time.UTC, wm(2, 14, 7)},
	}
	for _, tt := range tests {
		if got := weekMinute(tt.t, tt.loc); got != tt.want {
			t.Errorf("weekMinute(%v, %v) = %d, want %d", tt.t, tt.loc, got, tt.want)
		}
	}
}

func TestMondayOf(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		t    time.Time
		loc  *time.Location
		want string
	}{
		{"monday itself", time.Date(2025, 3, 10, 0, 0, 0, 0, time.UTC), time.UTC, "2025-03-10"},
		{"sunday night", time.Date(2025, 3, 16, 23, 59, 0, 0, time.UTC), time.UTC, "2025-03-10"},
		{"already monday in berlin", time.Date(2025, 3, 16, 23, 30, 0, 0, time.UTC), berlin, "2025-03-17"},
		{"across a month", time.Date(2025, 4, 2, 12, 0, 0, 0, time.UTC), time.UTC, "2025-03-31"},
		{"across a DST change", time.Date(2025, 3, 30, 12, 0, 0, 0, time.UTC), berlin, "2025-03-24"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mondayOf(tt.t, tt.loc)
			if got.Format("2006-01-02") != tt.want || got.Weekday() != time.Monday || got.Location() != tt.loc {
				t.Errorf("mondayOf(%v, %v) = %v, want %s", tt.t, tt.loc, got, tt.want)
			}
		})
	}
}

func TestTimeline(t *testing.T) {
	now := time.Date(2025, 3, 12, 12, 0, 0, 0, time.UTC)
	code := 0
	tl := timeline{
		Label: "t", From: now.Add(-5 * 24 * time.Hour), To: now.Add(2 * 24 * time.Hour), Now: now, Loc: time.UTC,
		Runs: []Run{
			{ID: 1, State: RunSucceeded, ScheduledTime: now.Add(-24 * time.Hour), ExitCode: &code},
			{ID: 2, State: RunFailed, ScheduledTime: now.Add(-48 * time.Hour)},
			{ID: 3, State: RunMissed, ScheduledTime: now.Add(-72 * time.Hour)},
			{ID: 4, State: RunSucceeded, ScheduledTime: now.Add(-6 * 24 * time.Hour)}, // before the picture
			{ID: 5, State: "weird", ScheduledTime: now.Add(-time.Hour)},
		},
		Fires: []Fire{{Time: now.Add(time.Hour)}, {Time: now.Add(47 * time.Hour)}, {Time: now.Add(49 * time.Hour)}},
	}
	svg := string(tl.render())
	for _, want := range []string{`<a class="run succeeded" href="/runs/1">`, `<a class="run failed" href="/runs/2">`,
		`<a class="run missed" href="/runs/3">`, `<a class="run other" href="/runs/5">`, "exit 0"} {
		if !strings.Contains(svg, want) {
			t.Errorf("missing %q", want)
		}
	}
	if strings.Contains(svg, `href="/runs/4"`) {
		t.Error("a run before the picture was drawn")
	}
	if n := strings.Count(svg, `class="fire"`); n != 2 {
		t.Errorf("%d fires drawn, want 2 (the third is past the end)", n)
	}
	// Now is 5 of 7 days along the axis.
	x := num(tlLeft + 5.0/7*tlWidth)
	if !strings.Contains(svg, `<line x1="`+x+`" y1="4" x2="`+x+`"`) {
		t.Errorf("now line not at x=%s: %s", x, svg)
	}
	// A midnight tick per day inside the picture: Mar 8..14 (the 7th is before From).
	if n := strings.Count(svg, `class="tick"`); n != 7 {
		t.Errorf("%d day ticks, want 7", n)
	}
}

func TestTimelineFires(t *testing.T) {
	now := time.Date(2025, 3, 15, 12, 0, 0, 0, time.UTC) // a Saturday
	base := timeline{Label: "t", From: now.Add(-5 * 24 * time.Hour), To: now.Add(2 * 24 * time.Hour), Now: now, Loc: time.UTC}
	minutely := func(gated bool) []Fire {
		var fs []Fire
		for t := now.Add(time.Minute); t.Before(base.To); t = t.Add(time.Minute) {
			f := Fire{Time: t}
			if gated && t.Weekday() == time.Saturday {
				f.Outlook, f.Until, f.Reason = OutlookWaits, time.Date(2025, 3, 17, 0, 0, 0, 0, time.UTC), `schedule gate "weekdays" is closed`
			}
			fs = append(fs, f)
		}
		return fs
	}
	tests := []struct {
		name  string
		fires []Fire
		cut   bool
		check func(t *testing.T, svg string)
	}{
		{"a minutely job fills its two days", minutely(false), false, func(t *testing.T, svg string) {
			total := 0
			for _, m := range regexp.MustCompile(`data-fires="(\d+)"`).FindAllStringSubmatch(svg, -1) {
				n, _ := strconv.Atoi(m[1])
				total += n
			}
			total += strings.Count(svg, `<circle class="fire"`)
			if want := 48*60 - 1; total != want {
				t.Errorf("the band counts %d fires, want %d", total, want)
			}
			// The last bar reaches the end of the axis.
			bars := regexp.MustCompile(`<rect class="fire bar" x="([0-9.]+)" y="\d+" width="([0-9.]+)"`).FindAllStringSubmatch(svg, -1)
			if len(bars) == 0 {
				t.Fatal("no bars drawn")
			}
			x, _ := strconv.ParseFloat(bars[len(bars)-1][1], 64)
			w, _ := strconv.ParseFloat(bars[len(bars)-1][2], 64)
			if end := x + w; end < tlLeft+tlWidth-tlBucket {
				t.Errorf("the last bar ends at %.1f, short of %d", end, tlLeft+tlWidth)
			}
		}},
		{"fires waiting for a gate are marked", minutely(true), false, func(t *testing.T, svg string) {
			if !strings.Contains(svg, `class="fire waits bar"`) || !strings.Contains(svg, `wait for the gate`) {
				t.Error("Saturday's fires are not marked as waiting")
			}
			if !strings.Contains(svg, `<rect class="fire bar"`) {
				t.Error("Sunday's fires are drawn as waiting too")
			}
		}},
		{"one fire that will be missed", []Fire{{Time: now.Add(3 * time.Hour), Outlook: OutlookWillMiss, Reason: "gate opens only after the starting deadline"}}, false,
			func(t *testing.T, svg string) {
				svgContains(t, svg, `<circle class="fire will-miss"`, `next fire Sat 15 Mar 15:00 UTC: will be missed, gate opens only after the starting deadline`)
			}},
		{"a cut list says so", minutely(false)[:600], true, func(t *testing.T, svg string) {
			svgContains(t, svg, `class="fire bar more"`, `more fires until Mon 17 Mar 12:00 UTC than are drawn`)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := base
			tl.Fires, tl.FiresCut = tt.fires, tt.cut
			tt.check(t, string(tl.render()))
		})
	}
}

func svgContains(t *testing.T, svg string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(svg, w) {
			t.Errorf("missing %q", w)
		}
	}
}

func BenchmarkWeekCalendar(b *testing.B) {
	var starts, stops []int
	for d := range 5 {
		starts = append(starts, wm(d, 8, 0))
		stops = append(stops, wm(d, 19, 0))
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = weekCalendar{Label: "office", Blocks: runningPeriods(starts, stops), Starts: starts, Stops: stops, Now: wm(2, 14, 7)}.render()
	}
}
