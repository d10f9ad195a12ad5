// Package file is the provider for file resources: plain files with content
// and mode, directories, symbolic links, and removal. Every write goes
// through a temporary file (or link) and a rename, so a reader never sees a
// half-written file.
package file

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/almanac-sh/almanac/internal/apply"
	"github.com/almanac-sh/almanac/internal/provider"
)

// Provider manages file resources.
type Provider struct{}

type spec struct {
	path, ensure, target string
	content              *string
	mode                 os.FileMode
	hasMode              bool
}

func load(r *apply.Resource) (*spec, error) {
	s := &spec{path: provider.String(r.Params, "path"), ensure: provider.String(r.Params, "ensure"), target: provider.String(r.Params, "target")}
	if s.path == "" {
		s.path = r.Title
	}
	if !filepath.IsAbs(s.path) {
		return nil, provider.Errorf("File paths must be fully qualified, not '%s'", s.path)
	}
	if _, ok := r.Params["content"]; ok && r.Params["content"] != nil {
		c := provider.String(r.Params, "content")
		s.content = &c
	}
	if m := provider.String(r.Params, "mode"); m != "" {
		n, err := strconv.ParseUint(m, 8, 32)
		if err != nil || n > 0o7777 {
			return nil, fmt.Errorf("invalid mode '%s': want an octal number such as '0644'", m)
		}
		s.mode, s.hasMode = os.FileMode(n), true
	}
	if s.ensure == "" {
		switch {
		case s.content != nil:
			s.ensure = "file"
		case s.target != "":
			s.ensure = "link"
		default:
			s.ensure = "present"
		}
	}
	switch s.ensure {
	case "present", "file", "directory", "absent", "link":
	default:
		return nil, provider.Errorf("Invalid value %q. Valid values are present, file, directory, absent, link", s.ensure)
	}
	if s.ensure == "link" && s.target == "" {
		return nil, errors.New("ensure => link needs a target")
	}
	return s, nil
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return "{sha256}" + hex.EncodeToString(h[:])
}

func kindOf(fi fs.FileInfo) string {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return "link"
	case fi.IsDir():
		return "directory"
	}
	return "file"
}

func quote(s string) string { return "'" + s + "'" }

func modeText(m os.FileMode) string {
	return fmt.Sprintf("%04o", uint32(m.Perm()|m&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky)))
}

// Changes compares the file on disk with the resource.
func (Provider) Changes(_ context.Context, r *apply.Resource, _ apply.Logger) ([]apply.Change, error) {
	s, err := load(r)
	if err != nil {
		return nil, err
	}
	fi, err := os.Lstat(s.path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	is := "absent"
	if exists {
		is = kindOf(fi)
	}
	switch s.ensure {
	case "absent":
		if !exists {
			return nil, nil
		}
		return []apply.Change{{Property: "ensure", Is: quote(is), Should: "'absent'", Sync: func(context.Context, apply.Logger) (string, error) {
			if err := os.Remove(s.path); err != nil {
				return "", err
			}
			return "removed", nil
		}}}, nil
	case "link":
		if exists && is == "link" {
			cur, err := os.Readlink(s.path)
			if err != nil {
				return nil, err
			}
			if cur == s.target {
				return nil, nil
			}
			return []apply.Change{{Property: "target", Is: quote(cur), Should: quote(s.target), Sync: func(context.Context, apply.Logger) (string, error) {
				return fmt.Sprintf("target changed '%s' to '%s'", cur, s.target), symlinkAtomic(s.target, s.path)
			}}}, nil
		}
		if exists && is == "directory" {
			return nil, provider.Errorf("Could not set 'link' on ensure: %s is a directory", s.path)
		}
		return []apply.Change{{Property: "ensure", Is: quote(is), Should: "'link'", Sync: func(context.Context, apply.Logger) (string, error) {
			return "created", symlinkAtomic(s.target, s.path)
		}}}, nil
	case "directory":
		if !exists || is != "directory" {
			if exists {
				return nil, provider.Errorf("Could not set 'directory' on ensure: %s is a %s", s.path, is)
			}
			mode := os.FileMode(0o755)
			if s.hasMode {
				mode = s.mode
			}
			return []apply.Change{{Property: "ensure", Is: quote(is), Should: "'directory'", Sync: func(context.Context, apply.Logger) (string, error) {
				if err := os.Mkdir(s.path, mode); err != nil {
					return "", err
				}
				return "created", os.Chmod(s.path, mode)
			}}}, nil
		}
		return s.modeChange(fi), nil
	}
	// file or present
	if exists && is != "file" {
		if s.ensure == "present" {
			return s.modeChange(fi), nil
		}
		return nil, provider.Errorf("Could not set 'file' on ensure: %s is a %s", s.path, is)
	}
	if !exists {
		mode := os.FileMode(0o644)
		if s.hasMode {
			mode = s.mode
		}
		content := []byte{}
		msg := "created"
		if s.content != nil {
			content = []byte(*s.content)
			msg = "defined content as '" + sum(content) + "'"
		}
		return []apply.Change{{Property: "ensure", Is: "'absent'", Should: quote(s.ensure), Sync: func(context.Context, apply.Logger) (string, error) {
			return msg, apply.WriteFileAtomic(s.path, content, mode)
		}}}, nil
	}
	var changes []apply.Change
	if s.content != nil {
		cur, err := os.ReadFile(s.path)
		if err != nil {
			return nil, err
		}
		if string(cur) != *s.content {
			from, to := sum(cur), sum([]byte(*s.content))
			content := []byte(*s.content)
			mode := fi.Mode().Perm()
			changes = append(changes, apply.Change{Property: "content", Is: quote(from), Should: quote(to), Sync: func(context.Context, apply.Logger) (string, error) {
				return fmt.Sprintf("content changed '%s' to '%s'", from, to), apply.WriteFileAtomic(s.path, content, mode)
			}})
		}
	}
	return append(changes, s.modeChange(fi)...), nil
}

func (s *spec) modeChange(fi fs.FileInfo) []apply.Change {
	if !s.hasMode || fi.Mode()&fs.ModeSymlink != 0 {
		return nil
	}
	cur := fi.Mode().Perm() | fi.Mode()&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky)
	want := goMode(s.mode)
	if cur == want {
		return nil
	}
	from, to := modeText(cur), modeText(want)
	return []apply.Change{{Property: "mode", Is: quote(from), Should: quote(to), Sync: func(context.Context, apply.Logger) (string, error) {
		return fmt.Sprintf("mode changed '%s' to '%s'", from, to), os.Chmod(s.path, want)
	}}}
}

// goMode turns Unix permission bits (with setuid 04000 etc.) into an os.FileMode.
func goMode(m os.FileMode) os.FileMode {
	out := m & 0o777
	if m&0o4000 != 0 {
		out |= fs.ModeSetuid
	}
	if m&0o2000 != 0 {
		out |= fs.ModeSetgid
	}
	if m&0o1000 != 0 {
		out |= fs.ModeSticky
	}
	return out
}

// symlinkAtomic points path at target by creating the link under a
// temporary name and renaming it over path.
func symlinkAtomic(target, path string) error {
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".almanac-link")
	_ = os.Remove(tmp)
	if err := os.Symlink(target, tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
