package strategies

import (
	"context"

	batchv1 "github.com/apikit-dev/apikit/builtin/batch/v1"
	metav1 "github.com/apikit-dev/apikit/builtin/meta/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// Batch returns kube-apiserver v1.37.2's write rules of the batch/v1 kinds
// (pkg/registry/batch/{job,cronjob}/strategy.go and pkg/apis/batch/validation): a Job's
// generated selector and labels, status reset on create and kept on update, generation
// 1 on create and bumped on a spec change, the template's immutability but for what a
// suspended Job may change, a delete without propagationPolicy orphaning the pods with
// kube's warning (batch/v1's default garbage-collection policy), the status
// subresource's transition rules (JobManagedBy is GA in v1.37), and a CronJob's schedule, time zone and job template. Repeated errors
// are dropped, as kube's declarative validation step (run on every batch write) drops
// them.
func Batch() map[scheme.GroupResource]registry.Strategy {
	return map[scheme.GroupResource]registry.Strategy{
		batchv1.Jobs: registry.StrategyFor[*batchv1.Job]{
			PrepareForCreate: func(_ context.Context, j *batchv1.Job) { prepareJobCreate(j) },
			PrepareForUpdate: func(_ context.Context, j, old *batchv1.Job) { prepareJobUpdate(j, old) },
			Validate: func(_ context.Context, j *batchv1.Job) validation.ErrorList {
				return uniqueErrors(validateJobCreate(j))
			},
			ValidateUpdate: func(_ context.Context, j, old *batchv1.Job) validation.ErrorList {
				return uniqueErrors(validateJobUpdate(j, old))
			},
			WarningsOnCreate: func(_ context.Context, j *batchv1.Job) []string {
				return append(podNameWarnings(j.Name), jobSpecWarnings(jobSpecPath, &j.Spec)...)
			},
			WarningsOnUpdate: func(_ context.Context, j, old *batchv1.Job) []string {
				if j.Generation == old.Generation {
					return nil
				}
				return jobSpecWarnings(jobSpecPath, &j.Spec)
			},
			DefaultGarbageCollectionPolicy: orphansAt("v1"),
			WarningsOnDelete:               warnJobPodsPreserved,
			Status: &registry.StrategyFor[*batchv1.Job]{
				PrepareForUpdate: func(_ context.Context, j, old *batchv1.Job) { j.Spec = old.Spec },
				ValidateUpdate: func(_ context.Context, j, old *batchv1.Job) validation.ErrorList {
					return uniqueErrors(validateJobStatusUpdate(j, old, jobStatusOptionsFor(j, old)))
				},
			},
		},
		batchv1.CronJobs: registry.StrategyFor[*batchv1.CronJob]{
			PrepareForCreate: func(_ context.Context, c *batchv1.CronJob) {
				c.Status = batchv1.CronJobStatus{}
				c.Generation = 1
				c.Spec.JobTemplate.Spec.Scheduling = nil
			},
			PrepareForUpdate: func(_ context.Context, c, old *batchv1.CronJob) {
				c.Status = old.Status
				if old.Spec.JobTemplate.Spec.Scheduling == nil {
					c.Spec.JobTemplate.Spec.Scheduling = nil
				}
				bumpGenerationUnless(&c.ObjectMeta, &old.ObjectMeta, semanticEqual(c.Spec, old.Spec))
			},
			Validate: func(_ context.Context, c *batchv1.CronJob) validation.ErrorList {
				return uniqueErrors(validateCronJobCreate(c))
			},
			ValidateUpdate: func(_ context.Context, c, old *batchv1.CronJob) validation.ErrorList {
				return uniqueErrors(validateCronJobUpdate(c, old))
			},
			WarningsOnCreate: func(_ context.Context, c *batchv1.CronJob) []string {
				return append(podNameWarnings(c.Name), jobSpecWarnings(cronJobSpecPath, &c.Spec.JobTemplate.Spec)...)
			},
			WarningsOnUpdate: func(_ context.Context, c, old *batchv1.CronJob) []string { return cronJobUpdateWarnings(c, old) },
			// kube's cronJobStatusStrategy validates nothing: a status write keeps the spec.
			Status: &registry.StrategyFor[*batchv1.CronJob]{
				PrepareForUpdate: func(_ context.Context, c, old *batchv1.CronJob) { c.Spec = old.Spec },
			},
		},
	}
}

// The labels by which a Job's generated selector finds its pods (batch.JobNameLabel,
// batch.ControllerUidLabel and their legacy unprefixed forms).
const (
	jobNameLabel             = "batch.kubernetes.io/job-name"
	controllerUIDLabel       = "batch.kubernetes.io/controller-uid"
	legacyJobNameLabel       = "job-name"
	legacyControllerUIDLabel = "controller-uid"
)

// Paths of a Job's spec and of a CronJob's job template's spec, where the warnings of
// their pod templates start.
var (
	jobSpecPath     = validation.NewPath("spec")
	cronJobSpecPath = validation.NewPath("spec", "jobTemplate", "spec")
)

// prepareJobCreate is kube's Job PrepareForCreate: the selector and template labels
// generated unless spec.manualSelector, status cleared, generation 1, and
// spec.scheduling dropped (the WorkloadWithJob gate is alpha, off, in v1.37).
func prepareJobCreate(j *batchv1.Job) {
	if j.Spec.ManualSelector == nil || !*j.Spec.ManualSelector {
		generateJobSelector(j)
	}
	j.Status = batchv1.JobStatus{}
	j.Generation = 1
	j.Spec.Scheduling = nil
}

// prepareJobUpdate keeps the stored status, drops a new spec.scheduling, and bumps the
// generation on a spec change.
func prepareJobUpdate(j, old *batchv1.Job) {
	j.Status = old.Status
	if old.Spec.Scheduling == nil {
		j.Spec.Scheduling = nil
	}
	bumpGenerationUnless(&j.ObjectMeta, &old.ObjectMeta, semanticEqual(j.Spec, old.Spec))
}

// generateJobSelector is kube's generateSelector: the job-name and controller-uid labels
// (legacy and prefixed) added to the template where the user did not set them, and
// the prefixed controller-uid added to the selector's matchLabels. Conflicting labels
// a user set are left for validation to refuse.
//
// When the defaults gave the Job its template's labels (SetDefaults_Job assigns the
// map), the Job shares that map with its template, so the generated labels show on
// the Job as well, as they do in kube.
func generateJobSelector(j *batchv1.Job) {
	tmpl := &j.Spec.Template
	if tmpl.Labels == nil {
		tmpl.Labels = map[string]string{}
	}
	for _, k := range []string{legacyJobNameLabel, jobNameLabel} {
		if _, ok := tmpl.Labels[k]; !ok {
			tmpl.Labels[k] = j.Name
		}
	}
	for _, k := range []string{legacyControllerUIDLabel, controllerUIDLabel} {
		if _, ok := tmpl.Labels[k]; !ok {
			tmpl.Labels[k] = string(j.UID)
		}
	}
	if j.Spec.Selector == nil {
		j.Spec.Selector = &metav1.LabelSelector{}
	}
	if j.Spec.Selector.MatchLabels == nil {
		j.Spec.Selector.MatchLabels = map[string]string{}
	}
	if _, ok := j.Spec.Selector.MatchLabels[controllerUIDLabel]; !ok {
		j.Spec.Selector.MatchLabels[controllerUIDLabel] = string(j.UID)
	}
}
