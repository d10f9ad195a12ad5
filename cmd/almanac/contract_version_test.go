package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/apitoken"
	"github.com/almanac-sh/almanac/internal/servetest"
)

// recordedVCS is what the toolchain recorded in the test binary, read by
// `go version -m`: the revision and whether the tree was modified (none in
// a git worktree or with -buildvcs=false).
func recordedVCS(t *testing.T) (revision string, modified bool) {
	t.Helper()
	out, err := exec.Command("go", "version", "-m", servetest.Binary(t)).Output()
	if err != nil {
		t.Fatalf("go version -m: %v", err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "build" {
			k, v, _ := strings.Cut(f[1], "=")
			switch k {
			case "vcs.revision":
				revision = v
			case "vcs.modified":
				modified = v == "true"
			}
		}
	}
	return revision, modified
}

// TestContractVersion checks that the binary describes its own build:
// `version --json` names the commit it was built from and the Go toolchain,
// and a daemon reports the same on /healthz, /metrics and the cluster view.
func TestContractVersion(t *testing.T) {
	t.Parallel()
	head, modified := recordedVCS(t)
	r := almanac(t, "", nil, "version", "--json")
	if r.code != 0 {
		t.Fatalf("version --json: exit %d: %s", r.code, r.stderr)
	}
	var v struct {
		Version   string `json:"version"`
		Revision  string `json:"revision"`
		Modified  bool   `json:"modified"`
		GoVersion string `json:"go_version"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		t.Fatalf("version --json: %v\n%s", err, r.stdout)
	}
	if v.Version != "dev" || v.GoVersion != runtime.Version() || v.Revision != head || v.Modified != modified {
		t.Errorf("version --json = %+v, want version dev, go %s, revision %q, modified %v", v, runtime.Version(), head, modified)
	}
	if r := almanac(t, "", nil, "version"); r.code != 0 || !strings.HasPrefix(r.stdout, "almanac dev\n") || !strings.Contains(r.stdout, "go: "+runtime.Version()) {
		t.Errorf("version = %d %q", r.code, r.stdout)
	}
	short := head
	if len(short) > 12 {
		short = short[:12]
	}
	if short != "" && v.Modified {
		short += "-modified"
	}

	d := startDaemon(t)
	get := func(path string) string {
		t.Helper()
		tok, err := apitoken.Read(d.data)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest("GET", d.url+path, nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
		}
		return string(b)
	}
	var h struct{ Version, Revision, Go_Version string }
	if err := json.Unmarshal([]byte(get("/healthz")), &h); err != nil {
		t.Fatal(err)
	}
	if h.Version != "dev" || h.Revision != short || h.Go_Version != runtime.Version() {
		t.Errorf("/healthz = %+v, want dev, %q, %s", h, short, runtime.Version())
	}
	want := `almanac_build_info{goversion="` + runtime.Version() + `",revision="` + short + `",version="dev"} 1`
	if m := get("/metrics"); !strings.Contains(m, want) {
		t.Errorf("/metrics lacks %s", want)
	}
	label := "dev"
	if short != "" {
		label += " (" + short + ")"
	}
	if c := get("/api/v1/cluster"); !strings.Contains(c, `"version":"`+label+`"`) {
		t.Errorf("/api/v1/cluster = %s, want a node at version %q", c, label)
	}
}
