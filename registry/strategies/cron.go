package strategies

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// cronSchedule is a parsed CronJob schedule: the standard five fields as bit sets
// (bit n set when value n matches; bit 63 when the field was "*" or "?"), or the
// interval of an "@every" descriptor.
type cronSchedule struct {
	minute, hour, dom, month, dow uint64
	every                         time.Duration
	location                      *time.Location
}

// cronBounds are a field's range and the names it accepts (lower case).
type cronBounds struct {
	min, max uint
	names    map[string]uint
}

// cronStarBit marks a field written as "*" or "?".
const cronStarBit = 1 << 63

// The bounds of the five fields of a standard schedule.
var (
	cronMinutes = cronBounds{0, 59, nil}
	cronHours   = cronBounds{0, 23, nil}
	cronDom     = cronBounds{1, 31, nil}
	cronMonths  = cronBounds{1, 12, map[string]uint{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
		"jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12}}
	cronDow = cronBounds{0, 6, map[string]uint{"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6}}
)

// parseCronSchedule parses a schedule as kube-apiserver's validation does
// (ParseCronScheduleWithPanicRecovery over robfig/cron v3's ParseStandard): an optional
// "TZ=<zone> " or "CRON_TZ=<zone> " prefix, then a descriptor (@yearly, @annually,
// @monthly, @weekly, @daily, @midnight, @hourly, "@every <duration>") or exactly five
// fields (minute, hour, day of month, month, day of week), each a comma-separated list
// of "*", "?", a number or name, a range "a-b", each with an optional "/step". The
// errors are that parser's, word for word; a prefix without the space after the zone
// fails as kube's recovered panic does ("invalid schedule format: runtime error: ...").
func parseCronSchedule(spec string) (s *cronSchedule, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, fmt.Errorf("invalid schedule format: %v", r)
		}
	}()
	if spec == "" {
		return nil, fmt.Errorf("empty spec string")
	}
	loc := time.Local
	if strings.HasPrefix(spec, "TZ=") || strings.HasPrefix(spec, "CRON_TZ=") {
		i := strings.Index(spec, " ")
		eq := strings.Index(spec, "=")
		// With no space, i is -1 and the slice panics, as it does in the parser kube runs.
		name := sliceString(spec, eq+1, i)
		if loc, err = time.LoadLocation(name); err != nil {
			return nil, fmt.Errorf("provided bad location %s: %v", name, err)
		}
		spec = strings.TrimSpace(spec[i:])
	}
	if strings.HasPrefix(spec, "@") {
		return parseCronDescriptor(spec, loc)
	}
	fields := strings.Fields(spec)
	if len(fields) != 5 {
		return nil, fmt.Errorf("expected exactly 5 fields, found %d: %s", len(fields), fields)
	}
	s = &cronSchedule{location: loc}
	for i, f := range []struct {
		dst *uint64
		b   cronBounds
	}{{&s.minute, cronMinutes}, {&s.hour, cronHours}, {&s.dom, cronDom}, {&s.month, cronMonths}, {&s.dow, cronDow}} {
		if *f.dst, err = cronField(fields[i], f.b); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// sliceString is s[from:to], a function so that an out-of-range slice panics at run time
// with the runtime's message instead of being refused by the compiler.
func sliceString(s string, from, to int) string { return s[from:to] }

// cronField is the bit set of a comma-separated list of ranges.
func cronField(field string, b cronBounds) (uint64, error) {
	var bits uint64
	for _, expr := range strings.FieldsFunc(field, func(r rune) bool { return r == ',' }) {
		bit, err := cronRange(expr, b)
		if err != nil {
			return bits, err
		}
		bits |= bit
	}
	return bits, nil
}

// cronRange is the bit set of one range: "*" or "?", a number or name, or "a-b", with
// an optional "/step" ("n/step" runs from n to the field's maximum).
func cronRange(expr string, b cronBounds) (uint64, error) {
	rangeAndStep := strings.Split(expr, "/")
	lowAndHigh := strings.Split(rangeAndStep[0], "-")
	single := len(lowAndHigh) == 1
	var start, end, step uint
	var extra uint64
	var err error
	if lowAndHigh[0] == "*" || lowAndHigh[0] == "?" {
		start, end, extra = b.min, b.max, cronStarBit
	} else {
		if start, err = cronIntOrName(lowAndHigh[0], b.names); err != nil {
			return 0, err
		}
		switch len(lowAndHigh) {
		case 1:
			end = start
		case 2:
			if end, err = cronIntOrName(lowAndHigh[1], b.names); err != nil {
				return 0, err
			}
		default:
			return 0, fmt.Errorf("too many hyphens: %s", expr)
		}
	}
	switch len(rangeAndStep) {
	case 1:
		step = 1
	case 2:
		if step, err = cronInt(rangeAndStep[1]); err != nil {
			return 0, err
		}
		if single {
			end = b.max
		}
		if step > 1 {
			extra = 0
		}
	default:
		return 0, fmt.Errorf("too many slashes: %s", expr)
	}
	switch {
	case start < b.min:
		return 0, fmt.Errorf("beginning of range (%d) below minimum (%d): %s", start, b.min, expr)
	case end > b.max:
		return 0, fmt.Errorf("end of range (%d) above maximum (%d): %s", end, b.max, expr)
	case start > end:
		return 0, fmt.Errorf("beginning of range (%d) beyond end of range (%d): %s", start, end, expr)
	case step == 0:
		return 0, fmt.Errorf("step of range should be a positive number: %s", expr)
	}
	var bits uint64
	// end is at most 59 and step positive: the loop ends without overflow.
	for i := start; i <= end; i += step {
		bits |= 1 << i
	}
	return bits | extra, nil
}

func cronIntOrName(expr string, names map[string]uint) (uint, error) {
	if n, ok := names[strings.ToLower(expr)]; ok {
		return n, nil
	}
	return cronInt(expr)
}

func cronInt(expr string) (uint, error) {
	n, err := strconv.Atoi(expr)
	if err != nil {
		return 0, fmt.Errorf("failed to parse int from %s: %s", expr, err)
	}
	if n < 0 {
		return 0, fmt.Errorf("negative number (%d) not allowed: %s", n, expr)
	}
	return uint(n), nil
}

// parseCronDescriptor parses the named schedules and "@every <duration>".
func parseCronDescriptor(d string, loc *time.Location) (*cronSchedule, error) {
	all := func(b cronBounds) uint64 {
		var bits uint64
		for i := b.min; i <= b.max; i++ {
			bits |= 1 << i
		}
		return bits | cronStarBit
	}
	first := func(b cronBounds) uint64 { return 1 << b.min }
	s := &cronSchedule{location: loc, minute: first(cronMinutes), hour: first(cronHours), dom: all(cronDom), month: all(cronMonths), dow: all(cronDow)}
	switch d {
	case "@yearly", "@annually":
		s.dom, s.month = first(cronDom), first(cronMonths)
	case "@monthly":
		s.dom = first(cronDom)
	case "@weekly":
		s.dow = first(cronDow)
	case "@daily", "@midnight":
	case "@hourly":
		s.hour = all(cronHours)
	default:
		const every = "@every "
		if !strings.HasPrefix(d, every) {
			return nil, fmt.Errorf("unrecognized descriptor: %s", d)
		}
		dur, err := time.ParseDuration(d[len(every):])
		if err != nil {
			return nil, fmt.Errorf("failed to parse duration %s: %s", d, err)
		}
		// robfig/cron's Every: at least a second, whole seconds.
		dur = max(dur, time.Second)
		return &cronSchedule{every: dur - dur%time.Second, location: loc}, nil
	}
	return s, nil
}
