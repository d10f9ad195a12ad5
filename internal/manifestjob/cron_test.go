package manifestjob

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/catalog"
	"github.com/almanac-sh/almanac/internal/manifest"
)

func TestCronEntries(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"fields, user, environment", `cron { 'backup':
  command     => '/usr/local/bin/backup ',
  user        => 'nobody',
  hour        => [2, 14],
  minute      => '*/15',
  weekday     => ['Mon', 'fri'],
  month       => 'December',
  environment => ['MAILTO=ops@example.com', 'PATH=/usr/bin:/bin'],
}`, `{"name":"backup","cron":"*/15 2,14 * 12 1,5","shell":"/usr/local/bin/backup","env":{"PATH":"/usr/bin:/bin"},"concurrency_policy":"Allow","notify":["mailto:ops@example.com"],"run_as":"nobody"}`},
		{"special", `cron { 'rotate': command => '/usr/sbin/logrotate', special => 'daily', time_zone => 'Europe/Paris' }`,
			`{"name":"rotate","cron":"0 0 * * *","time_zone":"Europe/Paris","shell":"/usr/sbin/logrotate","concurrency_policy":"Allow"}`},
		{"stars and absent", `cron { 'every': command => 'x', minute => '*', hour => absent, environment => 'MAILTO=""' }`,
			`{"name":"every","cron":"* * * * *","shell":"x","concurrency_policy":"Allow"}`},
		{"absent entries make no job", `cron { 'gone': command => 'x', ensure => absent }`, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := FromCatalog(compile(t, tt.src), parseCron)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range set.Jobs {
				b, _ := json.Marshal(s)
				got = append(got, string(b))
			}
			if strings.Join(got, "\n") != tt.want {
				t.Fatalf("got  %s\nwant %s", strings.Join(got, "\n"), tt.want)
			}
		})
	}
}

func TestCronErrors(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"reboot", `cron { 'r': command => 'x', special => 'reboot' }`,
			"site.pp:1:8: Parameter special failed on Cron[r]: 'reboot' cannot be mapped to an almanac job: jobs run on a schedule, not when the host boots (use a systemd unit)"},
		{"no command", `cron { 'r': hour => 1 }`, "site.pp:1:8: Cron[r]: the 'command' attribute is required (a cron entry becomes a job running it)"},
		{"ordered after a file", "file { '/x': ensure => file } -> cron { 'r': command => 'x' }",
			"site.pp:1:31: Cron[r] cannot be ordered against File[/x] (->): a job's run can wait only for other jobs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := FromCatalog(compile(t, tt.src), parseCron)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("got %v, want %s", err, tt.want)
			}
		})
	}
}

// TestCronValidation checks the compiler's messages, which are Puppet's.
func TestCronValidation(t *testing.T) {
	tests := []struct{ src, want string }{
		{`cron { 'r': command => 'x', minute => 60 }`, "site.pp:1:29: Parameter minute failed on Cron[r]: 60 is not a valid minute"},
		{`cron { 'r': command => 'x', weekday => 'Funday' }`, "site.pp:1:29: Parameter weekday failed on Cron[r]: Funday is not a valid weekday"},
		{`cron { 'r': command => 'x', special => 'often' }`, `site.pp:1:29: Parameter special failed on Cron[r]: Invalid special schedule "often"`},
		{`cron { 'r': command => 'x', special => 'daily', hour => 2 }`, "site.pp:1:8: Cron[r] cannot specify both a special schedule and a value for hour"},
		{`cron { 'r': command => 'x', environment => 'NOEQUALS' }`, `site.pp:1:29: Parameter environment failed on Cron[r]: Invalid environment setting "NOEQUALS"`},
	}
	for _, tt := range tests {
		f, err := manifest.ParseFile("site.pp", []byte(tt.src))
		if err != nil {
			t.Fatal(err)
		}
		_, err = catalog.Compile(f)
		var el manifest.ErrorList
		if !errors.As(err, &el) || err.Error() != tt.want {
			t.Errorf("%s: got %v, want %s", tt.src, err, tt.want)
		}
	}
}
