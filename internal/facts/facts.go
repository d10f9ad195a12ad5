// Package facts gathers the small set of host facts manifests can test
// through $facts: the host and domain names, the operating system's family,
// name and major release, the kernel, the time zone and the processor
// count, named and shaped as Facter names them. Every source is injectable,
// so tests describe a host instead of reading this one.
package facts

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"runtime"
	"strings"
	"time"
)

// Host is where facts are read from. A nil field uses the running host.
type Host struct {
	// ReadFile reads a file such as /etc/os-release (bounded reads only).
	ReadFile func(name string) ([]byte, error)
	// Hostname returns the host name as the kernel knows it.
	Hostname func() (string, error)
	// Now is the current time; its zone abbreviation is the timezone fact.
	Now func() time.Time
	// Kernel is the kernel's name (default: runtime.GOOS, capitalized).
	Kernel string
	// CPUs counts the logical processors when /proc/cpuinfo says nothing.
	CPUs func() int
}

// maxFactFile bounds how much of any file is read.
const maxFactFile = 1 << 20

func readBounded(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var b bytes.Buffer
	_, err = b.ReadFrom(&limited{f: f, n: maxFactFile})
	return b.Bytes(), err
}

type limited struct {
	f *os.File
	n int
}

func (l *limited) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, errors.New("file too large for a fact")
	}
	if len(p) > l.n {
		p = p[:l.n]
	}
	n, err := l.f.Read(p)
	l.n -= n
	return n, err
}

func (h Host) withDefaults() Host {
	if h.ReadFile == nil {
		h.ReadFile = readBounded
	}
	if h.Hostname == nil {
		h.Hostname = os.Hostname
	}
	if h.Now == nil {
		h.Now = time.Now
	}
	if h.Kernel == "" {
		h.Kernel = strings.ToUpper(runtime.GOOS[:1]) + runtime.GOOS[1:]
	}
	if h.CPUs == nil {
		h.CPUs = runtime.NumCPU
	}
	return h
}

// Gather reads the facts of h and returns them as nested maps, the shape
// of Puppet's $facts: {"os" => {"family" => "Debian", "release" =>
// {"major" => "12"}}, ...}. Facts that cannot be read are left out rather
// than guessed; a missing os-release leaves out the os facts.
func Gather(h Host) map[string]any {
	h = h.withDefaults()
	out := map[string]any{"kernel": h.Kernel}
	name, _ := h.Hostname()
	if name != "" {
		host, domain, _ := strings.Cut(name, ".")
		if domain == "" {
			domain = resolvDomain(h)
		}
		netw := map[string]any{"hostname": host, "fqdn": host}
		if domain != "" {
			netw["domain"] = domain
			netw["fqdn"] = host + "." + domain
		}
		out["networking"] = netw
	}
	if osf := osFacts(h); osf != nil {
		out["os"] = osf
	}
	if zone, _ := h.Now().Zone(); zone != "" {
		out["timezone"] = zone
	}
	n := cpuinfoCount(h)
	if n == 0 {
		n = h.CPUs()
	}
	out["processors"] = map[string]any{"count": int64(n)}
	return out
}

// resolvDomain is the domain from /etc/resolv.conf: its domain line, else
// the first search domain, as Facter does.
func resolvDomain(h Host) string {
	b, err := h.ReadFile("/etc/resolv.conf")
	if err != nil {
		return ""
	}
	var search string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case "domain":
			return strings.TrimSuffix(f[1], ".")
		case "search":
			if search == "" {
				search = strings.TrimSuffix(f[1], ".")
			}
		}
	}
	return search
}

func cpuinfoCount(h Host) int {
	b, err := h.ReadFile("/proc/cpuinfo")
	if err != nil {
		return 0
	}
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if k, _, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "processor" {
			n++
		}
	}
	return n
}

// ParseOSRelease reads the KEY=value lines of an os-release file,
// unquoting values.
func ParseOSRelease(b []byte) map[string]string {
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		out[k] = v
	}
	return out
}

// osNames are Facter's os.name values for os-release IDs, and the family
// each belongs to.
var osNames = map[string]struct{ name, family string }{
	"debian":    {"Debian", "Debian"},
	"ubuntu":    {"Ubuntu", "Debian"},
	"raspbian":  {"Raspbian", "Debian"},
	"linuxmint": {"LinuxMint", "Debian"},
	"rhel":      {"RedHat", "RedHat"},
	"centos":    {"CentOS", "RedHat"},
	"fedora":    {"Fedora", "RedHat"},
	"rocky":     {"Rocky", "RedHat"},
	"almalinux": {"AlmaLinux", "RedHat"},
	"ol":        {"OracleLinux", "RedHat"},
	"amzn":      {"Amazon", "RedHat"},
	"sles":      {"SLES", "Suse"},
	"opensuse":  {"OpenSuSE", "Suse"},
	"arch":      {"Archlinux", "Archlinux"},
	"alpine":    {"Alpine", "Alpine"},
	"gentoo":    {"Gentoo", "Gentoo"},
}

// familyOfLike maps an ID_LIKE entry to a family.
var familyOfLike = map[string]string{
	"debian": "Debian", "ubuntu": "Debian", "rhel": "RedHat", "fedora": "RedHat", "centos": "RedHat",
	"suse": "Suse", "opensuse": "Suse", "arch": "Archlinux",
}

func osFacts(h Host) map[string]any {
	b, err := h.ReadFile("/etc/os-release")
	if errors.Is(err, fs.ErrNotExist) {
		b, err = h.ReadFile("/usr/lib/os-release")
	}
	if err != nil {
		return nil
	}
	rel := ParseOSRelease(b)
	id := strings.ToLower(rel["ID"])
	if strings.HasPrefix(id, "opensuse") {
		id = "opensuse"
	}
	name, family := rel["NAME"], ""
	if known, ok := osNames[id]; ok {
		name, family = known.name, known.family
	}
	if family == "" {
		for _, like := range strings.Fields(rel["ID_LIKE"]) {
			if f, ok := familyOfLike[like]; ok {
				family = f
				break
			}
		}
	}
	if family == "" {
		family = name
	}
	full := rel["VERSION_ID"]
	major := full
	// Facter's major release of Ubuntu is "22.04"; elsewhere the part
	// before the first dot.
	if id != "ubuntu" {
		major, _, _ = strings.Cut(full, ".")
	}
	release := map[string]any{"full": full, "major": major}
	if _, minor, ok := strings.Cut(full, "."); ok && id != "ubuntu" {
		minor, _, _ = strings.Cut(minor, ".")
		release["minor"] = minor
	}
	return map[string]any{"family": family, "name": name, "release": release}
}

// Certname is the node name Puppet would use for a host with these facts:
// its fully qualified domain name, lower case ("" if unknown).
func Certname(f map[string]any) string {
	netw, _ := f["networking"].(map[string]any)
	fqdn, _ := netw["fqdn"].(string)
	return strings.ToLower(fqdn)
}

// Local gathers this host's facts and its node name (Certname), what a
// compilation for this host is told.
func Local() (node string, f map[string]any) {
	f = Gather(Host{})
	return Certname(f), f
}
