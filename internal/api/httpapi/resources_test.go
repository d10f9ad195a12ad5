package httpapi_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
	"github.com/almanac-sh/almanac/internal/api/apitest"
	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/api/httpapi"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/fleet"
	"github.com/almanac-sh/almanac/internal/fleet/fleetstore"
	"github.com/almanac-sh/almanac/internal/store/sqlitestore"
)

// schedFleet adapts a fleet.Scheduler driven by hand to httpapi.Fleet.
type schedFleet struct {
	*fleet.Scheduler
	fail error
}

func (f schedFleet) RunInventory(ctx context.Context) (apitype.InventoryResult, error) {
	if f.fail != nil {
		return apitype.InventoryResult{}, f.fail
	}
	err := f.Inventory(ctx)
	return apitype.InventoryResult{Time: f.LastInventory(), Resources: len(f.Resources())}, err
}

// Monday 2024-06-03 07:00 in New York.
var mon7 = time.Date(2024, 6, 3, 11, 0, 0, 0, time.UTC)

func TestResourceEndpoints(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := clock.NewFake(mon7)
	st, err := sqlitestore.Open(ctx, t.TempDir(), sqlitestore.WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	demo := fleet.NewDemo()
	s, err := fleet.New(fleet.Config{Source: demo, Clock: clk, Ledger: &fleetstore.Ledger{Store: st}, Events: &fleetstore.Events{Store: st}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(httpapi.New(httpapi.Config{Store: st, Controller: &apitest.Controller{St: st, Now: mon7}, Fleet: schedFleet{Scheduler: s}, Clock: clk}))
	defer ts.Close()
	c, _ := apiclient.New(ts.URL)

	l, err := c.ResourceList(ctx)
	if err != nil || len(l.Items) != 0 || l.LastInventory != nil {
		t.Fatalf("list before any inventory = %+v, %v", l, err)
	}
	res, err := c.Inventory(ctx)
	if err != nil || res.Resources != 8 || !res.Time.Equal(mon7) {
		t.Fatalf("inventory = %+v, %v", res, err)
	}
	l, err = c.ResourceList(ctx)
	if err != nil || len(l.Items) != 8 || l.LastInventory == nil || !l.LastInventory.Equal(mon7) {
		t.Fatalf("list = %d items, last %v, %v", len(l.Items), l.LastInventory, err)
	}
	web, err := c.ResourceGet(ctx, "demo-web-2")
	if err != nil {
		t.Fatal(err)
	}
	wantStart := time.Date(2024, 6, 3, 12, 0, 0, 0, time.UTC)
	if web.Name != "web-2" || web.State != "stopped" || web.Validation != "ok" || !web.Actionable || web.TimeZone != "America/New_York" ||
		web.NextStart == nil || !web.NextStart.Equal(wantStart) || web.NextStart.Format(time.RFC3339) != "2024-06-03T08:00:00-04:00" ||
		len(web.StartTimes) != 5 || web.StartTimes[0] != 8*60 || web.Tags["team"] != "web" || web.Errors == nil {
		t.Fatalf("web-2 = %+v", web)
	}
	broken, _ := c.ResourceGet(ctx, "demo-broken-1")
	if broken.Validation != "errors" || len(broken.Errors) != 1 || broken.Errors[0].Key != "almanac-schedule-start" || broken.Errors[0].Value != "mon0900_tue2500" {
		t.Fatalf("broken-1 = %+v", broken)
	}
	if _, err := c.ResourceGet(ctx, "nope"); !apiclient.IsNotFound(err) {
		t.Fatalf("get nope: %v", err)
	}

	// Events filter by resource and by the resource kind family.
	ev, err := c.EventList(ctx, apiclient.EventFilter{Resource: "demo-broken-1", Kinds: []string{"resource.validation-error"}})
	if err != nil || len(ev.Items) != 1 || ev.Items[0].Resource != "demo-broken-1" || !strings.Contains(string(ev.Items[0].Data), `"value":"mon0900_tue2500"`) {
		t.Fatalf("validation events = %+v, %v", ev.Items, err)
	}
	ev, err = c.EventList(ctx, apiclient.EventFilter{Kinds: []string{"resource"}, Limit: 1000})
	if err != nil || len(ev.Items) < 8 {
		t.Fatalf("resource events = %d, %v", len(ev.Items), err)
	}
	for _, e := range ev.Items {
		if !strings.HasPrefix(e.Kind, "resource.") {
			t.Errorf("kind filter 'resource' returned %s", e.Kind)
		}
	}
	if _, err := c.EventList(ctx, apiclient.EventFilter{Kinds: []string{"resource.nope"}}); err == nil || !strings.Contains(err.Error(), "resource.action-failed") {
		t.Errorf("unknown resource kind: %v", err)
	}

	// Bad input and failures are JSON errors with the right status.
	for _, tc := range []struct {
		method, path string
		code         int
	}{
		{"GET", "/api/v1/resources?x=1", http.StatusBadRequest},
		{"DELETE", "/api/v1/resources/demo-web-1", http.StatusMethodNotAllowed},
		{"GET", "/api/v1/events?resource=demo-web-1&bogus=1", http.StatusBadRequest},
	} {
		req, _ := http.NewRequest(tc.method, ts.URL+tc.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.code || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s %s = %d %s, want %d JSON", tc.method, tc.path, resp.StatusCode, resp.Header.Get("Content-Type"), tc.code)
		}
	}
	failing := httptest.NewServer(httpapi.New(httpapi.Config{Store: st, Controller: &apitest.Controller{St: st, Now: mon7},
		Fleet: schedFleet{Scheduler: s, fail: errors.New("inventory command: exit status 3: no credentials")}}))
	defer failing.Close()
	fc, _ := apiclient.New(failing.URL)
	var ae *apiclient.Error
	if _, err := fc.Inventory(ctx); !errors.As(err, &ae) || ae.Status != http.StatusServiceUnavailable || !strings.Contains(ae.API.Message, "no credentials") {
		t.Errorf("failing inventory: %v", err)
	}
	none := httptest.NewServer(httpapi.New(httpapi.Config{Store: st, Controller: &apitest.Controller{St: st, Now: mon7}}))
	defer none.Close()
	nc, _ := apiclient.New(none.URL)
	if _, err := nc.Inventory(ctx); !errors.As(err, &ae) || ae.Status != http.StatusConflict {
		t.Errorf("inventory without a fleet: %v", err)
	}
	if l, err := nc.ResourceList(ctx); err != nil || len(l.Items) != 0 || l.Items == nil {
		t.Errorf("list without a fleet = %+v, %v", l, err)
	}
}
