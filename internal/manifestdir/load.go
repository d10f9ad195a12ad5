package manifestdir

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

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
	// Dir is the directory as given to Load.
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

// read reads the manifests under dir and hashes their names and contents.
func read(dir string) ([]source, string, error) {
	files, err := Files(dir)
	if err != nil {
		return nil, "", err
	}
	h := sha256.New()
	srcs := make([]source, 0, len(files))
	var n [8]byte
	for _, p := range files {
		data, err := inputfile.Read(p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // removed since the walk: as if it were never there
			}
			return nil, "", fmt.Errorf("manifests %s: %w", dir, unwrapPath(err))
		}
		srcs = append(srcs, source{path: p, data: data})
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write([]byte(p))
		binary.BigEndian.PutUint64(n[:], uint64(len(data)))
		h.Write(n[:])
		h.Write(data)
	}
	return srcs, hex.EncodeToString(h.Sum(nil)), nil
}

// Load reads, parses and compiles every manifest under dir as one catalog
// and checks it for dependency cycles. Problems in the manifests come back
// as a manifest.ErrorList (every one, sorted, each "file:line:col:
// message"); a directory that cannot be read is a plain error. An empty
// directory is an empty catalog.
func Load(dir string) (*catalog.Catalog, []string, error) {
	s, err := load(dir)
	if err != nil {
		return nil, nil, err
	}
	return s.Catalog, s.Files, nil
}

// LoadSnapshot is Load returning the whole Snapshot, hash included.
func LoadSnapshot(dir string) (*Snapshot, error) { return load(dir) }

func load(dir string) (*Snapshot, error) {
	srcs, hash, err := read(dir)
	if err != nil {
		return nil, err
	}
	return compile(dir, srcs, hash, catalog.Options{})
}

// compile parses and compiles sources read by read. It parses statement
// by statement (catalog.CompileSources), never holding a whole syntax
// tree, and lets go of each file's bytes once it has its text: a large
// directory costs its catalog, not its source three times over.
// The runtime's memory is bounded (memlimit.Bound) while it compiles.
func compile(dir string, srcs []source, hash string, opts catalog.Options) (*Snapshot, error) {
	texts := make([]catalog.Source, len(srcs))
	files := make([]string, len(srcs))
	total := 0
	for i := range srcs {
		texts[i] = catalog.Source{Name: srcs[i].path, Text: string(srcs[i].data)}
		files[i] = srcs[i].path
		total += len(srcs[i].data)
		srcs[i].data = nil
	}
	if opts.Node == "" && opts.Facts == nil {
		opts.Node, opts.Facts = facts.Local()
	}
	defer memlimit.Bound(total)()
	// Syntax errors in any file come back alone: compiling half-parsed
	// files would only add noise.
	cat, err := catalog.CompileSources(opts, texts...)
	if err != nil {
		var el manifest.ErrorList
		if errors.As(err, &el) {
			return nil, el
		}
		return nil, fmt.Errorf("manifests %s: %w", dir, err)
	}
	if el := cycleErrors(cat); len(el) > 0 {
		return nil, el
	}
	return &Snapshot{Dir: dir, Files: files, Catalog: cat, Hash: hash, Size: total}, nil
}

// cycleErrors reports each dependency cycle at the position of its first
// relationship, with the path as Puppet prints it.
func cycleErrors(cat *catalog.Catalog) manifest.ErrorList {
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
