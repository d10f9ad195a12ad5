package fleet

import (
	"reflect"
	"testing"
	"time"
)

func TestParseKey(t *testing.T) {
	tests := []struct {
		key  string
		want Field
		ok   bool
	}{
		{"almanac-schedule-start", FieldStart, true},
		{"prosperops-schedule-power-on", FieldStart, true},
		{"almanac-schedule-power-off", FieldStop, true},
		{"prosperops-schedule-stop", FieldStop, true},
		{"prosperops-schedule-timezone", FieldTimezone, true},
		{"almanac-schedule-notify", FieldNotify, true},
		{"almanac-schedule-stop-hibernate", FieldHibernate, true},
		{"prosperops-schedule-power-off-hibernate", FieldHibernate, true},
		{"Almanac-Schedule-Start", "", false},
		{"almanac-schedule-", "", false},
		{"almanac-schedule-strat", "", false},
		{"Name", "", false},
	}
	for _, tt := range tests {
		got, ok := ParseKey(tt.key)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseKey(%q) = %q, %v; want %q, %v", tt.key, got, ok, tt.want, tt.ok)
		}
	}
}

func TestValidate(t *testing.T) {
	type tags = map[string]string
	tests := []struct {
		name      string
		tags      tags
		hib       bool
		scheduled bool
		errors    []Finding
		warnings  []Finding
	}{
		{name: "no tags", tags: tags{}},
		{name: "unrelated tags", tags: tags{"Name": "web-1", "env": "prod"}},
		{name: "zone and notify only: unscheduled, nothing checked",
			tags: tags{"almanac-schedule-timezone": "nowhere", "almanac-schedule-notify": "not-an-email"}},
		{name: "empty values are absent",
			tags: tags{"almanac-schedule-start": "", "almanac-schedule-stop": "", "almanac-schedule-timezone": "nowhere"}},
		{name: "seed example, fully specified",
			tags: tags{
				"prosperops-schedule-power-on":  "mon0900_tue0900_wed0900_thu0900_fri0900",
				"prosperops-schedule-power-off": "mon1215_tue1215_wed1215_thu1700_fri1800",
				"prosperops-schedule-timezone":  "america-new_york",
				"prosperops-schedule-notify":    "prosper.bot@prosperops.com",
			},
			scheduled: true},
		{name: "start only", tags: tags{"almanac-schedule-start": "mon0900", "almanac-schedule-timezone": "UTC"}, scheduled: true},
		{name: "stop only, IANA zone", tags: tags{"almanac-schedule-stop": "fri1800", "almanac-schedule-timezone": "Europe/Berlin"}, scheduled: true},
		{name: "error 1: invalid start",
			tags: tags{"almanac-schedule-start": "mon0900_tue2500", "almanac-schedule-stop": "mon1700", "almanac-schedule-timezone": "utc"},

			errors: []Finding{{"almanac-schedule-start", "mon0900_tue2500",
				`almanac-schedule-start is an invalid schedule: mon0900_tue2500 ("tue2500" at offset 9: hour 25 out of range)`}}},
		{name: "error 1: invalid stop, start alone is invalid too",
			tags: tags{"prosperops-schedule-stop": "Mon1700", "prosperops-schedule-timezone": "utc"},
			errors: []Finding{{"prosperops-schedule-stop", "Mon1700",
				`prosperops-schedule-stop is an invalid schedule: Mon1700 ("Mon1700" at offset 1: day "Mon" must be lower case (mon))`}}},
		{name: "error 2: timezone missing",
			tags:   tags{"prosperops-schedule-start": "mon0900"},
			errors: []Finding{{"prosperops-schedule-timezone", "", "prosperops-schedule-timezone is missing"}}},
		{name: "error 2: timezone missing (almanac prefix)",
			tags:   tags{"almanac-schedule-stop": "mon0900", "almanac-schedule-timezone": ""},
			errors: []Finding{{"almanac-schedule-timezone", "", "almanac-schedule-timezone is missing"}}},
		{name: "error 2: timezone invalid, with suggestion",
			tags: tags{"almanac-schedule-start": "mon0900", "almanac-schedule-timezone": "america-new_yrok"},
			errors: []Finding{{"almanac-schedule-timezone", "america-new_yrok",
				"almanac-schedule-timezone is an invalid time zone: america-new_yrok (did you mean america-new_york?)"}}},
		{name: "errors 1 and 2 together",
			tags: tags{"almanac-schedule-start": "mon9", "almanac-schedule-timezone": "mars-olympus_mons_crater_rim"},
			errors: []Finding{
				{"almanac-schedule-timezone", "mars-olympus_mons_crater_rim", "almanac-schedule-timezone is an invalid time zone: mars-olympus_mons_crater_rim"},
				{"almanac-schedule-start", "mon9", `almanac-schedule-start is an invalid schedule: mon9 ("mon9" at offset 1: time must be four digits HHMM)`},
			}},
		{name: "error 3: same time value (seed example)",
			tags: tags{"prosperops-schedule-start": "mon0800_tue0800_wed0800", "prosperops-schedule-stop": "mon2000_tue0800_wed2000", "prosperops-schedule-timezone": "utc"},

			errors: []Finding{{"prosperops-schedule-stop", "mon2000_tue0800_wed2000",
				"prosperops-schedule-start and prosperops-schedule-stop have the same time value: tue0800"}}},
		{name: "error 3 lists every clash",
			tags: tags{"almanac-schedule-power-on": "mon0800_1200", "almanac-schedule-power-off": "mon1200_0800", "almanac-schedule-timezone": "utc"},

			errors: []Finding{{"almanac-schedule-power-off", "mon1200_0800",
				"almanac-schedule-power-on and almanac-schedule-power-off have the same time value: mon0800, mon1200"}}},
		{name: "error 4: hibernate not a boolean, supported",
			tags:   tags{"almanac-schedule-stop": "fri1800", "almanac-schedule-timezone": "utc", "almanac-schedule-stop-hibernate": "yes"},
			hib:    true,
			errors: []Finding{{"almanac-schedule-stop-hibernate", "yes", "almanac-schedule-stop-hibernate is an invalid value (want true or false): yes"}}},
		{name: "hibernate not a boolean, unsupported: no finding",
			tags:      tags{"almanac-schedule-stop": "fri1800", "almanac-schedule-timezone": "utc", "almanac-schedule-stop-hibernate": "yes"},
			scheduled: true},
		{name: "warning: notify invalid",
			tags:      tags{"prosperops-schedule-start": "mon0900", "prosperops-schedule-timezone": "utc", "prosperops-schedule-notify": "ops at example"},
			scheduled: true,
			warnings:  []Finding{{"prosperops-schedule-notify", "ops at example", "prosperops-schedule-notify is an invalid email address: ops at example"}}},
		{name: "warning: hibernate unsupported (alias key reported as written)",
			tags:      tags{"prosperops-schedule-stop": "fri1800", "prosperops-schedule-timezone": "utc", "prosperops-schedule-power-off-hibernate": "true"},
			scheduled: true,
			warnings:  []Finding{{"prosperops-schedule-power-off-hibernate", "true", "prosperops-schedule-power-off-hibernate is enabled but instance does not support hibernation"}}},
		{name: "unscheduled: notify and hibernate not validated",
			tags:   tags{"almanac-schedule-start": "mon0900", "almanac-schedule-notify": "x", "almanac-schedule-stop-hibernate": "maybe"},
			hib:    true,
			errors: []Finding{{"almanac-schedule-timezone", "", "almanac-schedule-timezone is missing"}}},
		{name: "conflicting aliases",
			tags: tags{"almanac-schedule-start": "mon0900", "prosperops-schedule-power-on": "mon1000", "almanac-schedule-timezone": "utc"},
			errors: []Finding{{"almanac-schedule-start", "mon0900",
				"almanac-schedule-start is an invalid schedule: mon0900 (prosperops-schedule-power-on is also set, to mon1000)"}}},
		{name: "agreeing aliases are fine",
			tags:      tags{"almanac-schedule-start": "mon0900", "prosperops-schedule-start": "mon0900", "almanac-schedule-timezone": "utc"},
			scheduled: true},
		{name: "conflicting zones",
			tags: tags{"almanac-schedule-start": "mon0900", "almanac-schedule-timezone": "utc", "prosperops-schedule-timezone": "europe-berlin"},
			errors: []Finding{{"almanac-schedule-timezone", "utc",
				"almanac-schedule-timezone is an invalid time zone: utc (prosperops-schedule-timezone is also set, to europe-berlin)"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Validate(tt.tags, tt.hib)
			if v.Scheduled != tt.scheduled {
				t.Errorf("Scheduled = %v, want %v", v.Scheduled, tt.scheduled)
			}
			if !reflect.DeepEqual(v.Errors, tt.errors) {
				t.Errorf("Errors =\n  %q\nwant\n  %q", v.Errors, tt.errors)
			}
			if !reflect.DeepEqual(v.Warnings, tt.warnings) {
				t.Errorf("Warnings =\n  %q\nwant\n  %q", v.Warnings, tt.warnings)
			}
			if v.Actionable() != (tt.scheduled && len(tt.errors) == 0) {
				t.Errorf("Actionable() = %v", v.Actionable())
			}
		})
	}
}

func TestValidateHibernateAndNotify(t *testing.T) {
	base := map[string]string{"almanac-schedule-stop": "fri1800", "almanac-schedule-timezone": "utc",
		"almanac-schedule-stop-hibernate": "TRUE", "almanac-schedule-notify": "ops@example.com"}
	v := Validate(base, true)
	if !v.Hibernate || v.Notify != "ops@example.com" || len(v.Errors)+len(v.Warnings) != 0 {
		t.Fatalf("got %+v", v)
	}
	if v := Validate(base, false); v.Hibernate {
		t.Fatal("hibernate enabled without support")
	}
	base["almanac-schedule-stop-hibernate"] = "false"
	if v := Validate(base, true); v.Hibernate {
		t.Fatal("hibernate enabled by false")
	}
}

func TestValidEmail(t *testing.T) {
	for s, want := range map[string]bool{
		"prosper.bot@prosperops.com": true,
		"a+b@mail.example.org":       true,
		"ops@localhost":              false,
		"Ops <ops@example.com>":      false,
		"<ops@example.com>":          false,
		"ops@example.":               false,
		"ops@.example.com":           false,
		"ops@ex..com":                false,
		"@example.com":               false,
		"ops":                        false,
		"ops@[127.0.0.1]":            false,
	} {
		if got := validEmail(s); got != want {
			t.Errorf("validEmail(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestValidationNext(t *testing.T) {
	v := Validate(map[string]string{
		"almanac-schedule-start": "mon0900_tue0900", "almanac-schedule-stop": "mon1800",
		"almanac-schedule-timezone": "america-new_york",
	}, false)
	at := time.Date(2024, 11, 4, 12, 0, 0, 0, time.UTC) // Monday 07:00 EST
	start, ok1 := v.NextStart(at)
	stop, ok2 := v.NextStop(at)
	if !ok1 || !ok2 {
		t.Fatal("no next start/stop")
	}
	if got := start.Format(time.RFC3339); got != "2024-11-04T09:00:00-05:00" {
		t.Errorf("NextStart = %s", got)
	}
	if got := stop.Format(time.RFC3339); got != "2024-11-04T18:00:00-05:00" {
		t.Errorf("NextStop = %s", got)
	}
	bad := Validate(map[string]string{"almanac-schedule-start": "mon0900", "almanac-schedule-stop": "mon0900", "almanac-schedule-timezone": "utc"}, false)
	if _, ok := bad.NextStart(at); ok {
		t.Error("NextStart for a blocked resource")
	}
}

func FuzzValidate(f *testing.F) {
	f.Add("mon0900_tue0900", "mon1800", "america-new_york", "ops@example.com", "true", true)
	f.Add("Mon0900", "", "", "x", "maybe", false)
	f.Add("mon0800", "mon0800", "etc-gmt+5", "a@b.c", "false", true)
	f.Fuzz(func(t *testing.T, start, stop, zone, notify, hib string, supported bool) {
		v := Validate(map[string]string{
			"almanac-schedule-start": start, "prosperops-schedule-power-off": stop,
			"almanac-schedule-timezone": zone, "almanac-schedule-notify": notify,
			"almanac-schedule-stop-hibernate": hib,
		}, supported)
		if v.Scheduled && v.Zone == nil {
			t.Fatal("scheduled without a zone")
		}
		if !v.Scheduled && len(v.Errors) == 0 && (len(v.Warnings) > 0 || v.Hibernate || v.Notify != "") {
			t.Fatalf("unscheduled resource had later tags checked: %+v", v)
		}
		if v.Scheduled && len(v.Errors) > 0 {
			t.Fatalf("scheduled despite errors: %+v", v)
		}
		for _, fd := range append(v.Errors, v.Warnings...) {
			if fd.Key == "" || fd.Message == "" {
				t.Fatalf("finding without key or message: %+v", fd)
			}
		}
	})
}
