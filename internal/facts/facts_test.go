package facts

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/testenv"
)

func host(files map[string]string, hostname string) Host {
	return Host{
		ReadFile: func(name string) ([]byte, error) {
			if s, ok := files[name]; ok {
				return []byte(s), nil
			}
			return nil, fs.ErrNotExist
		},
		Hostname: func() (string, error) { return hostname, nil },
		Now:      func() time.Time { return time.Date(2024, 6, 1, 12, 0, 0, 0, time.FixedZone("CEST", 7200)) },
		Kernel:   "Linux",
		CPUs:     func() int { return 3 },
	}
}

func TestGather(t *testing.T) {
	tests := []struct {
		name     string
		files    map[string]string
		hostname string
		want     string
	}{
		{"debian", map[string]string{
			"/etc/os-release":  "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\nID=debian\n",
			"/proc/cpuinfo":    "processor\t: 0\nmodel name : x\n\nprocessor\t: 1\n",
			"/etc/resolv.conf": "search corp.example.com other.example\nnameserver 10.0.0.1\n",
		}, "web01",
			`{"kernel":"Linux","networking":{"domain":"corp.example.com","fqdn":"web01.corp.example.com","hostname":"web01"},"os":{"family":"Debian","name":"Debian","release":{"full":"12","major":"12"}},"processors":{"count":2},"timezone":"CEST"}`},
		{"rocky with a dotted host name", map[string]string{
			"/usr/lib/os-release": "NAME=\"Rocky Linux\"\nID=\"rocky\"\nID_LIKE=\"rhel centos fedora\"\nVERSION_ID=\"9.3\"\n",
		}, "db1.example.org",
			`{"kernel":"Linux","networking":{"domain":"example.org","fqdn":"db1.example.org","hostname":"db1"},"os":{"family":"RedHat","name":"Rocky","release":{"full":"9.3","major":"9","minor":"3"}},"processors":{"count":3},"timezone":"CEST"}`},
		{"ubuntu keeps its major", map[string]string{"/etc/os-release": "ID=ubuntu\nVERSION_ID=\"22.04\"\nNAME=Ubuntu\n"}, "u",
			`{"kernel":"Linux","networking":{"fqdn":"u","hostname":"u"},"os":{"family":"Debian","name":"Ubuntu","release":{"full":"22.04","major":"22.04"}},"processors":{"count":3},"timezone":"CEST"}`},
		{"unknown distribution by ID_LIKE", map[string]string{"/etc/os-release": "ID=weird\nID_LIKE=debian\nNAME=Weird\nVERSION_ID=1\n"}, "w",
			`{"kernel":"Linux","networking":{"fqdn":"w","hostname":"w"},"os":{"family":"Debian","name":"Weird","release":{"full":"1","major":"1"}},"processors":{"count":3},"timezone":"CEST"}`},
		{"nothing to read", map[string]string{}, "",
			`{"kernel":"Linux","processors":{"count":3},"timezone":"CEST"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Gather(host(tt.files, tt.hostname))
			b, _ := json.Marshal(f)
			if string(b) != tt.want {
				t.Fatalf("got  %s\nwant %s", b, tt.want)
			}
		})
	}
}

func TestCertname(t *testing.T) {
	f := Gather(host(map[string]string{}, "Web01.Example.COM"))
	if got := Certname(f); got != "web01.example.com" {
		t.Fatalf("got %q", got)
	}
}

// TestLocal reads this host: the facts the manifests see are there.
func TestLocal(t *testing.T) {
	node, f := Local()
	if node == "" || f["kernel"] == "" || f["processors"].(map[string]any)["count"].(int64) < 1 {
		t.Fatalf("node %q, facts %v", node, f)
	}
}

// TestAgainstFacter compares the facts with Facter's on this host.
func TestAgainstFacter(t *testing.T) {
	if testing.Short() {
		t.Skip("runs facter (seconds)")
	}
	facter := testenv.LookPath(t, "facter (with Puppet 7.23)", "install it with apt-get install puppet (scripts/test.d/puppet.sh)", "facter")
	names := []string{"networking.hostname", "networking.fqdn", "os.family", "os.name", "os.release.major", "kernel", "timezone", "processors.count"}
	out, err := exec.Command(facter, append([]string{"--json"}, names...)...).Output()
	if err != nil {
		t.Fatalf("facter: %v", err)
	}
	var want map[string]any
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatalf("facter: %v: %s", err, out)
	}
	_, got := Local()
	for _, n := range names {
		var v any = got
		for _, k := range strings.Split(n, ".") {
			m, _ := v.(map[string]any)
			v = m[k]
		}
		if fmt.Sprint(v) != fmt.Sprint(want[n]) {
			t.Errorf("%s: almanac %v, facter %v", n, v, want[n])
		}
	}
}
