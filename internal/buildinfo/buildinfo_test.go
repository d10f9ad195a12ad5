package buildinfo

import (
	"runtime/debug"
	"testing"
	"time"
)

func TestFromBuildInfo(t *testing.T) {
	t.Parallel()
	vcs := func(rev, tm, mod string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev},
			{Key: "vcs.time", Value: tm}, {Key: "vcs.modified", Value: mod}}
	}
	tests := []struct {
		name    string
		version string
		// revision is the link-time one.
		revision string
		bi       *debug.BuildInfo
		want     Info
		label    string
	}{
		{
			name: "no build info", version: "", bi: nil,
			want: Info{Version: "dev"}, label: "dev",
		},
		{
			name: "release build", version: "0.3.0",
			bi: &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"},
				Settings: vcs("0123456789abcdef0123", "2026-11-27T01:02:03Z", "false")},
			want:  Info{Version: "0.3.0", Revision: "0123456789abcdef0123", Time: time.Date(2026, 11, 27, 1, 2, 3, 0, time.UTC), GoVersion: "go1.26.0"},
			label: "0.3.0 (0123456789ab)",
		},
		{
			name: "modified tree", version: "dev",
			bi: &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"},
				Settings: vcs("abcdef", "bad time", "true")},
			want:  Info{Version: "dev", Revision: "abcdef", Modified: true, GoVersion: "go1.26.0"},
			label: "dev (abcdef-modified)",
		},
		{
			name: "link-time revision when the toolchain recorded none", version: "0.3.0", revision: "fedcba9876543210-modified",
			bi:    &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}},
			want:  Info{Version: "0.3.0", Revision: "fedcba9876543210", Modified: true, GoVersion: "go1.26.0"},
			label: "0.3.0 (fedcba987654-modified)",
		},
		{
			name: "the toolchain's revision wins over the link-time one", version: "0.3.0", revision: "fedcba9876543210-modified",
			bi: &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"},
				Settings: vcs("0123456789abcdef0123", "2026-11-27T01:02:03Z", "false")},
			want:  Info{Version: "0.3.0", Revision: "0123456789abcdef0123", Time: time.Date(2026, 11, 27, 1, 2, 3, 0, time.UTC), GoVersion: "go1.26.0"},
			label: "0.3.0 (0123456789ab)",
		},
		{
			name: "go install module@version", version: "dev",
			bi:    &debug.BuildInfo{GoVersion: "go1.26.1", Main: debug.Module{Version: "v0.3.0"}},
			want:  Info{Version: "v0.3.0", GoVersion: "go1.26.1"},
			label: "v0.3.0",
		},
		{
			name: "link-time version wins over the module's", version: "0.3.1",
			bi:    &debug.BuildInfo{GoVersion: "go1.26.1", Main: debug.Module{Version: "v0.3.0"}},
			want:  Info{Version: "0.3.1", GoVersion: "go1.26.1"},
			label: "0.3.1",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fromBuildInfo(tt.version, tt.revision, tt.bi)
			if got != tt.want {
				t.Errorf("fromBuildInfo = %+v, want %+v", got, tt.want)
			}
			if l := got.Label(); l != tt.label {
				t.Errorf("Label = %q, want %q", l, tt.label)
			}
		})
	}
}

func TestReadReportsGoVersion(t *testing.T) {
	t.Parallel()
	if in := Read("1.2.3", ""); in.Version != "1.2.3" || in.GoVersion == "" {
		t.Errorf("Read = %+v, want version 1.2.3 and a Go version", in)
	}
}
