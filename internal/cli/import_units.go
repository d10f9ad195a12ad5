package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/almanac-sh/almanac/internal/importer"
	"github.com/almanac-sh/almanac/internal/inputfile"
)

// This file finds the unit files `import timer` reads the way systemd's
// system manager finds them: the unit search path, symlinks (enabled
// timers in timers.target.wants are links), template instances and
// drop-ins.

// systemUnitDirs is the system manager's unit search path, highest
// priority first (systemd.unit(5)), with Debian's /lib/systemd/system.
var systemUnitDirs = []string{"/etc/systemd/system", "/run/systemd/system", "/usr/local/lib/systemd/system",
	"/usr/lib/systemd/system", "/lib/systemd/system"}

// maxUnitFiles bounds how many unit files a directory import reads, and
// how many drop-ins one unit has.
const maxUnitFiles = 4096

// maxSymlinks bounds the links followed resolving one path, as the kernel
// bounds them.
const maxSymlinks = 40

// unitPath looks units up. Paths are the host's, or under root when set
// (symlinks resolved inside root, as systemd's --root does).
type unitPath struct {
	root string
}

// dirs is the search path, with beside (directories outside it that the
// timer was found in) first, and no directory twice.
func (p unitPath) dirs(beside ...string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(d string) {
		if d != "" && !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	for _, d := range beside {
		add(d)
	}
	for _, d := range systemUnitDirs {
		add(p.host(d))
	}
	return out
}

// host is the path on this machine of the unit path d.
func (p unitPath) host(d string) string {
	if p.root == "" {
		return d
	}
	return filepath.Join(p.root, d)
}

// inSearchPath reports whether the host directory d is a directory of the
// search path, or a .wants/.requires directory in one.
func (p unitPath) inSearchPath(d string) bool {
	for _, s := range systemUnitDirs {
		h := p.host(s)
		if d == h || filepath.Dir(d) == h && (strings.HasSuffix(d, ".wants") || strings.HasSuffix(d, ".requires")) {
			return true
		}
	}
	return false
}

// resolve follows the symlinks of file, confined to root when set; an
// error for a link loop or a file that does not exist.
func (p unitPath) resolve(file string) (string, error) {
	if p.root == "" {
		return filepath.EvalSymlinks(file)
	}
	root := filepath.Clean(p.root)
	rel, err := filepath.Rel(root, filepath.Clean(file))
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", fmt.Errorf("%s is not under --root %s", file, root)
	}
	todo := strings.Split(rel, "/")
	cur := root
	for links := 0; len(todo) > 0; {
		part := todo[0]
		todo = todo[1:]
		switch part {
		case "", ".":
			continue
		case "..":
			if cur != root {
				cur = filepath.Dir(cur)
			}
			continue
		}
		next := filepath.Join(cur, part)
		fi, err := os.Lstat(next)
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if links++; links > maxSymlinks {
			return "", fmt.Errorf("%s: too many levels of symbolic links", file)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			cur = root
		}
		todo = append(strings.Split(target, "/"), todo...)
	}
	return cur, nil
}

// read reads the unit file at file (symlinks followed), refusing a masked
// unit (a link to /dev/null).
func (p unitPath) read(file string) ([]byte, string, error) {
	real, err := p.resolve(file)
	if err != nil {
		return nil, "", err
	}
	if real == "/dev/null" || p.root != "" && real == p.host("/dev/null") {
		return nil, "", fmt.Errorf("%s is masked (a link to /dev/null)", file)
	}
	b, err := inputfile.Read(real)
	return b, real, err
}

// find returns the file of the unit name in dirs; for a template instance
// (pg_dump@15-main.service) without a file of its own, the template's
// (pg_dump@.service). fs.ErrNotExist when there is neither.
func (p unitPath) find(name string, dirs []string) (string, error) {
	names := []string{name}
	if t := templateOf(name); t != "" {
		names = append(names, t)
	}
	for _, n := range names {
		for _, d := range dirs {
			f := filepath.Join(d, n)
			if _, err := p.resolve(f); err == nil {
				return f, nil
			}
		}
	}
	return "", fs.ErrNotExist
}

// templateOf is the template of an instance name (a@b.service:
// a@.service), "" for a name that is no instance.
func templateOf(name string) string {
	prefix, rest, ok := strings.Cut(name, "@")
	ext := filepath.Ext(rest)
	if !ok || rest == ext {
		return ""
	}
	return prefix + "@" + ext
}

// dropIns returns the NAME.d/*.conf files of the unit name (and of its
// template, for an instance) across dirs, in the order systemd applies
// them: by file name, a name in an earlier directory hiding the same name
// in a later one.
func (p unitPath) dropIns(name string, dirs []string) ([]importer.UnitSource, error) {
	names := []string{name}
	if t := templateOf(name); t != "" {
		names = append(names, t)
	}
	found := map[string]string{} // file name -> path
	for _, d := range dirs {
		for _, n := range names {
			matches, _ := filepath.Glob(filepath.Join(d, n+".d", "*.conf"))
			for _, m := range matches {
				if _, ok := found[filepath.Base(m)]; !ok {
					found[filepath.Base(m)] = m
				}
			}
		}
	}
	if len(found) > maxUnitFiles {
		return nil, fmt.Errorf("%s: %d drop-ins, over the %d this command reads", name, len(found), maxUnitFiles)
	}
	keys := make([]string, 0, len(found))
	for k := range found {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []importer.UnitSource
	for _, k := range keys {
		b, _, err := p.read(found[k])
		if err != nil {
			// A masked drop-in (a link to /dev/null) is one systemd skips.
			if strings.Contains(err.Error(), "is masked") {
				continue
			}
			return nil, err
		}
		out = append(out, importer.UnitSource{Path: found[k], Data: b})
	}
	return out, nil
}

// timer reads the timer at file with its drop-ins, reported by the name
// name (the path with an instance's unit name when file is its template),
// and returns the directories outside the search path it was found in (as
// named and after its links), where its service is looked for first.
func (p unitPath) timer(file, name string) (importer.UnitSource, []string, error) {
	b, real, err := p.read(file)
	if err != nil {
		return importer.UnitSource{}, nil, err
	}
	var beside []string
	for _, d := range []string{filepath.Dir(file), filepath.Dir(real)} {
		if !p.inSearchPath(d) {
			beside = append(beside, d)
		}
	}
	src := importer.UnitSource{Path: name, Data: b}
	if src.DropIns, err = p.dropIns(filepath.Base(name), p.dirs(beside...)); err != nil {
		return importer.UnitSource{}, nil, err
	}
	return src, beside, nil
}

// timerFile is a timer to read and the name it is reported by.
type timerFile struct{ file, name string }

// timerInputs returns the timers to import and a loader for their
// services: UNIT.timer [UNIT.service], or every *.timer in a directory
// (links followed: timers.target.wants lists the enabled timers). A unit
// named without a directory that is not in the current one is looked up
// in the search path, an instance in its template. A timer's service is
// the one named, else found beside the timer (when that is outside the
// search path) or in the search path, an instance's in its template; each
// unit comes with its drop-ins.
func timerInputs(files []string, root string) ([]importer.UnitSource, importer.ServiceLoader, error) {
	p := unitPath{root: root}
	if root != "" {
		if st, err := os.Stat(root); err != nil || !st.IsDir() {
			return nil, nil, fmt.Errorf("--root %s: not a directory", root)
		}
	}
	var list []timerFile
	if st, err := os.Stat(files[0]); err == nil && st.IsDir() {
		if len(files) > 1 {
			return nil, nil, fmt.Errorf("a directory imports every timer in it; name no service")
		}
		matches, err := filepath.Glob(filepath.Join(files[0], "*.timer"))
		if err != nil {
			return nil, nil, err
		}
		if len(matches) == 0 {
			return nil, nil, fmt.Errorf("%s: no *.timer file", files[0])
		}
		if len(matches) > maxUnitFiles {
			return nil, nil, fmt.Errorf("%s: %d timers, over the %d this command reads", files[0], len(matches), maxUnitFiles)
		}
		sort.Strings(matches)
		for _, m := range matches {
			list = append(list, timerFile{m, m})
		}
	} else {
		file := files[0]
		if !strings.HasSuffix(file, ".timer") {
			return nil, nil, fmt.Errorf("%s: not a .timer unit or a directory", file)
		}
		name := file
		if _, err := os.Stat(file); errors.Is(err, fs.ErrNotExist) && !strings.ContainsRune(file, '/') {
			found, err := p.find(file, p.dirs())
			if err != nil {
				return nil, nil, fmt.Errorf("%s: no such file here or in the unit search path", file)
			}
			file, name = found, filepath.Join(filepath.Dir(found), file)
		}
		list = append(list, timerFile{file, name})
	}
	var timers []importer.UnitSource
	beside := map[string][]string{}
	for _, t := range list {
		src, dirs, err := p.timer(t.file, t.name)
		if err != nil {
			return nil, nil, err
		}
		beside[src.Path] = dirs
		timers = append(timers, src)
	}
	given := ""
	if len(files) == 2 {
		given = files[1]
	}
	load := func(timer importer.UnitSource, name string) (importer.UnitSource, error) {
		if strings.ContainsRune(name, '/') || name == ".." {
			return importer.UnitSource{}, fmt.Errorf("%q is not a unit name", name)
		}
		dirs := p.dirs(beside[timer.Path]...)
		file := given
		if file == "" {
			f, err := p.find(name, dirs)
			if err != nil {
				return importer.UnitSource{}, fmt.Errorf("%s: not beside the timer or in the unit search path (%s)", name, strings.Join(dirs, ", "))
			}
			file = f
		}
		b, _, err := p.read(file)
		if err != nil {
			return importer.UnitSource{}, err
		}
		src := importer.UnitSource{Path: file, Data: b}
		if src.DropIns, err = p.dropIns(name, dirs); err != nil {
			return importer.UnitSource{}, err
		}
		return src, nil
	}
	return timers, load, nil
}
