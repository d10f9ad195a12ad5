package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestServeFleetFlags(t *testing.T) {
	tests := []struct {
		args []string
		msg  string
	}{
		{[]string{"--demo", "--inventory-command", "ls"}, "--demo and --inventory-command both"},
		{[]string{"--start-command", "x"}, "need --inventory-command"},
		{[]string{"--inventory-command", "ls", "--start-command", "x"}, "needs --start-command and --stop-command"},
		{[]string{"--inventory-command", "ls 'x"}, "--inventory-command: unterminated single quote"},
		{[]string{"--demo", "--inventory-interval", "0s"}, "--inventory-interval 0s must be positive"},
		{[]string{"--demo", "--retry-for", "-1s"}, "must be positive"},
		{[]string{"--demo", "--smtp", "mail:25"}, "--smtp and --smtp-from go together"},
		{[]string{"--demo", "--smtp", "mail", "--smtp-from", "a@b.c"}, `--smtp "mail" is not host:port`},
		{[]string{"--demo", "--smtp", "mail:25", "--smtp-from", "Bob <a@b.c>"}, "is not an email address"},
		{[]string{"--demo", "--notify-webhook", "ftp://x"}, "is not an http:// or https:// URL"},
		{[]string{"--inventory", "gcp"}, `--inventory "gcp": the built-in source is aws`},
		{[]string{"--demo", "--inventory", "aws"}, "--demo and --inventory aws both"},
		{[]string{"--inventory", "aws", "--inventory-command", "ls", "--start-command", "x", "--stop-command", "y"}, "--inventory aws and --inventory-command both"},
		{[]string{"--aws-region", "us-east-1"}, "--aws-region needs --inventory aws"},
		{[]string{"--inventory", "aws", "--aws-region", "US East"}, `--aws-region "US East" is not a region name`},
		{[]string{"--inventory", "aws", "--aws-services", "ec2,s3"}, `--aws-services "ec2,s3": want ec2, rds or ec2,rds`},
		{[]string{"--inventory", "aws", "--aws-endpoint", "localhost:4566"}, `--aws-endpoint "localhost:4566" is not an http:// or https:// URL`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			args := append([]string{"serve", "--data", t.TempDir(), "--listen", "127.0.0.1:0"}, tt.args...)
			_, errOut, code := runCLI(t, args...)
			if code != exitUsage || !strings.Contains(errOut, tt.msg) || strings.Count(errOut, "\n") != 1 {
				t.Fatalf("code %d stderr %q, want exit 2 and %q", code, errOut, tt.msg)
			}
		})
	}
}

func TestWeekGrid(t *testing.T) {
	day := func(d, h, m int) int { return d*1440 + h*60 + m }
	tests := []struct {
		name         string
		starts, stop []int
		hib          bool
		want         []string // rows Mon..Sun
	}{
		{"office hours", []int{day(0, 8, 0), day(1, 8, 0)}, []int{day(0, 19, 0), day(1, 19, 0)}, false, []string{
			strings.Repeat(".", 16) + "S" + strings.Repeat("#", 21) + "X" + strings.Repeat(".", 9),
			strings.Repeat(".", 16) + "S" + strings.Repeat("#", 21) + "X" + strings.Repeat(".", 9),
			strings.Repeat(".", 48),
		}},
		// A stop late Sunday and a start on Monday: the week wraps.
		{"wraps", []int{day(0, 6, 15)}, []int{day(6, 22, 0)}, true, []string{
			strings.Repeat(".", 12) + "S" + strings.Repeat("#", 35),
			strings.Repeat("#", 48), strings.Repeat("#", 48), strings.Repeat("#", 48), strings.Repeat("#", 48), strings.Repeat("#", 48),
			strings.Repeat("#", 44) + "H...",
		}},
		{"start only", []int{day(2, 9, 0)}, nil, false, []string{strings.Repeat("#", 48), strings.Repeat("#", 48),
			strings.Repeat("#", 18) + "S" + strings.Repeat("#", 29)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			writeWeekGrid(&b, tt.starts, tt.stop, tt.hib)
			lines := strings.Split(b.String(), "\n")
			for i, row := range tt.want {
				if got := strings.TrimPrefix(lines[1+i], "  "+[]string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}[i]+"  "); got != row {
					t.Errorf("row %d = %q, want %q\n%s", i, got, row, b.String())
				}
			}
		})
	}
}

func TestZoned(t *testing.T) {
	ny, _ := time.LoadLocation("America/New_York")
	at := time.Date(2024, 11, 4, 9, 0, 0, 0, ny)
	if got := zoned(&at); got != "2024-11-04T09:00:00-05:00" {
		t.Errorf("zoned = %q", got)
	}
	if zoned(nil) != "" {
		t.Error("zoned(nil) not empty")
	}
}
