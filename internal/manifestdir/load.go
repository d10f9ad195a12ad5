package manifestdir

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/almanac-sh/almanac/internal/catalog"
	"github.com/almanac-sh/almanac/internal/facts"
	"github.com/almanac-sh/almanac/internal/inputfile"
	"github.com/almanac-sh/almanac/internal/manifest"
	"github.com/almanac-sh/almanac/internal/memlimit"
)

// Ext is the file name extension of manifests.
const Ext = ".pp"

// Snapshot is one successful load of a directory.
type Snapshot struct {
	// Dir is the directory read.
	Dir string
	// Files are the manifests compiled, in the order compiled (sorted).
	Files []string
	// Catalog is the compiled catalog.
	Catalog *catalog.Catalog
	// Hash identifies the files' names and contents (hex SHA-256).
	Hash string
	// Size is the files' total size in bytes: what memlimit.Bound takes
	// for the work that follows on the catalog.
	Size int
}

// Input is manifests read into memory, ready for [Compile]: every manifest
// of a directory ([Read]) or the files a command names ([ReadFiles]).
type Input struct {
	// Dir is the directory read; "" for ReadFiles.
	Dir string
	// Files are the manifests read, in the order they compile.
	Files []string
	// Hash identifies the files' names and contents (hex SHA-256); ""
	// for ReadFiles.
	Hash string
	// Size is the files' total size in bytes.
	Size int

	srcs []source
}

// source is one manifest file read into memory.
type source struct {
	path string
	data []byte
}

// Files lists the *.pp files under dir, recursively, sorted by path. Hidden
// files and directories (names starting with '.') are skipped, so editor
// swap files and version-control directories never load.
func Files(dir string) ([]string, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("manifests %s: %w", dir, unwrapPath(err))
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("manifests %s: not a directory", dir)
	}
	var files []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), Ext) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("manifests %s: %w", dir, unwrapPath(err))
	}
	sort.Strings(files)
	return files, nil
}

// Read reads the manifests under dir ([Files]) and hashes their names and
// contents. A file removed between the walk and its read is left out, as
// if it had never been there. An empty directory is an empty Input.
func Read(dir string) (*Input, error) {
	files, err := Files(dir)
	if err != nil {
		return nil, err
	}
	var h contentHash
	in := &Input{Dir: dir, srcs: make([]source, 0, len(files))}
	for _, p := range files {
		data, err := inputfile.Read(p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // removed since the walk: as if it were never there
			}
			return nil, fmt.Errorf("manifests %s: %w", dir, unwrapPath(err))
		}
		in.add(p, data)
		h.add(p, sha256.Sum256(data))
	}
	in.Hash = h.sum()
	return in, nil
}

// contentHash identifies a directory's manifests: the SHA-256 of each
// file's name and its contents' SHA-256, in order.
type contentHash struct {
	h hash.Hash
}

func (c *contentHash) add(path string, digest [32]byte) {
	if c.h == nil {
		c.h = sha256.New()
	}
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(path)))
	c.h.Write(n[:])
	c.h.Write([]byte(path))
	c.h.Write(digest[:])
}

func (c *contentHash) sum() string {
	if c.h == nil {
		c.h = sha256.New()
	}
	return hex.EncodeToString(c.h.Sum(nil))
}

// errRead tells scan's caller to read the directory with Read, which
// reports what scan could not hash.
var errRead = errors.New("manifestdir: read the directory to see")

// scan hashes the manifests under dir as Read does, file by file through
// buf, without holding any file's contents: a poll of an unchanged
// directory then allocates next to nothing, however large its manifests.
// digests are each file's SHA-256, by path. A file scan cannot hash as
// Read would read it (not a regular file, over inputfile.MaxSize, an
// error) makes it return errRead.
func scan(dir string, buf []byte) (hash string, digests map[string][32]byte, err error) {
	files, err := Files(dir)
	if err != nil {
		return "", nil, err
	}
	var h contentHash
	digests = make(map[string][32]byte, len(files))
	limit := inputfile.MaxSize()
	for _, p := range files {
		d, err := digestFile(p, buf, limit)
		if errors.Is(err, fs.ErrNotExist) {
			continue // as Read leaves it out
		}
		if err != nil {
			return "", nil, errRead
		}
		digests[p] = d
		h.add(p, d)
	}
	return h.sum(), digests, nil
}

// digestFile is the SHA-256 of the regular file at p, read through buf;
// an error for anything Read would refuse.
func digestFile(p string, buf []byte, limit int64) ([32]byte, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return [32]byte{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return [32]byte{}, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > limit {
		return [32]byte{}, errRead
	}
	h := sha256.New()
	n, err := io.CopyBuffer(h, io.LimitReader(f, limit+1), buf)
	if err != nil {
		return [32]byte{}, err
	}
	if n > limit {
		return [32]byte{}, errRead
	}
	var d [32]byte
	h.Sum(d[:0])
	return d, nil
}

// ReadFiles reads the manifests a command names, in the order given. An
// error names the file ("path: reason"); a file with a NUL byte is refused
// with its line, since a binary file given by name is a mistake, not a
// manifest.
func ReadFiles(paths []string) (*Input, error) {
	in := &Input{srcs: make([]source, 0, len(paths))}
	for _, p := range paths {
		data, err := inputfile.Read(p)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				return nil, fmt.Errorf("%s: %w", pe.Path, pe.Err)
			}
			return nil, err
		}
		if i := bytes.IndexByte(data, 0); i >= 0 {
			return nil, fmt.Errorf("%s:%d: NUL byte: a binary file, not a manifest", p, bytes.Count(data[:i], []byte("\n"))+1)
		}
		in.add(p, data)
	}
	return in, nil
}

// digests are the SHA-256 of each file read, by path.
func (in *Input) digests() map[string][32]byte {
	out := make(map[string][32]byte, len(in.srcs))
	for _, s := range in.srcs {
		out[s.path] = sha256.Sum256(s.data)
	}
	return out
}

func (in *Input) add(p string, data []byte) {
	in.srcs = append(in.srcs, source{path: p, data: data})
	in.Files = append(in.Files, p)
	in.Size += len(data)
}

// Compile parses and compiles the manifests of in as one manifest, in
// order, for the host opts describes (this host's facts when opts names
// no node and no facts). Problems in the manifests come back as a
// manifest.ErrorList, every one sorted and positioned ("file:line:col:
// message"); syntax errors in any file come back alone, since compiling
// half-parsed files would only add noise. Dependency cycles are not
// checked here: see [Cycles].
//
// It parses statement by statement (catalog.CompileSources), never holding
// a whole syntax tree, and lets go of each file's bytes once it has its
// text, so a large directory costs its catalog, not its source three
// times over; in can be compiled once. The runtime's memory is bounded
// (memlimit.Bound) while it compiles.
func Compile(in *Input, opts catalog.Options) (*catalog.Catalog, error) {
	texts := make([]catalog.Source, len(in.srcs))
	for i := range in.srcs {
		texts[i] = catalog.Source{Name: in.srcs[i].path, Text: string(in.srcs[i].data)}
		in.srcs[i].data = nil
	}
	in.srcs = nil
	if opts.Node == "" && opts.Facts == nil {
		opts.Node, opts.Facts = facts.Local()
	}
	defer memlimit.Bound(in.Size)()
	return catalog.CompileSources(opts, texts...)
}

// CompileDir is [Read] and [Compile] of the manifests under dir.
func CompileDir(dir string, opts catalog.Options) (*catalog.Catalog, error) {
	in, err := Read(dir)
	if err != nil {
		return nil, err
	}
	return Compile(in, opts)
}

// snapshot compiles what Read read and checks it for dependency cycles:
// one load of the directory, as a Watcher takes it.
func snapshot(in *Input, opts catalog.Options) (*Snapshot, error) {
	cat, err := Compile(in, opts)
	if err != nil {
		var el manifest.ErrorList
		if errors.As(err, &el) {
			return nil, el
		}
		return nil, fmt.Errorf("manifests %s: %w", in.Dir, err)
	}
	if el := Cycles(cat); len(el) > 0 {
		return nil, el
	}
	return &Snapshot{Dir: in.Dir, Files: in.Files, Catalog: cat, Hash: in.Hash, Size: in.Size}, nil
}

// Cycles reports each dependency cycle of cat at the position of its
// first relationship, with the path as Puppet prints it; nil for none.
func Cycles(cat *catalog.Catalog) manifest.ErrorList {
	var errs manifest.ErrorList
	for _, c := range cat.CycleDetails() {
		var pos manifest.Pos
		for _, e := range c.Edges {
			if e.Pos.IsValid() {
				pos = e.Pos
				break
			}
		}
		errs.Add(pos, "Found dependency cycle: (%s)", strings.Join(c.Path, " => "))
	}
	errs.Sort()
	return errs
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
