package zincati

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/almanac-sh/almanac/internal/inputfile"
)

// Load reads and merges fragments from paths. A path naming a file is read
// as a fragment, whatever its extension. Paths naming directories are read
// the way Zincati reads /usr/lib/zincati/config.d and /etc/zincati/config.d:
// every *.toml file in them, where a file in a later directory replaces the
// file of the same name in an earlier one, applied in lexical order of their
// names. Directory fragments are applied first, then plain files in the order
// given.
func Load(paths ...string) (*Config, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("no fragments to read")
	}
	files, err := expand(paths)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		// Only directories were given and none holds a fragment.
		return nil, fmt.Errorf("%s: no *.toml fragments in the directory: %w", strings.Join(paths, ", "), ErrNoWindows)
	}
	frags := make([]*Fragment, 0, len(files))
	for _, file := range files {
		src, err := inputfile.Read(file)
		if err != nil {
			return nil, pathError(file, err)
		}
		f, err := Parse(file, src)
		if err != nil {
			return nil, err
		}
		frags = append(frags, f)
	}
	return Merge(frags...)
}

// expand lists the fragment files named by paths, in the order they apply.
func expand(paths []string) ([]string, error) {
	byName := map[string]string{} // base name -> path, later directories win
	var plain []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, pathError(p, err)
		}
		if !info.IsDir() {
			plain = append(plain, p)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, pathError(p, err)
		}
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".toml") {
				continue
			}
			byName[e.Name()] = filepath.Join(p, e.Name())
		}
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	files := make([]string, 0, len(names)+len(plain))
	for _, n := range names {
		files = append(files, byName[n])
	}
	return append(files, plain...), nil
}

// pathError shortens "open f.toml: no such file or directory" to
// "f.toml: no such file or directory", keeping the error chain.
func pathError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", path, pe.Err)
	}
	return err
}
