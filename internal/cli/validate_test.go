package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func writeManifest(t *testing.T, name, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestValidateExamples(t *testing.T) {
	files, err := filepath.Glob("../../examples/manifests/*.pp")
	if err != nil || len(files) < 3 {
		t.Fatalf("example manifests: %v %v", files, err)
	}
	summary := regexp.MustCompile(`^[1-9]\d* resources?, \d+ relationships?\n$`)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			out, errOut, code := runCLI(t, "validate", f)
			if code != exitOK || !summary.MatchString(out) || errOut != "" {
				t.Fatalf("validate %s: code %d, stdout %q, stderr %q", f, code, out, errOut)
			}
		})
	}
	t.Run("all together", func(t *testing.T) {
		out, errOut, code := runCLI(t, append([]string{"validate"}, files...)...)
		if code != exitOK || !summary.MatchString(out) {
			t.Fatalf("code %d, stdout %q, stderr %q", code, out, errOut)
		}
	})
}

func TestValidateBackupExample(t *testing.T) {
	out, _, code := runCLI(t, "validate", "--json", "../../examples/manifests/backup.pp")
	if code != exitOK {
		t.Fatalf("code %d", code)
	}
	var cat jsonCatalog
	if err := json.Unmarshal([]byte(out), &cat); err != nil {
		t.Fatal(err)
	}
	refs := map[string]jsonResource{}
	for _, r := range cat.Resources {
		refs[r.Ref] = r
	}
	for _, want := range []string{"Schedule[maintenance]", "Exec[dump-database]", "Job[ship-backup]", "Service[backup-agent]", "File[/var/backups/db]"} {
		if _, ok := refs[want]; !ok {
			t.Errorf("missing %s", want)
		}
	}
	if got := refs["Exec[dump-database]"].Parameters["schedule"]; got != "maintenance" {
		t.Errorf("dump schedule = %v", got)
	}
	edges := map[string]bool{}
	for _, e := range cat.Edges {
		edges[e.Source+" "+e.Kind+" "+e.Target] = true
	}
	for _, want := range []string{
		"Class[Main] contain Job[ship-backup]",
		"File[/etc/backup-agent.conf] notify Service[backup-agent]",
		"File[/var/backups/db] auto Exec[dump-database]",
		"File[/var/backups] auto File[/var/backups/db]",
		"Class[Main] contain Exec[dump-database]",
	} {
		if !edges[want] {
			t.Errorf("missing edge %s", want)
		}
	}
}

func TestValidateErrors(t *testing.T) {
	tests := []struct {
		name, src string
		stderr    []string
	}{
		{"every error positioned", "exec { 'a': command => '/bin/a', require => Exec['nope'] }\nfoo { 'x': }\nexec { 'a': command => '/bin/b' }\n",
			[]string{
				"F:1:34: Could not find resource 'Exec[nope]' in parameter 'require'",
				"F:2:1: Unknown resource type: 'foo'",
				"F:3:8: Duplicate declaration: Exec[a] is already declared at (file: F, line: 1); cannot redeclare",
				"almanac: validate: 3 errors",
			}},
		{"syntax errors stop before compiling", "@@exec { 'x': }\n$y = lookup('k')\n",
			[]string{"F:1:1: unsupported: exported resources", "F:2:6: unsupported: function 'lookup'", "almanac: validate: 2 errors"}},
		{"cycle", "notify { 'a': before => Notify['b'] }\nnotify { 'b': }\nNotify['b'] -> Notify['a']\n",
			[]string{"Found 1 dependency cycle:", "(Notify[a] => Notify[b] => Notify[a])",
				"F:1:15: Notify[a] => Notify[b] (before)", "F:3:13: Notify[b] => Notify[a] (->)",
				"almanac: validate: 1 dependency cycle"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeManifest(t, "m.pp", tt.src)
			out, errOut, code := runCLI(t, "validate", p)
			if code != exitFailure || out != "" {
				t.Fatalf("code %d stdout %q", code, out)
			}
			want := strings.ReplaceAll(strings.Join(tt.stderr, "\n")+"\n", "F:", p+":")
			want = strings.ReplaceAll(want, "(file: F,", "(file: "+p+",")
			if errOut != want {
				t.Errorf("stderr\n got  %q\n want %q", errOut, want)
			}
		})
	}
}

func TestValidateUsage(t *testing.T) {
	if _, errOut, code := runCLI(t, "validate"); code != exitUsage || !strings.Contains(errOut, "no manifest given") {
		t.Errorf("no args: code %d stderr %q", code, errOut)
	}
	if _, errOut, code := runCLI(t, "validate", filepath.Join(t.TempDir(), "missing.pp")); code != exitUsage ||
		!strings.Contains(errOut, "no such file") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("missing file: code %d stderr %q", code, errOut)
	}
	if _, _, code := runCLI(t, "validate", "--bogus", "x.pp"); code != exitUsage {
		t.Errorf("bad flag: code %d", code)
	}
}

func TestValidateSeveralFilesOneCatalog(t *testing.T) {
	a := writeManifest(t, "a.pp", "class base { exec { 'init': command => '/bin/init' } }\n")
	b := writeManifest(t, "b.pp", "include base\nnotify { 'n': require => Exec['init'] }\n")
	out, errOut, code := runCLI(t, "validate", a, b)
	if code != exitOK || out != "2 resources, 1 relationship\n" {
		t.Fatalf("code %d stdout %q stderr %q", code, out, errOut)
	}
}

// TestManifestInputErrors checks that unreadable and binary manifests are a
// one-line usage error prefixed with the command that read them, and that a
// file with thousands of errors prints a bounded list.
func TestManifestInputErrors(t *testing.T) {
	dir := t.TempDir()
	binary := filepath.Join(dir, "garbage.bin")
	if err := os.WriteFile(binary, []byte("file {\n\x00\x01\x02"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.pp")
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"validate missing", []string{"validate", missing}, "almanac: validate: " + missing + ": no such file or directory\n"},
		{"apply missing", []string{"apply", "--noop", missing}, "almanac: apply: " + missing + ": no such file or directory\n"},
		{"apply directory", []string{"apply", "--noop", dir}, "almanac: apply: " + dir + ": not a regular file (a directory)\n"},
		{"validate binary", []string{"validate", binary}, "almanac: validate: " + binary + ":2: NUL byte: a binary file, not a manifest\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := runCLI(t, tt.args...)
			if code != exitUsage || errOut != tt.stderr {
				t.Fatalf("code %d stderr %q; want %d %q", code, errOut, exitUsage, tt.stderr)
			}
		})
	}
	t.Run("many errors", func(t *testing.T) {
		p := writeManifest(t, "many.pp", strings.Repeat("foo { 'x': }\n", 3*maxReported))
		_, errOut, code := runCLI(t, "validate", p)
		lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
		if code != exitFailure || len(lines) != maxReported+2 {
			t.Fatalf("code %d, %d lines; want %d and %d", code, len(lines), exitFailure, maxReported+2)
		}
		if lines[maxReported] != "... and 200 more" || lines[maxReported+1] != "almanac: validate: 300 errors" {
			t.Errorf("tail %q", lines[maxReported:])
		}
	})
}
