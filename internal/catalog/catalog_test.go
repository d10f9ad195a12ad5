package catalog

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestResourcesAndContainers(t *testing.T) {
	cat := mustCompile(t, `
Exec { path => '/usr/bin:/bin', timeout => 30 }
class backup($dir = '/var/backups', $keep = 7) {
  file { $dir: ensure => directory, mode => '0750' }
  exec { 'dump':
    command => "pg_dump > ${dir}/db.sql",
    creates => "${dir}/db.sql",
    noop    => true,
  }
}
class { 'backup': keep => 3 }
define app($port = 80) {
  service { "app-${title}": ensure => running }
}
app { ['a', 'b']: }
@notify { 'unused': }
notify { 'hello': message => { 'k' => [1, 2.5, true, undef] } }
`, `
job { 'nightly': cron => '0 2 * * *', command => ['/usr/bin/backup', '--all'], env => { 'A' => 'b' } }
`)
	var refs []string
	for _, r := range cat.Resources() {
		refs = append(refs, r.Ref()+" in "+r.Container)
	}
	want := []string{
		"File[/var/backups] in Class[Backup]", "Exec[dump] in Class[Backup]",
		"Notify[unused] in Class[Main]", "Notify[hello] in Class[Main]", "Job[nightly] in Class[Main]",
		"Service[app-a] in App[a]", "Service[app-b] in App[b]",
	}
	if !reflect.DeepEqual(refs, want) {
		t.Errorf("resources\n got  %q\n want %q", refs, want)
	}
	var conts []string
	for _, r := range cat.Containers() {
		conts = append(conts, r.Ref()+" in "+r.Container)
	}
	wantC := []string{"Stage[main] in ", "Class[Main] in Stage[main]", "Class[Backup] in Stage[main]", "App[a] in Class[Main]", "App[b] in Class[Main]"}
	if !reflect.DeepEqual(conts, wantC) {
		t.Errorf("containers\n got  %q\n want %q", conts, wantC)
	}
	dump := cat.Lookup("Exec[dump]")
	wantP := map[string]any{"command": "pg_dump > /var/backups/db.sql", "creates": "/var/backups/db.sql",
		"noop": true, "path": "/usr/bin:/bin", "timeout": int64(30)}
	if !reflect.DeepEqual(dump.Params, wantP) {
		t.Errorf("Exec[dump] params = %#v", dump.Params)
	}
	if dump.Pos.Line != 5 || dump.Pos.File != "m.pp" {
		t.Errorf("Exec[dump] at %v", dump.Pos)
	}
	if got := dump.Tags; !reflect.DeepEqual(got, []string{"exec", "dump", "backup"}) {
		t.Errorf("tags = %q", got)
	}
	if !cat.Lookup("Notify[unused]").Virtual || cat.Lookup("Notify[hello]").Virtual {
		t.Error("virtual flags wrong")
	}
	if got := len(cat.Applied()); got != len(cat.Resources())-1 {
		t.Errorf("Applied() = %d resources", got)
	}
	hello := cat.Lookup("Notify[hello]").Params["message"]
	if !reflect.DeepEqual(hello, map[string]any{"k": []any{int64(1), 2.5, true, nil}}) {
		t.Errorf("message = %#v", hello)
	}
	job := cat.Lookup("Job[nightly]").Params
	if !reflect.DeepEqual(job["command"], []any{"/usr/bin/backup", "--all"}) || job["name"] != "nightly" {
		t.Errorf("job params = %#v", job)
	}
	if cat.Lookup("Class[backup]") == nil || cat.Lookup("Class['backup']") == nil || cat.Lookup("Exec[nope]") != nil {
		t.Error("Lookup of class refs")
	}
}

func TestEvaluation(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"if elsif", `$v = 2 if $v == 1 { $r = 'one' } elsif $v in [2, 3] { $r = 'few' } else { $r = 'many' }`, "few"},
		{"unless", `unless false { $r = 'ran' }`, "ran"},
		{"case regex captures", `case 'web-12' { /^db/: { $r = 'db' } /^web-(\d+)$/: { $r = "web ${1}" } default: { $r = 'x' } }`, "web 12"},
		{"case default", `case 'zzz' { 'a', 'b': { $r = 'ab' } default: { $r = 'dflt' } }`, "dflt"},
		{"selector", `$os = 'Debian' $r = $os ? { /(?i)^(debian|ubuntu)$/ => 'apt', default => 'yum' }`, "apt"},
		{"string compare is case-insensitive", `$r = ('ABC' == 'abc') ? { true => 'eq', default => 'ne' }`, "eq"},
		{"arithmetic", `$r = "${1 + 2 * 3} ${7 / 2} ${7 % 4} ${1.5 * 2}"`, "7 3 3 3.0"},
		{"array and hash ops", `$a = [1, 2] + [3] - [2] $h = {'a' => 1} + {'b' => 2} $r = "${a} ${h['b']} ${$a[-1]}"`, "[1, 3] 2 3"},
		{"each with index", `$acc = ['x', 'y'].map |$i, $v| { "${i}${v}" } $r = "${acc}"`, "['0x', '1y']"},
		{"hash each and filter", `$h = {'a' => 1, 'b' => 2, 'c' => 3} $f = $h.filter |$k, $v| { $v >= 2 } $r = "${f}"`, "{'b' => 2, 'c' => 3}"},
		{"each returns its input", `$r = "${each([1]) |$x| { }}"`, "[1]"},
		{"top scope and class vars", `$top = 't' class c { $inner = "${::top}-in" } include c $r = "${c::inner} ${top}"`, "t-in t"},
		{"lambda scope is local", `$x = 'outer' [1].each |$v| { $x2 = 'inner' } $r = $x`, "outer"},
		{"not and or", `$r = "${!true or (true and !false)}"`, "true"},
		{"match operator", `$r = "${'abc' =~ /b/} ${'abc' !~ 'z'}"`, "true true"},
		{"in on strings and hashes", `$r = "${'b' in 'ABC'} ${'k' in {'k' => 1}}"`, "true true"},
		{"escapes", `$r = "tab\there \$x \u{41}"`, "tab\there $x A"},
		{"undef is empty in strings", `$u = undef $r = "[${u}]"`, "[]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cat := mustCompile(t, tt.src+"\nnotify { 'out': message => $r }")
			if got := cat.Lookup("Notify[out]").Params["message"]; got != tt.want {
				t.Errorf("$r = %#v, want %q", got, tt.want)
			}
		})
	}
}

func TestCycles(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"none", `notify { ['a', 'b']: } Notify['a'] -> Notify['b']`, nil},
		{"two", `notify { ['a', 'b']: } Notify['a'] -> Notify['b'] -> Notify['a']`, []string{"Notify[a] Notify[b] Notify[a]"}},
		{"self", `notify { 'a': before => Notify['a'] }`, []string{"Notify[a] Notify[a]"}},
		{"three plus tail", "notify { ['a', 'b', 'c', 'd']: }\nNotify['a'] -> Notify['b'] -> Notify['c'] -> Notify['a']\nNotify['d'] -> Notify['a']",
			[]string{"Notify[a] Notify[b] Notify[c] Notify[a]"}},
		{"two components", "notify { ['p', 'q', 'x', 'y']: }\nNotify['p'] -> Notify['q'] -> Notify['p']\nNotify['x'] -> Notify['y'] -> Notify['x']",
			[]string{"Notify[p] Notify[q] Notify[p]", "Notify[x] Notify[y] Notify[x]"}},
		{"through a class", "class a { notify { 'in': } }\ninclude a\nnotify { 'out': }\nClass['a'] -> Notify['out'] -> Notify['in']",
			[]string{"Class[A] Notify[out] Notify[in] Class[A]"}},
		{"autorequire never cycles", "file { '/d': ensure => directory, require => File['/d/f'] }\nfile { '/d/f': ensure => file }", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cat := mustCompile(t, tt.src)
			var got []string
			for _, c := range cat.Cycles() {
				got = append(got, strings.Join(c, " "))
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("cycles\n got  %q\n want %q", got, tt.want)
			}
		})
	}
	// The edges that close a cycle carry their positions.
	cat := mustCompile(t, "notify { 'a': before => Notify['b'] }\nnotify { 'b': }\nNotify['b'] -> Notify['a']")
	d := cat.CycleDetails()
	if len(d) != 1 || len(d[0].Edges) != 2 || d[0].Edges[0].Pos.Line != 1 || d[0].Edges[1].Pos.Line != 3 {
		t.Fatalf("cycle details = %+v", d)
	}
}

func TestCyclesLongChainIterative(t *testing.T) {
	var b strings.Builder
	b.WriteString("notify { 'n0': }\n")
	for i := 1; i < 5000; i++ {
		b.WriteString("notify { 'n" + itoa(i) + "': require => Notify['n" + itoa(i-1) + "'] }\n")
	}
	cat := mustCompile(t, b.String())
	if c := cat.Cycles(); len(c) != 0 {
		t.Fatalf("cycles in a chain: %v", c)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

type attrErr struct{ attr, msg string }

func (e attrErr) Error() string     { return e.msg }
func (e attrErr) Attribute() string { return e.attr }

func TestValidateScheduleHook(t *testing.T) {
	defer func(old func(string, map[string]any) error) { ValidateSchedule = old }(ValidateSchedule)
	var seen map[string]any
	ValidateSchedule = func(title string, attrs map[string]any) error {
		seen = attrs
		if r, _ := attrs["range"].(string); r == "foo" {
			return attrErr{"range", "Invalid range value 'foo'"}
		}
		if _, ok := attrs["weekday"]; ok {
			return errors.New("something else")
		}
		return nil
	}
	_, err := compileSrc(t, "schedule { 's':\n  range => 'foo',\n}\nschedule { 'w': weekday => ['Mon'] }\nschedule { 'ok': period => daily, repeat => 2 }")
	want := "m.pp:2:3: Parameter range failed on Schedule[s]: Invalid range value 'foo'\nm.pp:4:12: Schedule[w]: something else"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	if !reflect.DeepEqual(seen, map[string]any{"period": "daily", "repeat": int64(2)}) {
		t.Errorf("hook saw %#v", seen)
	}
}
