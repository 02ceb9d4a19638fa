package builtin

import (
	"math"

	batchv1 "github.com/apikit-dev/apikit/builtin/batch/v1"
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/scheme"
)

// registerBatchDefaults registers kube-apiserver v1.37.2's defaults of the batch/v1 kinds
// (k8s.io/kubernetes pkg/apis/batch/v1/defaults.go). The pod template's defaults are the
// PodSpec's, which conversion.Default runs after the kind's, as kube's generated
// SetObjectDefaults_Job and SetObjectDefaults_CronJob do. A CronJob's jobTemplate gets
// no Job defaults: kube's SetDefaults_Job takes a Job, not a JobSpec.
func registerBatchDefaults(s *scheme.Scheme) {
	conversion.RegisterDefaults(s, defaultJob)
	conversion.RegisterDefaults(s, defaultCronJob)
	conversion.RegisterDefaults(s, func(p *batchv1.PodFailurePolicyOnPodConditionsPattern) {
		if p.Status == "" {
			p.Status = corev1.ConditionTrue
		}
	})
}

// defaultJob is SetDefaults_Job: completions and parallelism 1 when both are unset,
// parallelism 1, a backoffLimit of 6 (MaxInt32 with backoffLimitPerIndex), the
// template's labels as the Job's when it has none, NonIndexed completion, not
// suspended, pods replaced once Failed with a podFailurePolicy (TerminatingOrFailed
// without), and no manual selector.
func defaultJob(j *batchv1.Job) {
	spec := &j.Spec
	if spec.Completions == nil && spec.Parallelism == nil {
		spec.Completions = int32Ptr(1)
		spec.Parallelism = int32Ptr(1)
	}
	if spec.Parallelism == nil {
		spec.Parallelism = int32Ptr(1)
	}
	if spec.BackoffLimit == nil {
		if spec.BackoffLimitPerIndex != nil {
			spec.BackoffLimit = int32Ptr(math.MaxInt32)
		} else {
			spec.BackoffLimit = int32Ptr(6)
		}
	}
	// kube assigns the template's map itself, so the labels the Job strategy then adds
	// to the template (the generated selector's) show on the Job too.
	if labels := spec.Template.Labels; labels != nil && len(j.Labels) == 0 {
		j.Labels = labels
	}
	if spec.CompletionMode == nil {
		spec.CompletionMode = ptrTo(batchv1.NonIndexedCompletion)
	}
	if spec.Suspend == nil {
		spec.Suspend = new(bool)
	}
	if spec.PodReplacementPolicy == nil {
		if spec.PodFailurePolicy != nil {
			spec.PodReplacementPolicy = ptrTo(batchv1.Failed)
		} else {
			spec.PodReplacementPolicy = ptrTo(batchv1.TerminatingOrFailed)
		}
	}
	if spec.ManualSelector == nil {
		spec.ManualSelector = new(bool)
	}
}

// defaultCronJob is SetDefaults_CronJob: concurrent runs allowed, not suspended, three
// successful and one failed Job kept.
func defaultCronJob(c *batchv1.CronJob) {
	if c.Spec.ConcurrencyPolicy == "" {
		c.Spec.ConcurrencyPolicy = batchv1.AllowConcurrent
	}
	if c.Spec.Suspend == nil {
		c.Spec.Suspend = new(bool)
	}
	if c.Spec.SuccessfulJobsHistoryLimit == nil {
		c.Spec.SuccessfulJobsHistoryLimit = int32Ptr(3)
	}
	if c.Spec.FailedJobsHistoryLimit == nil {
		c.Spec.FailedJobsHistoryLimit = int32Ptr(1)
	}
}
