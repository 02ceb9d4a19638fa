package builtin

import (
	"fmt"
	"time"

	batchv1 "github.com/apikit-dev/apikit/builtin/batch/v1"
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/codec/protobuf"
	"github.com/apikit-dev/apikit/scheme"
)

// batchResources are the batch/v1 resources as kube-apiserver v1.37.2 serves them: jobs
// and cronjobs (short name cj), both in the "all" category with a status subresource,
// jobs selectable by status.successful, and the columns of kube's printJob and
// printCronJob, wide ones at priority 1.
var batchResources = []scheme.Resource{
	{Group: batchv1.SchemeGroupVersion.Group, Kind: "Job", Plural: "jobs", Categories: []string{"all"},
		Namespaced: true, StatusSubresource: true,
		// kube's JobToSelectableFields names status.succeeded "status.successful".
		SelectableFields: []string{"status.successful"},
		FieldPaths:       map[string]string{"status.successful": "status.succeeded"},
		PrinterColumns: []scheme.PrinterColumn{
			{Name: "Status", Type: "string", Description: "Status of the job.", Cell: cellOf(func(j *batchv1.Job) any { return jobStatusCell(j) })},
			{Name: "Completions", Type: "string", Description: "The number of pods which reached phase Succeeded. The value increases monotonically for a given spec. However, it may decrease in reaction to scale down of elastic indexed jobs.",
				Cell: cellOf(func(j *batchv1.Job) any { return jobCompletionsCell(j) })},
			{Name: "Duration", Type: "string", Description: "Time required to complete the job.", Cell: cellOf(func(j *batchv1.Job) any { return jobDurationCell(j, time.Now()) })},
			ageColumn,
			containersColumn(func(j *batchv1.Job) *corev1.PodSpec { return &j.Spec.Template.Spec }),
			imagesColumn(func(j *batchv1.Job) *corev1.PodSpec { return &j.Spec.Template.Spec }),
			{Name: "Selector", Type: "string", Priority: 1, Description: jobSelectorDescription,
				Cell: cellOf(func(j *batchv1.Job) any { return formatLabelSelector(j.Spec.Selector) })},
		}},
	{Group: batchv1.SchemeGroupVersion.Group, Kind: "CronJob", Plural: "cronjobs", ShortNames: []string{"cj"}, Categories: []string{"all"},
		Namespaced: true, StatusSubresource: true,
		PrinterColumns: []scheme.PrinterColumn{
			{Name: "Schedule", Type: "string", Description: "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.",
				Cell: cellOf(func(c *batchv1.CronJob) any { return c.Spec.Schedule })},
			{Name: "Timezone", Type: "string", Description: cronJobTimeZoneDescription, Cell: cellOf(func(c *batchv1.CronJob) any {
				if c.Spec.TimeZone == nil {
					return "<none>"
				}
				return *c.Spec.TimeZone
			})},
			{Name: "Suspend", Type: "boolean", Description: "This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.  Defaults to false.",
				Cell: cellOf(func(c *batchv1.CronJob) any { return boolPtrCell(c.Spec.Suspend) })},
			{Name: "Active", Type: "integer", Description: "A list of pointers to currently running jobs.",
				Cell: cellOf(func(c *batchv1.CronJob) any { return int64(len(c.Status.Active)) })},
			{Name: "Last Schedule", Type: "string", Description: "Information when was the last time the job was successfully scheduled.", Cell: cellOf(func(c *batchv1.CronJob) any {
				if c.Status.LastScheduleTime == nil {
					return "<none>"
				}
				return timestampSince(*c.Status.LastScheduleTime)
			})},
			ageColumn,
			containersColumn(func(c *batchv1.CronJob) *corev1.PodSpec { return &c.Spec.JobTemplate.Spec.Template.Spec }),
			imagesColumn(func(c *batchv1.CronJob) *corev1.PodSpec { return &c.Spec.JobTemplate.Spec.Template.Spec }),
			{Name: "Selector", Type: "string", Priority: 1, Description: jobSelectorDescription,
				Cell: cellOf(func(c *batchv1.CronJob) any { return formatLabelSelector(c.Spec.JobTemplate.Spec.Selector) })},
		}},
}

// Column descriptions of kube's printers, from k8s.io/api's swagger docs.
const (
	jobSelectorDescription     = "A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors"
	cronJobTimeZoneDescription = "The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this will default to the time zone of the kube-controller-manager process. The set of valid time zone names and the time zone offset is loaded from the system-wide time zone database by the API server during CronJob validation and the controller manager during execution. If no system-wide time zone database can be found a bundled version of the database is used instead. If the time zone name becomes invalid during the lifetime of a CronJob or due to a change in host configuration, the controller will stop creating new new Jobs and will create a system event with the reason UnknownTimeZone. More information can be found in https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#time-zones"
)

// jobCompletionsCell is printJob's COMPLETIONS: succeeded/completions, or for a job
// without completions "n/1", with " of <parallelism>" when more than one pod runs.
func jobCompletionsCell(j *batchv1.Job) string {
	if j.Spec.Completions != nil {
		return fmt.Sprintf("%d/%d", j.Status.Succeeded, *j.Spec.Completions)
	}
	if p := replicas(j.Spec.Parallelism); p > 1 {
		return fmt.Sprintf("%d/1 of %d", j.Status.Succeeded, p)
	}
	return fmt.Sprintf("%d/1", j.Status.Succeeded)
}

// jobDurationCell is printJob's DURATION: empty before the job started, the time since
// its start while it runs, and completionTime - startTime once it completed.
func jobDurationCell(j *batchv1.Job, now time.Time) string {
	switch {
	case j.Status.StartTime == nil:
		return ""
	case j.Status.CompletionTime == nil:
		return humanDuration(now.Sub(j.Status.StartTime.Time))
	default:
		return humanDuration(j.Status.CompletionTime.Sub(j.Status.StartTime.Time))
	}
}

// jobStatusCell is printJob's STATUS: the first of Complete, Failed, Terminating (being
// deleted), Suspended, FailureTarget and SuccessCriteriaMet that holds, else Running.
func jobStatusCell(j *batchv1.Job) string {
	switch {
	case hasJobCondition(j.Status.Conditions, batchv1.JobComplete):
		return "Complete"
	case hasJobCondition(j.Status.Conditions, batchv1.JobFailed):
		return "Failed"
	case j.DeletionTimestamp != nil:
		return "Terminating"
	case hasJobCondition(j.Status.Conditions, batchv1.JobSuspended):
		return "Suspended"
	case hasJobCondition(j.Status.Conditions, batchv1.JobFailureTarget):
		return "FailureTarget"
	case hasJobCondition(j.Status.Conditions, batchv1.JobSuccessCriteriaMet):
		return "SuccessCriteriaMet"
	}
	return "Running"
}

// hasJobCondition is kube's printer helper: the first condition of the type decides.
func hasJobCondition(conditions []batchv1.JobCondition, t batchv1.JobConditionType) bool {
	for _, c := range conditions {
		if c.Type == t {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// boolPtrCell is kube's printBoolPtr: "True", "False" or "<unset>".
func boolPtrCell(b *bool) string {
	switch {
	case b == nil:
		return "<unset>"
	case *b:
		return "True"
	}
	return "False"
}

// timestampSince is kube's translateTimestampSince: "<unknown>" for a zero time, else
// the human duration since it.
func timestampSince(ts scheme.Time) string {
	if ts.IsZero() {
		return "<unknown>"
	}
	return humanDuration(time.Since(ts.Time))
}

// AddBatchToScheme registers the batch/v1 kinds (Job, CronJob and their lists), their
// resources, their protobuf messages and kube's defaults of them. AddToScheme calls it.
func AddBatchToScheme(s *scheme.Scheme) error {
	s.AddKnownTypes(batchv1.SchemeGroupVersion, &batchv1.Job{}, &batchv1.JobList{}, &batchv1.CronJob{}, &batchv1.CronJobList{})
	for _, r := range batchResources {
		if err := s.AddResource(r); err != nil {
			return fmt.Errorf("builtin: %w", err)
		}
	}
	if err := protobuf.RegisterTypes(s, batchv1.SchemeGroupVersion, &batchv1.Job{}, &batchv1.CronJob{}); err != nil {
		return fmt.Errorf("builtin: %w", err)
	}
	registerBatchDefaults(s)
	return nil
}
