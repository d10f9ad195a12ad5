package catalog

import (
	"strings"
	"testing"
)

func TestSystemTypes(t *testing.T) {
	cat, err := compileFor(t, Options{}, `package { ['hello', 'cowsay']: ensure => absent }
package { 'tool': name => 'real-tool', ensure => 1.5, provider => dnf }
user { 'ann': uid => '1001', gid => '100', groups => ['adm'] }
group { 'ops': gid => 2000 }`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range cat.Applied() {
		got = append(got, r.Ref()+" "+toString(r.Params["name"])+" "+toString(r.Params["ensure"])+" "+toString(r.Params["gid"]))
	}
	want := "Package[hello] hello absent |Package[cowsay] cowsay absent |Package[tool] real-tool 1.5 |User[ann] ann  100|Group[ops] ops  2000"
	if strings.Join(got, "|") != want {
		t.Fatalf("got  %q\nwant %q", strings.Join(got, "|"), want)
	}
	if uid := cat.Applied()[3].Params["uid"]; uid != int64(1001) {
		t.Fatalf("uid %#v, want the Integer 1001", uid)
	}
}

func TestSystemTypeErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{`package { 'p': ensure => '' }`, `site.pp:1:16: Parameter ensure failed on Package[p]: Invalid value "". Valid values are present, absent, purged, installed, latest. Valid values match /./.`},
		{`package { 'p': provider => 'pip' }`, `site.pp:1:16: Parameter provider failed on Package[p]: Invalid value "pip". Valid values are apt, dnf, yum.`},
		{`package { 'p': source => '/x.deb' }`, `site.pp:1:16: Package[p]: has no parameter named 'source'`},
		{`user { 'a': groups => ['1'] }`, `site.pp:1:13: Parameter groups failed on User[a]: Group names must be provided, not GID numbers.`},
		{`user { 'a': groups => 'x,y' }`, `site.pp:1:13: Parameter groups failed on User[a]: Group names must be provided as an array, not a comma-separated list.`},
		{`user { 'Bad Name': }`, `site.pp:1:8: Parameter name failed on User[Bad Name]: "Bad Name" is not a valid name (lower-case letters, digits, '_', '-' and '.', starting with a letter or '_', at most 32 characters)`},
		{`user { 'a': home => 'rel' }`, `site.pp:1:13: Parameter home failed on User[a]: home must be an absolute path, not 'rel'`},
		{`group { 'g': gid => -1 }`, `site.pp:1:14: Parameter gid failed on Group[g]: Invalid GID -1`},
	}
	for _, tt := range tests {
		_, err := compileFor(t, Options{}, tt.src)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s:\n got  %v\n want %s", tt.src, err, tt.want)
		}
	}
}
