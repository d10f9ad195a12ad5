package packaging

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/testenv"
)

// ociDescriptor is a content descriptor of the OCI image spec.
type ociDescriptor struct {
	MediaType   string                             `json:"mediaType"`
	Digest      string                             `json:"digest"`
	Size        int64                              `json:"size"`
	Platform    *struct{ Architecture, OS string } `json:"platform"`
	Annotations map[string]string                  `json:"annotations"`
}

// ociBlob reads the blob d names from the layout dir, checking its size
// and digest.
func ociBlob(t *testing.T, dir string, d ociDescriptor) []byte {
	t.Helper()
	hexSum, ok := strings.CutPrefix(d.Digest, "sha256:")
	if !ok {
		t.Fatalf("digest %q is not sha256", d.Digest)
	}
	b, err := os.ReadFile(filepath.Join(dir, "blobs", "sha256", hexSum))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	if hex.EncodeToString(sum[:]) != hexSum || int64(len(b)) != d.Size {
		t.Fatalf("blob %s: digest or size (%d, want %d) does not match", d.Digest, len(b), d.Size)
	}
	return b
}

// TestOCIImageLayout runs scripts/oci-image on two stand-in binaries and
// walks the layout it writes as a runtime would: index.json, the image
// index of the architectures, each manifest, config and layer, checking
// every digest and size, the image's settings (non-root user, the
// /var/lib/almanac volume, labels) and the layer's files with their
// owners and modes; then skopeo reads it, when installed.
func TestOCIImageLayout(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bin := filepath.Join(dir, "almanac")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho stand-in\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	layout := filepath.Join(dir, "oci")
	run := func() {
		t.Helper()
		out, err := exec.Command("../scripts/oci-image", "1.2.3", "abc123", "1764000000", layout, "amd64="+bin, "arm64="+bin).CombinedOutput()
		if err != nil {
			t.Fatalf("scripts/oci-image: %v\n%s", err, out)
		}
	}
	run()
	indexJSON, err := os.ReadFile(filepath.Join(layout, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(layout, "oci-layout")); err != nil || !strings.Contains(string(b), `"imageLayoutVersion":"1.0.0"`) {
		t.Fatalf("oci-layout: %q %v", b, err)
	}
	type index struct {
		SchemaVersion int             `json:"schemaVersion"`
		MediaType     string          `json:"mediaType"`
		Manifests     []ociDescriptor `json:"manifests"`
	}
	var top index
	if err := json.Unmarshal(indexJSON, &top); err != nil || top.SchemaVersion != 2 || len(top.Manifests) != 1 {
		t.Fatalf("index.json: %v %s", err, indexJSON)
	}
	if top.Manifests[0].Annotations["org.opencontainers.image.ref.name"] != "1.2.3" || top.Manifests[0].MediaType != "application/vnd.oci.image.index.v1+json" {
		t.Fatalf("index.json does not name the image index 1.2.3: %s", indexJSON)
	}
	var arches index
	if err := json.Unmarshal(ociBlob(t, layout, top.Manifests[0]), &arches); err != nil || len(arches.Manifests) != 2 {
		t.Fatalf("image index: %v %+v", err, arches)
	}
	for i, want := range []string{"amd64", "arm64"} {
		d := arches.Manifests[i]
		if d.Platform == nil || d.Platform.Architecture != want || d.Platform.OS != "linux" || d.MediaType != "application/vnd.oci.image.manifest.v1+json" {
			t.Fatalf("manifest %d: %+v", i, d)
		}
		var m struct {
			SchemaVersion int             `json:"schemaVersion"`
			Config        ociDescriptor   `json:"config"`
			Layers        []ociDescriptor `json:"layers"`
		}
		if err := json.Unmarshal(ociBlob(t, layout, d), &m); err != nil || m.SchemaVersion != 2 || len(m.Layers) != 1 ||
			m.Config.MediaType != "application/vnd.oci.image.config.v1+json" || m.Layers[0].MediaType != "application/vnd.oci.image.layer.v1.tar+gzip" {
			t.Fatalf("manifest %s: %v %+v", want, err, m)
		}
		var cfg struct {
			Architecture, OS string
			Config           struct {
				User       string
				Entrypoint []string
				Cmd        []string
				Volumes    map[string]struct{}
				Labels     map[string]string
			}
			RootFS struct {
				Type    string   `json:"type"`
				DiffIDs []string `json:"diff_ids"`
			} `json:"rootfs"`
		}
		if err := json.Unmarshal(ociBlob(t, layout, m.Config), &cfg); err != nil {
			t.Fatal(err)
		}
		if cfg.Architecture != want || cfg.OS != "linux" || cfg.Config.User != "65532:65532" || cfg.Config.Entrypoint[0] != "/usr/bin/almanac" ||
			strings.Join(cfg.Config.Cmd, " ") != "serve --data /var/lib/almanac --listen 0.0.0.0:8080" {
			t.Errorf("config %s: %+v", want, cfg)
		}
		if _, ok := cfg.Config.Volumes["/var/lib/almanac"]; !ok {
			t.Errorf("config %s declares no /var/lib/almanac volume", want)
		}
		if cfg.Config.Labels["org.opencontainers.image.version"] != "1.2.3" || cfg.Config.Labels["org.opencontainers.image.revision"] != "abc123" {
			t.Errorf("labels %s: %v", want, cfg.Config.Labels)
		}
		gz := ociBlob(t, layout, m.Layers[0])
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			t.Fatal(err)
		}
		raw, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(raw)
		if cfg.RootFS.Type != "layers" || len(cfg.RootFS.DiffIDs) != 1 || cfg.RootFS.DiffIDs[0] != "sha256:"+hex.EncodeToString(sum[:]) {
			t.Errorf("rootfs %s: %+v, want the uncompressed layer's digest", want, cfg.RootFS)
		}
		files := map[string]*tar.Header{}
		tr := tar.NewReader(bytes.NewReader(raw))
		for {
			h, err := tr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			files[strings.TrimPrefix(h.Name, "./")] = h
			if h.Name == "./etc/passwd" {
				if b, _ := io.ReadAll(tr); !strings.Contains(string(b), "nonroot:x:65532:65532:") {
					t.Errorf("/etc/passwd: %s", b)
				}
			}
		}
		for name, w := range map[string]struct {
			mode int64
			uid  int
		}{
			"usr/bin/almanac": {0o755, 0}, "var/lib/almanac/": {0o700, 65532}, "tmp/": {0o1777, 0},
			"etc/ssl/certs/ca-certificates.crt": {0o644, 0}, "etc/passwd": {0o644, 0}, "etc/group": {0o644, 0},
		} {
			h := files[name]
			if h == nil {
				t.Errorf("layer %s lacks %s (has %v)", want, name, len(files))
				continue
			}
			if h.Mode&0o7777 != w.mode || h.Uid != w.uid || h.ModTime.Unix() != 1764000000 {
				t.Errorf("layer %s: %s mode %o uid %d time %v, want %o %d at the given epoch", want, name, h.Mode, h.Uid, h.ModTime, w.mode, w.uid)
			}
		}
	}
	// Reproducible: a second run writes the same image.
	run()
	if again, _ := os.ReadFile(filepath.Join(layout, "index.json")); !bytes.Equal(again, indexJSON) {
		t.Errorf("a second run wrote another image:\n%s\n%s", indexJSON, again)
	}

	skopeo := testenv.LookPath(t, "skopeo", "install Debian's skopeo (scripts/test.d/packaging-tools.sh)", "skopeo")
	for _, arch := range []string{"amd64", "arm64"} {
		out, err := exec.Command(skopeo, "inspect", "--override-arch", arch, "oci:"+layout+":1.2.3").CombinedOutput()
		if err != nil || !strings.Contains(string(out), `"Architecture": "`+arch+`"`) || !strings.Contains(string(out), `"org.opencontainers.image.version": "1.2.3"`) {
			t.Errorf("skopeo inspect --override-arch %s: %v\n%s", arch, err, out)
		}
	}
	// A copy checks every blob's digest on the way.
	if out, err := exec.Command(skopeo, "copy", "--override-arch", "arm64", "oci:"+layout+":1.2.3", "dir:"+filepath.Join(dir, "copy")).CombinedOutput(); err != nil {
		t.Errorf("skopeo copy: %v\n%s", err, out)
	}
}
