// Package buildinfo describes the running binary: the release version set
// at link time, and the VCS revision, commit time, tree state and Go
// version the Go toolchain records in every binary it builds.
package buildinfo

import (
	"runtime/debug"
	"strings"
	"time"
)

// Info is what a binary knows about its own build.
type Info struct {
	// Version is the release version ("0.3.0"), or "dev" for a build
	// that set none.
	Version string `json:"version"`
	// Revision is the VCS commit the binary was built from; empty when
	// the build recorded none (go test, or a tree outside version control).
	Revision string `json:"revision,omitempty"`
	// Time is the commit's time; zero when unknown.
	Time time.Time `json:"time,omitzero"`
	// Modified is true when the working tree had uncommitted changes.
	Modified bool `json:"modified"`
	// GoVersion is the toolchain that built the binary ("go1.26.0").
	GoVersion string `json:"go_version"`
}

// Read returns the running binary's build information. version and
// revision are the strings set at link time with -ldflags -X. When version
// is empty or "dev", a module version recorded by `go install module@vX`
// is used instead. revision ("COMMIT" or "COMMIT-modified") counts only
// when the toolchain recorded no VCS information, which it does not in a
// git worktree or with -buildvcs=false; the release script sets both.
func Read(version, revision string) Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return fromBuildInfo(version, revision, nil)
	}
	return fromBuildInfo(version, revision, bi)
}

// fromBuildInfo is Read over given build information (nil when the binary
// carries none).
func fromBuildInfo(version, revision string, bi *debug.BuildInfo) Info {
	in := Info{Version: version}
	in.Revision, in.Modified = strings.CutSuffix(revision, "-modified")
	if bi != nil {
		in.GoVersion = bi.GoVersion
		if (in.Version == "" || in.Version == "dev") && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			in.Version = bi.Main.Version
		}
		var rev string
		var modified bool
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				if t, err := time.Parse(time.RFC3339, s.Value); err == nil {
					in.Time = t.UTC()
				}
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if rev != "" {
			in.Revision, in.Modified = rev, modified
		}
	}
	if in.Version == "" {
		in.Version = "dev"
	}
	return in
}

// ShortRevision is the revision's first 12 characters, with "-modified"
// when the tree had uncommitted changes; empty when the revision is
// unknown.
func (in Info) ShortRevision() string {
	r := in.Revision
	if len(r) > 12 {
		r = r[:12]
	}
	if r != "" && in.Modified {
		r += "-modified"
	}
	return r
}

// Label is the one-string form the cluster view shows for a node, so two
// builds of one version from different commits tell apart:
// "0.3.0 (1a2b3c4d5e6f)", or the version alone when the revision is
// unknown.
func (in Info) Label() string {
	if r := in.ShortRevision(); r != "" {
		return in.Version + " (" + r + ")"
	}
	return in.Version
}
