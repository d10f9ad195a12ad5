package daemon

import "testing"

func TestDescribeCron(t *testing.T) {
	tests := []struct{ expr, zone, want string }{
		{"30 2 * * *", "Europe/Berlin", "at 02:30 every day (Europe/Berlin)"},
		{"30 2 * * *", "UTC", "at 02:30 every day"},
		{"not cron", "UTC", ""},
		{"30 2 * * *", "Mars/Olympus", ""},
	}
	for _, tt := range tests {
		if got := describeCron(tt.expr, tt.zone); got != tt.want {
			t.Errorf("describeCron(%q, %q) = %q, want %q", tt.expr, tt.zone, got, tt.want)
		}
	}
}
