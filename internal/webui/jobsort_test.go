package webui_test

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/webui"
	"github.com/almanac-sh/almanac/internal/webui/webuitest"
)

// sortFixture is the daemon backend over a real SQLite store and job
// controller holding jobs of every status and next fire.
type sortFixture struct {
	st   store.Store
	ctrl *job.Controller
	clk  *clock.Fake
	back webui.Backend
}

// newSortFixture creates, at demoNow (Wed 14:07 UTC):
//
//	a-hourly  next 15:00, scheduled
//	b-half    next 14:30, scheduled
//	c-daily   next tomorrow 03:00, scheduled
//	d-off     suspended
//	e-manual  no schedule
//	f-broken  next 14:45, its latest run failed
//	g-missed  next 14:10, its latest run was missed
//	h-busy    next 14:20, a run executes
//	i-held    next 14:50, a run has not started
//	j-paused  every hour at :05, but its waves are paused: none
func newSortFixture(t *testing.T) *sortFixture {
	t.Helper()
	ctx := t.Context()
	clk := clock.NewFake(demoNow)
	st := openStore(t, clk)
	ctrl := newController(t, st, clk, parseCron)
	for _, spec := range []store.JobSpec{
		{Name: "a-hourly", Cron: "0 * * * *"},
		{Name: "b-half", Cron: "30 * * * *"},
		{Name: "c-daily", Cron: "0 3 * * *"},
		{Name: "d-off", Cron: "15 * * * *", Suspend: true},
		{Name: "e-manual", Manual: true},
		{Name: "f-broken", Cron: "45 * * * *"},
		{Name: "g-missed", Cron: "10 * * * *"},
		{Name: "h-busy", Cron: "20 * * * *"},
		{Name: "i-held", Cron: "50 * * * *"},
		{Name: "j-paused", Cron: "5 * * * *", Nodes: "role=db"},
	} {
		spec.Command = []string{"true"}
		if _, err := ctrl.CreateJob(ctx, spec, store.SourceAPI); err != nil {
			t.Fatalf("create %s: %v", spec.Name, err)
		}
	}
	if err := ctrl.WavePause(ctx, "j-paused"); err != nil {
		t.Fatal(err)
	}
	f := &sortFixture{st: st, ctrl: ctrl, clk: clk}
	f.finish(t, f.insert(t, "f-broken", demoNow.Add(-22*time.Minute)), store.RunFailed)
	f.finish(t, f.insert(t, "g-missed", demoNow.Add(-57*time.Minute)), store.RunMissed)
	f.insert(t, "h-busy", demoNow.Add(-47*time.Minute))
	if _, err := st.RunClaim(ctx, store.RunClaimParams{Node: "n1", Now: demoNow, Limit: 1}); err != nil {
		t.Fatal(err)
	}
	f.insert(t, "i-held", demoNow.Add(-17*time.Minute))
	back, err := webui.NewDaemonBackend(webui.DaemonConfig{Store: st, Jobs: jobController{ctrl}, Waves: ctrl, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	f.back = back
	return f
}

// insert records a scheduled run of job at at, as a fire does.
func (f *sortFixture) insert(t *testing.T, job string, at time.Time) int64 {
	t.Helper()
	r, err := f.st.RunInsert(t.Context(), store.RunInsertParams{Run: store.Run{Job: job, ScheduledTime: at, Attempt: 1,
		Reason: store.ReasonSchedule, ReadyAt: at}, Now: f.clk.Now(),
		Events: []store.Event{{Kind: store.EventRunScheduled, Job: job, Message: "scheduled"}}})
	if err != nil {
		t.Fatal(err)
	}
	return r.ID
}

// finish ends a run as the controller records an end, with its event.
func (f *sortFixture) finish(t *testing.T, id int64, state store.RunState) {
	t.Helper()
	if _, err := f.st.RunFinish(t.Context(), store.RunFinishParams{ID: id, State: state, Now: f.clk.Now(),
		Events: []store.Event{{Kind: store.EventRunFinished(state), Message: string(state)}}}); err != nil {
		t.Fatal(err)
	}
}

// order lists every job in the order q asks for, one page of limit at a
// time, following Next, and checks each page's count and place.
func (f *sortFixture) order(t *testing.T, q webui.JobQuery) string {
	t.Helper()
	var out []string
	for page := 0; ; page++ {
		p, err := f.back.Jobs(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		if p.Offset != len(out) {
			t.Errorf("page %d of %v starts at %d, after %d jobs", page, q.Sort, p.Offset, len(out))
		}
		for _, j := range p.Jobs {
			out = append(out, j.Name)
		}
		if p.Next == "" || page > 20 {
			return strings.Join(out, " ")
		}
		q.After = p.Next
	}
}

func reversed(s string) string {
	f := strings.Fields(s)
	slices.Reverse(f)
	return strings.Join(f, " ")
}

// TestDaemonBackendSort: over the real store, every order of the jobs list
// lists every job once, the same whatever the page size, and the reverse
// order is the exact reverse.
func TestDaemonBackendSort(t *testing.T) {
	f := newSortFixture(t)
	for _, tt := range []struct {
		sort string
		want string
	}{
		{"name", "a-hourly b-half c-daily d-off e-manual f-broken g-missed h-busy i-held j-paused"},
		// Soonest first; none last, by name.
		{"next", "g-missed h-busy b-half f-broken i-held a-hourly c-daily d-off e-manual j-paused"},
		// failing, missing, waiting, running, scheduled, suspended.
		{"status", "f-broken g-missed i-held h-busy a-hourly b-half c-daily e-manual j-paused d-off"},
	} {
		for _, desc := range []bool{false, true} {
			o, ok := webui.ParseJobSort(map[bool]string{false: "", true: "-"}[desc] + tt.sort)
			if !ok {
				t.Fatalf("ParseJobSort(%q) refused", tt.sort)
			}
			want := tt.want
			if desc {
				want = reversed(want)
			}
			t.Run(o.String(), func(t *testing.T) {
				for _, limit := range []int{0, 1, 3, 4} {
					if got := f.order(t, webui.JobQuery{Sort: o, Limit: limit}); got != want {
						t.Errorf("limit %d:\n got %s\nwant %s", limit, got, want)
					}
				}
			})
		}
	}
	// A filter keeps the order among what it keeps.
	if got := f.order(t, webui.JobQuery{Sort: webui.JobSort{Key: webui.JobSortNext}, Filter: "a", Limit: 1}); got != "b-half a-hourly c-daily e-manual j-paused" {
		t.Errorf("next fire, name containing a: %s", got)
	}
	if got := f.order(t, webui.JobQuery{Sort: webui.JobSort{Key: webui.JobSortStatus}, State: webui.JobStateRunning}); got != "h-busy" {
		t.Errorf("status, running: %s", got)
	}
}

// TestDaemonBackendSortFollowsChanges: the index behind the orders follows
// what happens after it was read, without waiting for its lifetime: a run
// that ends, a run that starts, a job suspended, changed, created or
// deleted through the controller (not the UI), and fires that pass.
func TestDaemonBackendSortFollowsChanges(t *testing.T) {
	f := newSortFixture(t)
	ctx := t.Context()
	status := webui.JobQuery{Sort: webui.JobSort{Key: webui.JobSortStatus}}
	next := webui.JobQuery{Sort: webui.JobSort{Key: webui.JobSortNext}}
	f.order(t, status) // read the index

	steps := []struct {
		name   string
		change func(t *testing.T)
		q      webui.JobQuery
		want   string
	}{
		{"a run ends failed", func(t *testing.T) {
			runs, _, err := f.st.RunList(ctx, store.RunListParams{Job: "h-busy", Page: store.Page{Limit: 1}})
			if err != nil || len(runs) != 1 {
				t.Fatalf("h-busy's run: %v %v", runs, err)
			}
			f.finish(t, runs[0].ID, store.RunFailed)
		}, status, "f-broken h-busy g-missed i-held a-hourly b-half c-daily e-manual j-paused d-off"},
		{"a held run starts", func(t *testing.T) {
			if _, err := f.st.RunClaim(ctx, store.RunClaimParams{Node: "n1", Now: f.clk.Now(), Limit: 1}); err != nil {
				t.Fatal(err)
			}
		}, webui.JobQuery{Sort: status.Sort, State: webui.JobStateRunning}, "i-held"},
		{"a job suspended", func(t *testing.T) {
			if err := f.ctrl.Suspend(ctx, "b-half"); err != nil {
				t.Fatal(err)
			}
		}, next, "g-missed h-busy f-broken i-held a-hourly c-daily b-half d-off e-manual j-paused"},
		{"a job resumed", func(t *testing.T) {
			if err := f.ctrl.Resume(ctx, "b-half"); err != nil {
				t.Fatal(err)
			}
		}, next, "g-missed h-busy b-half f-broken i-held a-hourly c-daily d-off e-manual j-paused"},
		{"waves resumed", func(t *testing.T) {
			if err := f.ctrl.WaveResume(ctx, "j-paused"); err != nil {
				t.Fatal(err)
			}
		}, next, "g-missed h-busy b-half f-broken i-held a-hourly j-paused c-daily d-off e-manual"},
		{"a job's schedule changed", func(t *testing.T) {
			if _, _, err := f.ctrl.PutJob(ctx, store.JobSpec{Name: "c-daily", Cron: "8 * * * *", Command: []string{"true"}}, store.SourceAPI); err != nil {
				t.Fatal(err)
			}
		}, next, "c-daily g-missed h-busy b-half f-broken i-held a-hourly j-paused d-off e-manual"},
		{"a job created and one deleted", func(t *testing.T) {
			if _, err := f.ctrl.CreateJob(ctx, store.JobSpec{Name: "k-new", Cron: "9 * * * *", Command: []string{"true"}}, store.SourceAPI); err != nil {
				t.Fatal(err)
			}
			if err := f.ctrl.DeleteJob(ctx, "a-hourly"); err != nil {
				t.Fatal(err)
			}
		}, next, "c-daily k-new g-missed h-busy b-half f-broken i-held j-paused d-off e-manual"},
		{"fires pass", func(*testing.T) {
			f.clk.Advance(25 * time.Minute) // 14:32: c-daily, k-new, g-missed, h-busy and b-half fired
		}, next, "f-broken i-held j-paused c-daily k-new g-missed h-busy b-half d-off e-manual"},
	}
	for _, s := range steps {
		s.change(t)
		if got := f.order(t, s.q); got != s.want {
			t.Errorf("after %s, by %v:\n got %s\nwant %s", s.name, s.q.Sort, got, s.want)
		}
	}
}

// dailyAt fires every day at its time of day.
type dailyAt time.Duration

func (d dailyAt) Next(t time.Time) time.Time {
	at := t.Truncate(24 * time.Hour).Add(time.Duration(d))
	if !at.After(t) {
		at = at.Add(24 * time.Hour)
	}
	return at
}

// TestJobsSortPage: the page's sortable headers say which is the current
// order (aria-sort and an arrow, on that header only) and lead to the
// others; each link keeps the filters and starts at the first page; the
// filter form and "Show all" keep the order; and a sort= that is not one
// is a 400 naming the choices.
func TestJobsSortPage(t *testing.T) {
	back := webuitest.New(clock.NewFake(demoNow))
	// Next fires, demoNow being 14:07: backup-10 at 18:00, backup-2 at
	// 17:00, backup-1 at 16:00, backup-20 at 15:00.
	for i, n := range []string{"backup-10", "backup-2", "backup-1", "backup-20"} {
		back.AddJob(webui.Job{Name: n, Schedule: "@daily", Zone: "UTC", Command: "true"}, dailyAt(time.Duration(18-i)*time.Hour))
	}
	h := newHarness(t, webui.Config{Backend: back})
	order := func(body string) string {
		var out []string
		for _, m := range regexp.MustCompile(`<tr id="job-[^"]+" data-job="([^"]+)"`).FindAllStringSubmatch(body, -1) {
			out = append(out, m[1])
		}
		return strings.Join(out, " ")
	}
	for _, tt := range []struct {
		path, order string
		wants       []string
	}{
		{"/jobs?q=backup", "backup-1 backup-2 backup-10 backup-20", []string{
			`<th aria-sort="ascending"><a id="sort-name" href="/jobs?q=backup&amp;sort=-name" title="sort by name the other way">Job <span aria-hidden="true">▲</span></a></th>`,
			`<th><a id="sort-next" href="/jobs?q=backup&amp;sort=next" title="sort by next fire">Next fire</a></th>`}},
		{"/jobs?q=backup&sort=next", "backup-20 backup-1 backup-2 backup-10", []string{
			`<th aria-sort="ascending"><a id="sort-next" href="/jobs?q=backup&amp;sort=-next" title="sort by next fire the other way">Next fire <span aria-hidden="true">▲</span></a></th>`,
			`<th><a id="sort-name" href="/jobs?q=backup" title="sort by name">Job</a></th>`,
			`<th><a id="sort-status" href="/jobs?q=backup&amp;sort=status" title="sort by status">Status</a></th>`,
			`<input type="hidden" name="sort" value="next">`, `<a href="/jobs?sort=next">Show all</a>`}},
		{"/jobs?sort=-next", "backup-10 backup-2 backup-1 backup-20", []string{
			`<th aria-sort="descending"><a id="sort-next" href="/jobs?sort=next" title="sort by next fire the other way">Next fire <span aria-hidden="true">▼</span></a></th>`,
			`<input type="hidden" name="sort" value="-next">`}},
		{"/jobs?sort=-status&q=backup-1", "backup-10 backup-1", []string{
			`<a id="sort-status" href="/jobs?q=backup-1&amp;sort=status"`, `<input type="hidden" name="sort" value="-status">`}},
		{"/jobs?sort=-name&q=backup", "backup-20 backup-10 backup-2 backup-1", []string{`<th aria-sort="descending"><a id="sort-name" href="/jobs?q=backup"`}},
	} {
		t.Run(tt.path, func(t *testing.T) {
			code, body := h.get(tt.path)
			if code != http.StatusOK {
				t.Fatalf("GET %s = %d", tt.path, code)
			}
			if got := order(body); tt.order != "" && got != tt.order {
				t.Errorf("order %s, want %s", got, tt.order)
			}
			mustContain(t, body, tt.wants...)
			if n := strings.Count(body, "aria-sort="); n > 1 {
				t.Errorf("%d headers say how the list is sorted, want 1", n)
			}
		})
	}
	// Without JavaScript, suspending a job from the sorted list comes back
	// to the list as it was shown.
	_, body := h.get("/jobs?q=backup&sort=next")
	mustContain(t, body, `<input type="hidden" name="return" value="/jobs?q=backup&amp;sort=next">`)
	resp := h.post("/jobs/backup-2/suspend", url.Values{"csrf": {h.csrf("/jobs")}, "return": {"/jobs?q=backup&sort=next"}}, nil)
	resp.Body.Close()
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || loc != "/jobs?q=backup&sort=next&done=suspended" {
		t.Errorf("suspend from the sorted list: %d to %q", resp.StatusCode, loc)
	}
	for _, bad := range []string{"zone", "-", "--next", "Next", "next,name", "-status-", "%00"} {
		code, body := h.get("/jobs?sort=" + bad)
		if code != http.StatusBadRequest || !strings.Contains(body, "sort= is name, next or status") {
			t.Errorf("?sort=%s: %d, want 400 naming the choices", bad, code)
		}
	}
}

// TestJobsSortPager: with more jobs than a page, the next page's link
// keeps the order, and the page it leads to continues it and links back.
func TestJobsSortPager(t *testing.T) {
	back := webuitest.New(clock.NewFake(demoNow))
	var want []string
	for i := range 150 {
		name := "job-" + string(rune('a'+i/26)) + string(rune('a'+i%26))
		// Later names fire sooner: the order by next fire is the reverse
		// of the order by name.
		back.AddJob(webui.Job{Name: name, Schedule: "daily", Zone: "UTC", Command: "true"}, dailyAt(time.Duration(15*60+150-i)*time.Minute))
		want = append(want, name)
	}
	slices.Reverse(want)
	h := newHarness(t, webui.Config{Backend: back})
	_, body := h.get("/jobs?sort=next")
	m := regexp.MustCompile(`rel="next" href="([^"]+)"`).FindStringSubmatch(body)
	if m == nil || !strings.Contains(m[1], "sort=next") {
		t.Fatalf("the next page's link does not keep the order: %v", m)
	}
	_, second := h.get(strings.ReplaceAll(m[1], "&amp;", "&"))
	got := regexp.MustCompile(`<tr id="job-[^"]+" data-job="([^"]+)"`).FindAllStringSubmatch(second, -1)
	if len(got) != 50 || got[0][1] != want[100] || got[49][1] != want[149] {
		t.Errorf("the second page by next fire has %d jobs from %v, want %s … %s", len(got), got[:min(len(got), 1)], want[100], want[149])
	}
	mustContain(t, second, "101–150 of 150 jobs", `rel="prev" href="/jobs?sort=next"`)
}

// TestParseJobSort: every order and its reverse read back as written;
// anything else is refused.
func TestParseJobSort(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want webui.JobSort
		ok   bool
	}{
		{"", webui.JobSort{Key: webui.JobSortName}, true},
		{"name", webui.JobSort{Key: webui.JobSortName}, true},
		{"-name", webui.JobSort{Key: webui.JobSortName, Desc: true}, true},
		{"next", webui.JobSort{Key: webui.JobSortNext}, true},
		{"-next", webui.JobSort{Key: webui.JobSortNext, Desc: true}, true},
		{"status", webui.JobSort{Key: webui.JobSortStatus}, true},
		{"-status", webui.JobSort{Key: webui.JobSortStatus, Desc: true}, true},
		{"-", webui.JobSort{}, false},
		{"--name", webui.JobSort{}, false},
		{"+next", webui.JobSort{}, false},
		{"NEXT", webui.JobSort{}, false},
		{"zone", webui.JobSort{}, false},
		{" next", webui.JobSort{}, false},
	} {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := webui.ParseJobSort(tt.in)
			if got != tt.want || ok != tt.ok {
				t.Fatalf("ParseJobSort(%q) = %+v, %v; want %+v, %v", tt.in, got, ok, tt.want, tt.ok)
			}
			if ok && tt.in != "" && got.String() != tt.in {
				t.Errorf("%+v reads back as %q", got, got.String())
			}
		})
	}
}

// TestJobStatusOrder: each job state the list shows has its place, most
// urgent first, and a job that is only scheduled is placed by its
// active runs.
func TestJobStatusOrder(t *testing.T) {
	for _, tt := range []struct {
		name string
		job  webui.Job
		want string
	}{
		{"failing", webui.Job{Recent: []webui.Run{{State: webui.RunFailed}}, Active: []int64{9}}, "failing"},
		{"partly failing", webui.Job{Nodes: "role=db", LastWave: &webui.Wave{Done: 2, Failed: 1}}, "partly-failing"},
		{"missing", webui.Job{Recent: []webui.Run{{State: webui.RunMissed}}, Active: []int64{9}, Pending: []int64{9}}, "missing"},
		{"waiting", webui.Job{Active: []int64{8, 9}, Pending: []int64{9}}, "waiting"},
		{"running", webui.Job{Active: []int64{8}, Recent: []webui.Run{{State: webui.RunSucceeded}}}, "running"},
		{"scheduled", webui.Job{Recent: []webui.Run{{State: webui.RunSucceeded}}}, "scheduled"},
		{"suspended and failing", webui.Job{Suspended: true, Recent: []webui.Run{{State: webui.RunFailed}}}, "suspended"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.job.Status(); got != tt.want {
				t.Errorf("Status() = %s, want %s", got, tt.want)
			}
			if r := tt.job.StatusRank(); r < 0 || webui.JobStatusOrder[r] != tt.want {
				t.Errorf("StatusRank() = %d", r)
			}
		})
	}
}

// FuzzParseJobSort: any ?sort= value is read or refused without panic,
// and an order read writes back as a value that reads the same.
func FuzzParseJobSort(f *testing.F) {
	for _, s := range []string{"", "name", "-name", "next", "-next", "status", "-status", "-", "--next", "zone"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		o, ok := webui.ParseJobSort(s)
		if !ok {
			return
		}
		again, ok := webui.ParseJobSort(o.String())
		if !ok || again != o {
			t.Fatalf("%q reads as %+v, written %q, read back as %+v (%v)", s, o, o.String(), again, ok)
		}
	})
}

// TestDaemonBackendSortConcurrent: requests in every order, changes and
// the index's background read running at once (for the race detector)
// leave every job listed once in each order.
func TestDaemonBackendSortConcurrent(t *testing.T) {
	f := newSortFixture(t)
	f.order(t, webui.JobQuery{}) // read the index
	var wg sync.WaitGroup
	for _, s := range []string{"name", "-next", "status"} {
		o, _ := webui.ParseJobSort(s)
		wg.Go(func() {
			for range 20 {
				if _, err := f.back.Jobs(t.Context(), webui.JobQuery{Sort: o, Limit: 3}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Go(func() {
		for i := range 10 {
			f.clk.Advance(20 * time.Second) // past the index's minute now and then
			id, err := f.st.RunInsert(t.Context(), store.RunInsertParams{Run: store.Run{Job: "a-hourly", ScheduledTime: f.clk.Now(), Attempt: 1,
				Reason: store.ReasonSchedule, ReadyAt: f.clk.Now()}, Now: f.clk.Now(),
				Events: []store.Event{{Kind: store.EventRunScheduled, Job: "a-hourly", Message: "scheduled"}}})
			if err != nil {
				t.Error(err)
				return
			}
			if i%2 == 0 {
				if _, err := f.st.RunFinish(t.Context(), store.RunFinishParams{ID: id.ID, State: store.RunSucceeded, Now: f.clk.Now(),
					Events: []store.Event{{Kind: store.EventRunSucceeded, Message: "ok"}}}); err != nil {
					t.Error(err)
					return
				}
			}
		}
	})
	wg.Wait()
	for _, s := range []string{"name", "next", "-status"} {
		o, _ := webui.ParseJobSort(s)
		got := strings.Fields(f.order(t, webui.JobQuery{Sort: o, Limit: 4}))
		slices.Sort(got)
		if strings.Join(got, " ") != "a-hourly b-half c-daily d-off e-manual f-broken g-missed h-busy i-held j-paused" {
			t.Errorf("by %s, after the changes: %v", s, got)
		}
	}
}
