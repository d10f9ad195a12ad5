package webui_test

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/almanac-sh/almanac/internal/webui"
)

// countingReader serves n bytes of filler and counts how many were read.
type countingReader struct {
	n, read int64
	served  *atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.read >= c.n {
		return 0, io.EOF
	}
	k := min(int64(len(p)), c.n-c.read)
	for i := range p[:k] {
		p[i] = 'x'
	}
	c.read += k
	c.served.Add(k)
	return int(k), nil
}

// multipartBody returns a multipart form whose one file part is size bytes.
func multipartBody(t *testing.T, size int64, served *atomic.Int64) (io.Reader, string) {
	t.Helper()
	var head bytes.Buffer
	mw := multipart.NewWriter(&head)
	if _, err := mw.CreateFormFile("upload", "big.bin"); err != nil {
		t.Fatal(err)
	}
	tail := "\r\n--" + mw.Boundary() + "--\r\n"
	return io.MultiReader(&head, &countingReader{n: size, served: served}, strings.NewReader(tail)), mw.FormDataContentType()
}

// TestBodiesAreNotReadBeforeAuth posts large bodies the UI must refuse and
// checks that nothing is written to the temporary directory and that only
// a bounded part of each body is read.
func TestBodiesAreNotReadBeforeAuth(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	const size = 64 << 20
	tests := []struct {
		name   string
		token  bool // log in first
		ctype  string
		length int64
		want   int
	}{
		{"unauthenticated multipart", false, "multipart", -1, http.StatusUnauthorized},
		{"authenticated multipart", true, "multipart", -1, http.StatusUnsupportedMediaType},
		{"authenticated huge form", true, "application/x-www-form-urlencoded", size, http.StatusRequestEntityTooLarge},
		{"authenticated chunked huge form", true, "application/x-www-form-urlencoded", -1, http.StatusRequestEntityTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, webui.Config{Token: "s3cret"})
			h.get("/login") // a browser holds the CSRF cookie
			var served atomic.Int64
			var body io.Reader
			ctype := tt.ctype
			if ctype == "multipart" {
				body, ctype = multipartBody(t, size, &served)
			} else {
				body = io.MultiReader(strings.NewReader("csrf=x&pad="), &countingReader{n: size, served: &served})
			}
			req, err := http.NewRequest(http.MethodPost, h.srv.URL+"/jobs/backup/trigger", body)
			if err != nil {
				t.Fatal(err)
			}
			req.ContentLength = tt.length
			req.Header.Set("Content-Type", ctype)
			if tt.token {
				req.Header.Set("Authorization", "Bearer s3cret")
			}
			resp, err := h.client.Do(req)
			if err != nil {
				// The server may close the connection while the client
				// still writes; that is a refusal too, but the status
				// must have been sent first in the cases tested here.
				t.Fatalf("post: %v", err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.want)
			}
			if got := served.Load(); got > 16<<20 {
				t.Errorf("the server read %d MiB of a refused body", got>>20)
			}
			entries, err := os.ReadDir(tmp)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				t.Errorf("temporary file left behind: %s", e.Name())
			}
		})
	}
}
