package admission

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// psLevel is a Pod Security Standards level.
type psLevel string

// The levels, from the most to the least permissive.
const (
	psPrivileged psLevel = "privileged"
	psBaseline   psLevel = "baseline"
	psRestricted psLevel = "restricted"
)

// rank orders the levels.
func (l psLevel) rank() int {
	return map[psLevel]int{psPrivileged: 0, psBaseline: 1, psRestricted: 2}[l]
}

// psVersion is a policy version: "latest" or v1.minor.
type psVersion struct {
	minor  int
	latest bool
}

func (v psVersion) String() string {
	if v.latest {
		return "latest"
	}
	return "v1." + strconv.Itoa(v.minor)
}

// psLatest is the version "latest".
var psLatest = psVersion{latest: true}

// psMaxMinor is the newest minor version of any check (v1.37): latest, and any newer
// version asked for, evaluate as it.
const psMaxMinor = 37

// psLevelVersion is a level at a version, "restricted:latest".
type psLevelVersion struct {
	level   psLevel
	version psVersion
}

func (lv psLevelVersion) String() string { return string(lv.level) + ":" + lv.version.String() }

// psPolicy is a namespace's policy for each mode.
type psPolicy struct {
	enforce, audit, warn psLevelVersion
}

// fullyPrivileged says whether no mode checks anything.
func (p psPolicy) fullyPrivileged() bool {
	return p.enforce.level == psPrivileged && p.audit.level == psPrivileged && p.warn.level == psPrivileged
}

// The namespace labels of the policy.
const (
	psLabelPrefix         = "pod-security.kubernetes.io/"
	psEnforceLabel        = psLabelPrefix + "enforce"
	psEnforceVersionLabel = psLabelPrefix + "enforce-version"
	psAuditLabel          = psLabelPrefix + "audit"
	psAuditVersionLabel   = psLabelPrefix + "audit-version"
	psWarnLabel           = psLabelPrefix + "warn"
	psWarnVersionLabel    = psLabelPrefix + "warn-version"
)

// psDefaultPolicy is kube-apiserver's without an admission configuration file: every
// mode privileged:latest.
var psDefaultPolicy = psPolicy{
	enforce: psLevelVersion{psPrivileged, psLatest},
	audit:   psLevelVersion{psPrivileged, psLatest},
	warn:    psLevelVersion{psPrivileged, psLatest},
}

var psVersionPattern = regexp.MustCompile(`^v1\.([0-9]|[1-9][0-9]*)$`)

// parseLevel is kube's api.ParseLevel (restricted on an error).
func parseLevel(s string) (psLevel, string) {
	switch l := psLevel(s); l {
	case psPrivileged, psBaseline, psRestricted:
		return l, ""
	}
	return psRestricted, "must be one of privileged, baseline, restricted"
}

// parseVersion is kube's api.ParseVersion (latest on an error).
func parseVersion(s string) (psVersion, string) {
	if s == "latest" {
		return psLatest, ""
	}
	m := psVersionPattern.FindStringSubmatch(s)
	if m == nil {
		return psLatest, `must be "latest" or "v1.x"`
	}
	minor, err := strconv.Atoi(m[1])
	if err != nil {
		return psLatest, `must be "latest" or "v1.x"`
	}
	return psVersion{minor: minor}, ""
}

var psLabelsPath = validation.NewPath("metadata", "labels")

// policyOf is kube's api.PolicyToEvaluate of a namespace's labels over the defaults:
// an invalid enforce level enforces restricted, an invalid audit or warn level is
// privileged (they fail open), an invalid version is latest; a warn level not given
// follows a stricter valid enforce level (and its version, unless warn-version is
// given). The errors are those of each invalid label.
func policyOf(labels map[string]string) (psPolicy, validation.ErrorList) {
	p := psDefaultPolicy
	if len(labels) == 0 {
		return p, nil
	}
	var errs validation.ErrorList
	invalid := func(label, value, msg string) {
		if msg != "" {
			errs = append(errs, validation.Invalid(psLabelsPath.Key(label), value, msg))
		}
	}
	var msg string
	hasEnforce := false
	if v, ok := labels[psEnforceLabel]; ok {
		p.enforce.level, msg = parseLevel(v)
		hasEnforce = msg == ""
		invalid(psEnforceLabel, v, msg)
	}
	if v, ok := labels[psEnforceVersionLabel]; ok {
		p.enforce.version, msg = parseVersion(v)
		invalid(psEnforceVersionLabel, v, msg)
	}
	if v, ok := labels[psAuditLabel]; ok {
		if p.audit.level, msg = parseLevel(v); msg != "" {
			p.audit.level = psPrivileged
		}
		invalid(psAuditLabel, v, msg)
	}
	if v, ok := labels[psAuditVersionLabel]; ok {
		p.audit.version, msg = parseVersion(v)
		invalid(psAuditVersionLabel, v, msg)
	}
	_, hasWarn := labels[psWarnLabel]
	if v, ok := labels[psWarnLabel]; ok {
		if p.warn.level, msg = parseLevel(v); msg != "" {
			p.warn.level = psPrivileged
		}
		invalid(psWarnLabel, v, msg)
	}
	v, hasWarnVersion := labels[psWarnVersionLabel]
	if hasWarnVersion {
		p.warn.version, msg = parseVersion(v)
		invalid(psWarnVersionLabel, v, msg)
	}
	if !hasWarn && hasEnforce && p.enforce.level.rank() > p.warn.level.rank() {
		p.warn.level = p.enforce.level
		if !hasWarnVersion {
			p.warn.version = p.enforce.version
		}
	}
	return p, errs
}

// psEvaluation is the aggregate of the checks of a level that forbid a pod.
type psEvaluation struct {
	reasons, details []string
}

func (e psEvaluation) allowed() bool { return len(e.reasons) == 0 }

// reason is the forbidden reasons, comma-separated (the existing pods' warnings).
func (e psEvaluation) reason() string { return strings.Join(e.reasons, ", ") }

// detail is each forbidden reason with its detail in parentheses, comma-separated.
func (e psEvaluation) detail() string {
	var b strings.Builder
	for i, r := range e.reasons {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(r)
		if d := e.details[i]; d != "" {
			b.WriteString(" (" + d + ")")
		}
	}
	return b.String()
}

// psChecksAt are the checks of baseline ([0]) and restricted ([1]) at each minor
// version, in kube's order: baseline checks by ID, then restricted checks by ID.
var psChecksAt = buildChecksAt()

func buildChecksAt() (at [psMaxMinor + 1][2][]psCheckFunc) {
	ordered := slices.Clone(psChecks)
	slices.SortStableFunc(ordered, func(a, b psCheck) int {
		if a.level != b.level {
			return a.level.rank() - b.level.rank()
		}
		return strings.Compare(a.id, b.id)
	})
	for minor := 0; minor <= psMaxMinor; minor++ {
		active := func(c psCheck) *psVersioned {
			var v *psVersioned
			for i := range c.versions {
				if c.versions[i].since <= minor {
					v = &c.versions[i]
				}
			}
			return v
		}
		overridden := map[string]bool{}
		for _, c := range ordered {
			if v := active(c); v != nil && c.level == psRestricted {
				for _, id := range v.overrides {
					overridden[id] = true
				}
			}
		}
		for _, c := range ordered {
			v := active(c)
			if v == nil {
				continue
			}
			if c.level == psBaseline {
				at[minor][0] = append(at[minor][0], v.check)
				if overridden[c.id] {
					continue
				}
			}
			at[minor][1] = append(at[minor][1], v.check)
		}
	}
	return at
}

// evaluatePod runs the checks of lv on a pod's (or a template's) metadata and spec.
func evaluatePod(lv psLevelVersion, meta *scheme.ObjectMeta, spec *corev1.PodSpec) psEvaluation {
	var e psEvaluation
	if lv.level == psPrivileged {
		return e
	}
	minor := lv.version.minor
	if lv.version.latest || minor > psMaxMinor {
		minor = psMaxMinor
	}
	i := 0
	if lv.level == psRestricted {
		i = 1
	}
	if meta == nil {
		meta = &scheme.ObjectMeta{}
	}
	for _, check := range psChecksAt[minor][i] {
		if r := check(meta, spec); !r.allowed {
			if r.reason == "" {
				r.reason = "unknown forbidden reason"
			}
			e.reasons = append(e.reasons, r.reason)
			e.details = append(e.details, r.detail)
		}
	}
	return e
}

// violation is kube's text of an evaluation that forbids: `violates PodSecurity
// "restricted:latest": ...` (verb "violates" or "would violate").
func violation(verb string, lv psLevelVersion, e psEvaluation) string {
	return fmt.Sprintf("%s PodSecurity %q: %s", verb, lv.String(), e.detail())
}
