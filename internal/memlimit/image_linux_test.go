package memlimit

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// smapsSample is /proc/self/smaps of a process run from /bin/almanac,
// cut to the lines imageRegions reads and one it skips.
const smapsSample = `00400000-02c2f000 r-xp 00000000 fe:00 1234 /bin/almanac
Size:              41124 kB
Rss:               16352 kB
Anonymous:             0 kB
02c2f000-04bdf000 r--p 0282f000 fe:00 1234 /bin/almanac
Rss:               19800 kB
Anonymous:             0 kB
04bdf000-04c5a000 rw-p 047df000 fe:00 1234 /bin/almanac
Rss:                 688 kB
Anonymous:           120 kB
04c5a000-04d00000 r--p 0485a000 fe:00 1234 /bin/almanac
Rss:                  40 kB
Anonymous:             8 kB
7f8a44b9d000-7f8a44cf3000 r-xp 00028000 fe:00 99 /usr/lib/x86_64-linux-gnu/libc.so.6
Rss:                 876 kB
Anonymous:             0 kB
7f8a44d00000-7f8a44e00000 rw-p 00000000 00:00 0
Rss:                 512 kB
Anonymous:           512 kB
`

func TestImageRegions(t *testing.T) {
	tests := []struct {
		name  string
		smaps string
		exe   string
		want  []region
	}{
		{"the executable's clean read-only mappings", smapsSample, "/bin/almanac", []region{
			{start: 0x400000, end: 0x2c2f000, rss: 16352 << 10},
			{start: 0x2c2f000, end: 0x4bdf000, rss: 19800 << 10},
		}},
		{"another executable: nothing", smapsSample, "/bin/other", nil},
		{"empty", "", "/bin/almanac", nil},
		{"malformed headers and values are skipped", "zzz-yyy r-xp 0 0 0 /bin/almanac\nRss: x kB\n" +
			"1000-0 r-xp 0 0 0 /bin/almanac\nRss: 4 kB\n" +
			"1000-2000 r-xp 0 0 0 /bin/almanac\nRss: 4 kB\nAnonymous:\n", "/bin/almanac", []region{
			{start: 0x1000, end: 0x2000, rss: 4 << 10},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := imageRegions(strings.NewReader(tt.smaps), tt.exe)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("regions = %+v, want %+v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("region %d = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// rssFile is this process's resident file-backed memory, in bytes.
func rssFile(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "RssFile:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no RssFile in /proc/self/status")
	return 0
}

// TestReleaseImage drops the test binary's own pages and goes on running:
// the resident file-backed memory falls, and the code runs on from the
// page cache.
func TestReleaseImage(t *testing.T) {
	before := rssFile(t)
	n, err := ReleaseImage()
	if err != nil {
		t.Fatal(err)
	}
	after := rssFile(t)
	if n <= 0 {
		t.Fatalf("released %d bytes, want some", n)
	}
	if after >= before {
		t.Errorf("RssFile %d bytes before, %d after releasing %d", before, after, n)
	}
	// The code released runs again: the test framework, fmt and strconv
	// fault back in.
	if got := strconv.Itoa(len(strings.Repeat("x", 3))); got != "3" {
		t.Fatalf("after the release: %q", got)
	}
}

func FuzzImageRegions(f *testing.F) {
	f.Add(smapsSample, "/bin/almanac")
	f.Add("1000-2000 r-xp 0 0 0 /x\nRss: 4 kB\nAnonymous: 0 kB\n", "/x")
	f.Add("1000-2000\nRss:\n:\n", "")
	f.Fuzz(func(t *testing.T, smaps, exe string) {
		regions, err := imageRegions(strings.NewReader(smaps), exe)
		if err != nil {
			return
		}
		for _, r := range regions {
			if r.end <= r.start {
				t.Fatalf("region %+v ends before it starts", r)
			}
		}
	})
}
