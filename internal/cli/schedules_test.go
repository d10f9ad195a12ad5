package cli

import (
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/catalog"
	"github.com/almanac-sh/almanac/internal/manifest"
)

func TestCatalogValidatesSchedules(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"valid range and window", `schedule { 'w': range => '02:00 - 04:00', windows => [{days => ['Sat'], start_time => '01:00', length_minutes => 300}], time_zone => 'europe-berlin' }`, ""},
		{"bad range", `schedule { 's': range => 'foo' }`, "Parameter range failed on Schedule[s]: Invalid range value 'foo'"},
		{"bad window day", `schedule { 'w': windows => [{days => ['Funday'], start_time => '01:00', length_minutes => 5}] }`, "Parameter windows failed on Schedule[w]:"},
		{"bad zone", `schedule { 'z': range => '1 - 2', time_zone => 'Mars/Olympus' }`, "Parameter time_zone failed on Schedule[z]:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := manifest.ParseFile("site.pp", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			_, err = catalog.Compile(f)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("error = %v, want it to contain %q", err, tt.want)
			case tt.want != "" && strings.Count(err.Error(), "failed on") != 1:
				t.Fatalf("error repeats its prefix: %v", err)
			}
		})
	}
}
