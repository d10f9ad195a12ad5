package webui_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/agent"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/webui"
	"github.com/almanac-sh/almanac/internal/webui/webuitest"
)

func TestAppliesPages(t *testing.T) {
	h := newHarness(t, webui.Config{})
	tests := []struct {
		path   string
		status int
		wants  []string
	}{
		{"/applies", http.StatusOK, []string{`id="agent-status"`, "every 30m 0s, splay 7m 0s", "idle",
			"schedule nightly-db for Exec[vacuum]", `<table id="applies"`, `data-apply="4" data-status="failed"`,
			`data-apply="3" data-status="changed"`, "manual: deploy 42", `data-apply="2" data-status="unchanged"`,
			"4: 0 changed, 0 failed, 1 skipped, 1 warnings", `aria-current="page">Applies`}},
		{"/applies/1", http.StatusOK, []string{`Apply #1 <span id="apply-status" class="badge changed">changed</span>`,
			`<dd id="apply-exit">2</dd>`, `data-ref="Service[postgresql]" data-status="changed"`, "<small>refreshed</small>",
			"not scheduled: outside range 02:00 - 02:30", "Triggered &#39;refresh&#39; from 1 event", "<code>File[/etc/motd]/content</code>"}},
		{"/applies/2", http.StatusOK, []string{`<ul class="findings warnings" id="apply-warnings">`, "<code>Exec[reindex]</code> (schedule sunday-0300)"}},
		{"/applies/3", http.StatusOK, []string{`<dd id="apply-trigger">schedule nightly-db for Exec[vacuum]</dd>`}},
		{"/applies/4", http.StatusOK, []string{`class="badge failed">failed`, `<dd id="apply-exit">1</dd>`,
			`<dd class="error">compile manifests: site.pp:14:3: unknown resource type &#39;servce&#39;</dd>`, "The catalog had no resources."}},
		{"/applies/9", http.StatusNotFound, []string{"apply report 9"}},
		{"/applies/x", http.StatusNotFound, []string{"report ids are positive integers"}},
		{"/applies?before=x", http.StatusBadRequest, []string{"before= parameter"}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			code, body := h.get(tt.path)
			if code != tt.status {
				t.Fatalf("GET %s = %d, want %d:\n%s", tt.path, code, tt.status, body)
			}
			mustContain(t, body, tt.wants...)
		})
	}
	// Newest first, without the full resources of each report.
	_, body := h.get("/applies")
	ids := regexp.MustCompile(`data-apply="(\d+)"`).FindAllStringSubmatch(body, -1)
	var order []string
	for _, m := range ids {
		order = append(order, m[1])
	}
	if strings.Join(order, ",") != "4,3,2,1" {
		t.Errorf("report order %v, want newest first", order)
	}
}

func TestAppliesPaging(t *testing.T) {
	back := webuitest.New(clock.NewFake(demoNow))
	back.SetAgent(agent.Status{Host: "h"})
	for i := range 5 {
		r := agent.Report{Trigger: agent.Trigger{Kind: agent.TriggerInterval}, Start: demoNow.Add(time.Duration(i) * time.Minute)}
		r.Finish()
		back.AddReport(r)
	}
	h := newHarness(t, webui.Config{Backend: back, PageSize: 2})
	pages := []struct {
		path, want, older string
	}{
		{"/applies", "5,4", "/applies?before=4"},
		{"/applies?before=4", "3,2", "/applies?before=2"},
		{"/applies?before=2", "1", ""},
	}
	for _, p := range pages {
		_, body := h.get(p.path)
		var got []string
		for _, m := range regexp.MustCompile(`data-apply="(\d+)"`).FindAllStringSubmatch(body, -1) {
			got = append(got, m[1])
		}
		if strings.Join(got, ",") != p.want {
			t.Errorf("%s: reports %v, want %s", p.path, got, p.want)
		}
		if p.older != "" && !strings.Contains(body, `href="`+p.older+`"`) {
			t.Errorf("%s: no link to %s", p.path, p.older)
		}
		if p.older == "" && strings.Contains(body, "Older") {
			t.Errorf("%s: links to an older page past the last", p.path)
		}
	}
}

func TestAppliesWithoutAgent(t *testing.T) {
	h := newHarness(t, webui.Config{Backend: webuitest.New(clock.NewFake(demoNow))})
	code, body := h.get("/applies")
	if code != http.StatusOK || !strings.Contains(body, `id="agent-off"`) {
		t.Errorf("GET /applies without an agent: %d\n%s", code, body)
	}
	if code, _ := h.get("/applies/1"); code != http.StatusNotFound {
		t.Errorf("GET /applies/1 without an agent: %d", code)
	}
}
