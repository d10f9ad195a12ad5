// Package inputfile reads the files a user points almanac at (manifests,
// window fragments) safely: only regular files, and at most a size limit.
//
// A path naming a FIFO, a device or a socket is refused without blocking
// (reading /dev/zero would never end; opening a FIFO would wait for a
// writer forever), and a file larger than the limit is refused before it
// is read into memory.
package inputfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
)

// DefaultMaxSize is the size limit unless SetMaxSize changes it: 16 MiB.
const DefaultMaxSize = 16 << 20

// ErrNotRegular is wrapped by Read's error for a path that is not a
// regular file (after following symbolic links).
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by Read's error for a file over the size limit.
var ErrTooLarge = errors.New("file too large")

var maxSize atomic.Int64

func init() { maxSize.Store(DefaultMaxSize) }

// MaxSize returns the current size limit in bytes.
func MaxSize() int64 { return maxSize.Load() }

// SetMaxSize sets the size limit for every later Read (n > 0).
func SetMaxSize(n int64) {
	if n > 0 {
		maxSize.Store(n)
	}
}

// ParseSize reads a size such as 16777216, 512KiB, 16MiB or 1GiB (also
// KB, MB, GB, K, M and G, all powers of 1024).
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	upper := strings.ToUpper(t)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}} {
		if strings.HasSuffix(upper, u.suffix) {
			t, mult = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > (1<<40)/mult {
		return 0, fmt.Errorf("size %q: want a positive number of bytes, optionally with KiB, MiB or GiB", s)
	}
	return n * mult, nil
}

// kind names a file type for messages.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	}
	return "not a regular file"
}

// Read returns the contents of the regular file at path, refusing other
// kinds of files and files over MaxSize. Errors name the path.
func Read(path string) ([]byte, error) {
	limit := MaxSize()
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, kind(fi.Mode()))
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("%s: %w: %d bytes, over the %d-byte limit", path, ErrTooLarge, fi.Size(), limit)
	}
	// O_NONBLOCK: should the path be swapped for a FIFO after the check,
	// opening it still returns at once, and the second check refuses it.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, kind(fi.Mode()))
	}
	// Read into a buffer of the file's size (one byte more, to see EOF),
	// not one that doubles as it fills: for a large manifest that halves
	// the memory the read takes.
	b := make([]byte, 0, min(fi.Size(), limit)+1)
	for {
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		if int64(len(b)) > limit {
			break
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // the file grew since Stat
		}
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: %w: over the %d-byte limit", path, ErrTooLarge, limit)
	}
	return b, nil
}
