package strategies

import (
	"testing"
	"time"

	"github.com/apikit-dev/apikit/validation"
)

// TestParseCronSchedule_ErrorsAsRobfigCron holds the parser to robfig/cron v3's
// ParseStandard, which kube-apiserver's CronJob validation runs: the cases of its
// parser_test.go (ranges, steps, names, descriptors) and of kube's validation_test.go
// (TZ prefixes, the panics kube recovers from), with the error texts they produce.
func TestParseCronSchedule_ErrorsAsRobfigCron(t *testing.T) {
	tests := []struct {
		spec, err string
	}{
		{"* * * * *", ""},
		{"* * * * ?", ""},
		{"0 * * * *", ""},
		{"5 4 * * SUN", ""},
		{"0 0 1-7/2 JAN-jun *", ""},
		{"1,5-7/2,3 * * * *", ""},
		{"@hourly", ""},
		{"@every 1h30m", ""},
		{"TZ=UTC 0 0 * * *", ""},
		{"CRON_TZ=Europe/Berlin 0 0 * * *", ""},
		{"", "empty spec string"},
		{"* * * *", "expected exactly 5 fields, found 4: [* * * *]"},
		{"0 * * * * *", "expected exactly 5 fields, found 6: [0 * * * * *]"},
		{"5--5 * * * *", "too many hyphens: 5--5"},
		{"* * * jan-x *", `failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax`},
		{"*/-12 * * * *", "negative number (-12) not allowed: -12"},
		{"*//2 * * * *", "too many slashes: *//2"},
		{"* * 0 * *", "beginning of range (0) below minimum (1): 0"},
		{"60 * * * *", "end of range (60) above maximum (59): 60"},
		{"* * * * 5-3", "beginning of range (5) beyond end of range (3): 5-3"},
		{"*/0 * * * *", "step of range should be a positive number: */0"},
		{"@fortnightly", "unrecognized descriptor: @fortnightly"},
		{"@every abc", `failed to parse duration @every abc: time: invalid duration "abc"`},
		{"TZ=Invalid/Timezone * * * * *", "provided bad location Invalid/Timezone: unknown time zone Invalid/Timezone"},
		{"TZ=0", "invalid schedule format: runtime error: slice bounds out of range [:-1]"},
		{"CRON_TZ=UTC", "invalid schedule format: runtime error: slice bounds out of range [:-1]"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			_, err := parseCronSchedule(tt.spec)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.err {
				t.Errorf("parseCronSchedule(%q) error = %q, want %q", tt.spec, got, tt.err)
			}
		})
	}
}

// TestParseCronSchedule_BitsAsRobfigCron checks the parsed fields of robfig/cron's
// TestRange and descriptor cases.
func TestParseCronSchedule_BitsAsRobfigCron(t *testing.T) {
	tests := []struct {
		spec                     string
		minute, hour, dom, month uint64
		dow                      uint64
		every                    time.Duration
	}{
		{spec: "5-7/2 1 1 1 0", minute: 1<<5 | 1<<7, hour: 1 << 1, dom: 1 << 1, month: 1 << 1, dow: 1},
		{spec: "5-6/2 */12 */15 feb,MAR sat", minute: 1 << 5, hour: 1 | 1<<12, dom: 1<<1 | 1<<16 | 1<<31, month: 1<<2 | 1<<3, dow: 1 << 6},
		{spec: "@weekly", minute: 1, hour: 1, dom: 0xfffffffe | cronStarBit, month: 0x1ffe | cronStarBit, dow: 1},
		{spec: "@every 1500ms", every: time.Second},
		{spec: "@every 10ms", every: time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			s, err := parseCronSchedule(tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			got := [...]uint64{s.minute, s.hour, s.dom, s.month, s.dow, uint64(s.every)}
			want := [...]uint64{tt.minute, tt.hour, tt.dom, tt.month, tt.dow, uint64(tt.every)}
			if got != want {
				t.Errorf("parsed %q = %#x, want %#x", tt.spec, got, want)
			}
		})
	}
}

func TestValidateCronSchedule_TZAsKube(t *testing.T) {
	tz := "UTC"
	tests := []struct {
		name     string
		schedule string
		allowTZ  bool
		timeZone *string
		want     []string
	}{
		{"TZ refused on create", "TZ=UTC 0 0 * * *", false, nil, []string{
			`spec.schedule: Invalid value: "TZ=UTC 0 0 * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead`}},
		{"TZ kept from the stored schedule", "TZ=UTC 0 0 * * *", true, nil, nil},
		{"TZ kept but not with timeZone", "CRON_TZ=UTC 0 0 * * *", true, &tz, []string{
			`spec.schedule: Invalid value: "CRON_TZ=UTC 0 0 * * *": cannot use both timeZone field and TZ or CRON_TZ in schedule`}},
		{"a panic and TZ are two causes", "TZ=0", false, nil, []string{
			`spec.schedule: Invalid value: "TZ=0": invalid schedule format: runtime error: slice bounds out of range [:-1]`,
			`spec.schedule: Invalid value: "TZ=0": cannot use TZ or CRON_TZ in schedule, use timeZone field instead`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := causes(validateCronSchedule(tt.schedule, tt.allowTZ, tt.timeZone, validation.NewPath("spec", "schedule")))
			if len(got) != len(tt.want) {
				t.Fatalf("causes = %q, want %q", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("cause %d = %q, want %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// TestValidateTimeZone_IANANamesAsKube checks the time zone rules; the zones that
// exist come from time.LoadLocation, so the valid cases need the system's zoneinfo
// (or a program that imports time/tzdata) and are skipped without it.
func TestValidateTimeZone_IANANamesAsKube(t *testing.T) {
	_, tzErr := time.LoadLocation("Europe/Berlin")
	s := func(v string) *string { return &v }
	tests := []struct {
		name     string
		tz       *string
		want     []string
		needsZIP bool
	}{
		{"nil", nil, nil, false},
		{"UTC", s("UTC"), nil, false},
		{"a zone", s("Europe/Berlin"), nil, true},
		{"a legacy name with digits", s("Etc/GMT+2"), nil, true},
		{"empty", s(""), []string{`spec.timeZone: Invalid value: "": timeZone must be nil or non-empty string`}, false},
		{"Local", s("Local"), []string{`spec.timeZone: Invalid value: "Local": timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones`}, false},
		{"lower-case local is no zone either", s("local"), []string{
			`spec.timeZone: Invalid value: "local": timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones`,
			`spec.timeZone: Invalid value: "local": unknown time zone local`}, false},
		{"a path", s("../etc/passwd"), []string{`spec.timeZone: Invalid value: "../etc/passwd": unknown time zone ../etc/passwd`}, false},
		{"a dash first", s("Europe/-Berlin"), []string{`spec.timeZone: Invalid value: "Europe/-Berlin": unknown time zone Europe/-Berlin`}, false},
		{"a long component", s("America/Argentina_Buenos_Aires"), []string{
			`spec.timeZone: Invalid value: "America/Argentina_Buenos_Aires": unknown time zone America/Argentina_Buenos_Aires`}, false},
		{"no such zone", s("Mars/Olympus"), []string{`spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus`}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.needsZIP && tzErr != nil {
				t.Skipf("no zoneinfo on this machine: %v", tzErr)
			}
			got := causes(validateTimeZone(tt.tz, validation.NewPath("spec", "timeZone")))
			if len(got) != len(tt.want) {
				t.Fatalf("causes = %q, want %q", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("cause %d = %q, want %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}
