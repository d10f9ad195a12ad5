package notify

import (
	"context"
	"testing"

	"github.com/almanac-sh/almanac/internal/apply"
)

func TestNotify(t *testing.T) {
	var lines []string
	log := apply.LoggerFunc(func(l apply.Level, src, msg string) { lines = append(lines, l.String()+"|"+src+"|"+msg) })
	for _, tt := range []struct {
		r    *apply.Resource
		want string
	}{
		{&apply.Resource{Type: "notify", Title: "hi", Params: map[string]any{"message": "hello"}}, "hello"},
		{&apply.Resource{Type: "notify", Title: "title only"}, "title only"},
	} {
		lines = nil
		ch, err := Provider{}.Changes(context.Background(), tt.r, log)
		if err != nil || len(ch) != 1 || ch[0].Is != "'absent'" || ch[0].Should != "'"+tt.want+"'" {
			t.Fatalf("changes %+v %v", ch, err)
		}
		msg, err := ch[0].Sync(context.Background(), log)
		if err != nil || msg != "defined 'message' as '"+tt.want+"'" || len(lines) != 1 || lines[0] != "Notice||"+tt.want {
			t.Fatalf("msg %q lines %q", msg, lines)
		}
	}
}
