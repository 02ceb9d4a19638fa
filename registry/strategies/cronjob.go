package strategies

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	batchv1 "github.com/apikit-dev/apikit/builtin/batch/v1"
	"github.com/apikit-dev/apikit/validation"
)

// maxCronJobNameLength is DNS1035LabelMaxLength less the 11 characters of the
// "-<timestamp>" suffix the cronjob controller gives its Jobs' names.
const maxCronJobNameLength = 63 - 11

// cronJobConcurrencyPolicies are the values of spec.concurrencyPolicy, in kube's order.
var cronJobConcurrencyPolicies = []string{string(batchv1.AllowConcurrent), string(batchv1.ForbidConcurrent), string(batchv1.ReplaceConcurrent)}

// validTimeZoneComponent is kube's pattern of one component of an IANA zone name (digits
// and '+' tolerated for legacy names).
var validTimeZoneComponent = regexp.MustCompile(`^[A-Za-z\.\-_0-9+]{1,14}$`)

// validateCronJobCreate is kube's ValidateCronJobCreate: metadata with a DNS subdomain
// name, the spec, and a name of at most 52 characters.
func validateCronJobCreate(c *batchv1.CronJob) validation.ErrorList {
	errs := validation.ValidateObjectMeta(c, true, validation.NameIsDNSSubdomain, validation.NewPath("metadata"))
	errs = append(errs, validateCronJobSpec(&c.Spec, nil, validation.NewPath("spec"))...)
	if len(c.Name) > maxCronJobNameLength {
		errs = append(errs, validation.Invalid(validation.NewPath("metadata", "name"), c.Name, "must be no more than 52 characters"))
	}
	return errs
}

// validateCronJobUpdate is kube's ValidateCronJobUpdate: the spec as on create, where a
// stored schedule with TZ keeps it allowed; the name's length is not checked, so that
// older CronJobs with longer names can still be updated.
func validateCronJobUpdate(c, old *batchv1.CronJob) validation.ErrorList {
	return validateCronJobSpec(&c.Spec, &old.Spec, validation.NewPath("spec"))
}

// validateCronJobSpec is kube's validateCronJobSpec.
func validateCronJobSpec(spec, old *batchv1.CronJobSpec, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if spec.Schedule == "" {
		errs = append(errs, validation.Required(p.Child("schedule"), ""))
	} else {
		allowTZ := old != nil && strings.Contains(old.Schedule, "TZ")
		errs = append(errs, validateCronSchedule(spec.Schedule, allowTZ, spec.TimeZone, p.Child("schedule"))...)
	}
	if spec.StartingDeadlineSeconds != nil {
		errs = append(errs, nonNegativeField(*spec.StartingDeadlineSeconds, p.Child("startingDeadlineSeconds"))...)
	}
	if old == nil || !ptrEqual(old.TimeZone, spec.TimeZone) {
		errs = append(errs, validateTimeZone(spec.TimeZone, p.Child("timeZone"))...)
	}
	switch cp := p.Child("concurrencyPolicy"); spec.ConcurrencyPolicy {
	case batchv1.AllowConcurrent, batchv1.ForbidConcurrent, batchv1.ReplaceConcurrent:
	case "":
		errs = append(errs, validation.Required(cp, ""))
	default:
		errs = append(errs, validation.NotSupported(cp, spec.ConcurrencyPolicy, cronJobConcurrencyPolicies))
	}
	errs = append(errs, validateJobTemplateSpec(&spec.JobTemplate, p.Child("jobTemplate"))...)
	if spec.SuccessfulJobsHistoryLimit != nil {
		errs = append(errs, nonNegativeField(int64(*spec.SuccessfulJobsHistoryLimit), p.Child("successfulJobsHistoryLimit"))...)
	}
	if spec.FailedJobsHistoryLimit != nil {
		errs = append(errs, nonNegativeField(int64(*spec.FailedJobsHistoryLimit), p.Child("failedJobsHistoryLimit"))...)
	}
	return errs
}

// validateCronSchedule is kube's validateScheduleFormat: a schedule the cron parser
// accepts, and no TZ= or CRON_TZ= in it (the timeZone field says that) unless the
// stored schedule had one already.
func validateCronSchedule(schedule string, allowTZ bool, timeZone *string, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if _, err := parseCronSchedule(schedule); err != nil {
		errs = append(errs, validation.Invalid(p, schedule, err.Error()))
	}
	hasTZ := strings.Contains(schedule, "TZ")
	switch {
	case allowTZ && hasTZ && timeZone != nil:
		errs = append(errs, validation.Invalid(p, schedule, "cannot use both timeZone field and TZ or CRON_TZ in schedule"))
	case !allowTZ && hasTZ:
		errs = append(errs, validation.Invalid(p, schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"))
	}
	return errs
}

// validateTimeZone is kube's validateTimeZone: nil, or an IANA zone name (no "Local")
// that time.LoadLocation finds. LoadLocation reads the system's zoneinfo (ZONEINFO,
// /usr/share/zoneinfo, ...) and then the database a program embeds by importing
// time/tzdata, as kube-apiserver's main does; on a machine with neither, every zone
// but "UTC" is refused with LoadLocation's "unknown time zone" error.
func validateTimeZone(tz *string, p *validation.Path) validation.ErrorList {
	if tz == nil {
		return nil
	}
	if *tz == "" {
		return validation.ErrorList{validation.Invalid(p, tz, "timeZone must be nil or non-empty string")}
	}
	for _, part := range strings.Split(*tz, "/") {
		if part == "." || part == ".." || strings.HasPrefix(part, "-") || !validTimeZoneComponent.MatchString(part) {
			return validation.ErrorList{validation.Invalid(p, tz, "unknown time zone "+*tz)}
		}
	}
	var errs validation.ErrorList
	if strings.EqualFold(*tz, "Local") {
		errs = append(errs, validation.Invalid(p, tz, "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"))
	}
	if _, err := time.LoadLocation(*tz); err != nil {
		errs = append(errs, validation.Invalid(p, tz, err.Error()))
	}
	return errs
}

// validateJobTemplateSpec is kube's ValidateJobTemplateSpec: the Job spec's rules (no
// metadata check), and no selector or manualSelector, which each Job gets generated.
func validateJobTemplateSpec(t *batchv1.JobTemplateSpec, p *validation.Path) validation.ErrorList {
	sp := p.Child("spec")
	errs := validateJobSpec(&t.Spec, sp)
	if t.Spec.Selector != nil {
		errs = append(errs, validation.Invalid(sp.Child("selector"), t.Spec.Selector, "`selector` will be auto-generated"))
	}
	if t.Spec.ManualSelector != nil && *t.Spec.ManualSelector {
		errs = append(errs, validation.NotSupported(sp.Child("manualSelector"), t.Spec.ManualSelector, []string{"nil", "false"}))
	}
	return errs
}

// cronJobUpdateWarnings are kube's: the job template's when the generation changed,
// and one for a schedule with TZ in it.
func cronJobUpdateWarnings(c, old *batchv1.CronJob) []string {
	var warnings []string
	if c.Generation != old.Generation {
		warnings = jobSpecWarnings(cronJobSpecPath, &c.Spec.JobTemplate.Spec)
	}
	if strings.Contains(c.Spec.Schedule, "TZ") {
		// kube's path really is spec.spec.schedule.
		warnings = append(warnings, fmt.Sprintf("cannot use TZ or CRON_TZ in %s, use timeZone instead, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details", "spec.spec.schedule"))
	}
	return warnings
}
