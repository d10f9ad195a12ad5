package audit_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/almanac-sh/almanac/internal/audit"
)

func TestActor(t *testing.T) {
	for _, tc := range []struct {
		a    audit.Actor
		want string
	}{
		{audit.Actor{Name: "alice", Via: audit.ViaUI, Remote: "10.0.0.7"}, "alice (ui, 10.0.0.7)"},
		{audit.Actor{Name: "manifest:/etc/a.pp", Via: audit.ViaReload}, "manifest:/etc/a.pp (reload)"},
		{audit.Actor{Name: "bob", Remote: "::1"}, "bob (::1)"},
		{audit.Actor{Via: audit.ViaAPI}, ""},
	} {
		if got := tc.a.String(); got != tc.want {
			t.Errorf("%+v = %q; want %q", tc.a, got, tc.want)
		}
	}
	var rec audit.Actor
	ctx := audit.With(audit.WithRecorder(context.Background(), &rec), audit.Actor{Name: "alice"})
	if a, ok := audit.From(ctx); !ok || a.Name != "alice" || rec.Name != "alice" {
		t.Errorf("From = %+v %v, recorder %+v", a, ok, rec)
	}
	if _, ok := audit.From(context.Background()); ok {
		t.Error("an empty context carries an actor")
	}
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "[2001:db8::1]:4242"
	if got := audit.Remote(r); got != "2001:db8::1" {
		t.Errorf("Remote = %q", got)
	}
}
