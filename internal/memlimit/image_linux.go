package memlimit

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// maxSmapsBytes bounds the read of /proc/self/smaps: a Go process maps a
// few hundred regions, each described in about a kilobyte.
const maxSmapsBytes = 16 << 20

// ReleaseImage tells the kernel that the process is done, for now, with
// the pages of its own executable it has touched so far: the code and
// read-only data that package initialisation and start-up ran through
// once. It drops them from the process's page tables (madvise
// MADV_DONTNEED on the executable's read-only mappings) and returns how
// many bytes of resident memory that was. The pages stay in the page
// cache, and the code the process goes on running faults back in at
// once, so what stays resident is the working set rather than everything
// start-up visited. Mappings the process has written to (data, or a
// read-only mapping with copy-on-write pages, such as relocations) are
// left alone: dropping those would lose the writes.
func ReleaseImage() (int64, error) {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return 0, fmt.Errorf("release image: %w", err)
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return 0, fmt.Errorf("release image: %w", err)
	}
	defer f.Close()
	regions, err := imageRegions(io.LimitReader(f, maxSmapsBytes), exe)
	if err != nil {
		return 0, fmt.Errorf("release image: %w", err)
	}
	var released int64
	for _, r := range regions {
		if _, _, errno := unix.Syscall(unix.SYS_MADVISE, r.start, r.end-r.start, unix.MADV_DONTNEED); errno != 0 {
			return released, fmt.Errorf("release image: madvise %#x-%#x: %w", r.start, r.end, errno)
		}
		released += r.rss
	}
	return released, nil
}

// region is one mapping of the executable that may be dropped.
type region struct {
	start, end uintptr
	rss        int64 // resident bytes before the drop
}

// imageRegions reads smaps and returns the read-only mappings of exe
// that hold no anonymous (copy-on-write) pages.
func imageRegions(r io.Reader, exe string) ([]region, error) {
	var (
		out  []region
		cur  *region
		keep bool
		anon int64
	)
	flush := func() {
		if cur != nil && keep && anon == 0 {
			out = append(out, *cur)
		}
		cur, keep, anon = nil, false, 0
	}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if addr, ok := strings.CutSuffix(fields[0], ":"); ok {
			// A "Key: value kB" line of the mapping above.
			if cur == nil || len(fields) < 2 {
				continue
			}
			n, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				continue
			}
			switch addr {
			case "Rss":
				cur.rss = n << 10
			case "Anonymous":
				anon = n
			}
			continue
		}
		// A mapping's header: start-end perms offset dev inode [path].
		flush()
		lo, hi, ok := strings.Cut(fields[0], "-")
		if !ok || len(fields) < 5 {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			continue
		}
		cur = &region{start: uintptr(start), end: uintptr(end)}
		keep = len(fields) >= 6 && fields[5] == exe && len(fields[1]) == 4 &&
			fields[1][0] == 'r' && fields[1][1] == '-' && fields[1][3] == 'p'
	}
	flush()
	return out, sc.Err()
}
