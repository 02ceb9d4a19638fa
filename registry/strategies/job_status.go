package strategies

import (
	"fmt"

	batchv1 "github.com/apikit-dev/apikit/builtin/batch/v1"
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// jobStatusOptions are kube's JobStatusValidationOptions: which transition rules a
// status update is held to. Most apply only when the fields they read changed, so that
// a controller can fix a status that a spec change made invalid.
type jobStatusOptions struct {
	rejectDecreasingSucceeded, rejectDecreasingFailed, rejectDisablingTerminal         bool
	rejectInvalidCompletedIndexes, rejectInvalidFailedIndexes                          bool
	rejectCompletedIndexesNonIndexed, rejectFailedIndexesNoBackoffLimitPerIndex        bool
	rejectFailedIndexesOverlappingCompleted, rejectFailedWithoutFailureTarget          bool
	rejectCompleteWithoutSuccessCriteriaMet, rejectFinishedWithActive                  bool
	rejectFinishedWithoutStartTime, rejectFinishedWithUncounted                        bool
	rejectStartTimeUpdateUnsuspended, rejectCompletionBeforeStart                      bool
	rejectMutatingCompletionTime, rejectNotCompleteWithCompletionTime                  bool
	rejectCompleteWithoutCompletionTime, rejectCompleteWithFailed                      bool
	rejectCompleteWithFailureTarget, rejectMoreReadyThanActive, rejectFinishedWithTerm bool
}

// jobStatusOptionsFor is the Job status strategy's getStatusValidationOptions with the
// JobManagedBy gate on (GA in v1.37).
func jobStatusOptionsFor(j, old *batchv1.Job) jobStatusOptions {
	isIndexed := j.Spec.CompletionMode != nil && *j.Spec.CompletionMode == batchv1.IndexedCompletion
	conds, oldConds := j.Status.Conditions, old.Status.Conditions
	changed := func(t batchv1.JobConditionType) bool {
		return jobConditionTrue(oldConds, t) != jobConditionTrue(conds, t)
	}
	finishedChanged := jobFinished(old) != jobFinished(j)
	completeChanged := changed(batchv1.JobComplete)
	failedChanged := changed(batchv1.JobFailed)
	completedIndexesChanged := old.Status.CompletedIndexes != j.Status.CompletedIndexes
	failedIndexesChanged := !ptrEqual(old.Status.FailedIndexes, j.Status.FailedIndexes)
	activeChanged := old.Status.Active != j.Status.Active
	startChanged := !timePtrEqual(old.Status.StartTime, j.Status.StartTime)
	completionChanged := !timePtrEqual(old.Status.CompletionTime, j.Status.CompletionTime)
	uncountedChanged := !semanticEqual(old.Status.UncountedTerminatedPods, j.Status.UncountedTerminatedPods)
	readyChanged := !ptrEqual(old.Status.Ready, j.Status.Ready)
	terminatingChanged := !ptrEqual(old.Status.Terminating, j.Status.Terminating)
	suspendedWithZeroCompletions := j.Spec.Suspend != nil && *j.Spec.Suspend && j.Spec.Completions != nil && *j.Spec.Completions == 0
	resuming := jobConditionTrue(oldConds, batchv1.JobSuspended) && jobConditionFalse(conds, batchv1.JobSuspended)
	return jobStatusOptions{
		rejectDecreasingSucceeded:                 !isIndexed || !ptrEqual(j.Spec.Completions, j.Spec.Parallelism),
		rejectDecreasingFailed:                    true,
		rejectDisablingTerminal:                   true,
		rejectInvalidCompletedIndexes:             completedIndexesChanged,
		rejectInvalidFailedIndexes:                failedIndexesChanged,
		rejectCompletedIndexesNonIndexed:          completedIndexesChanged,
		rejectFailedIndexesNoBackoffLimitPerIndex: failedIndexesChanged,
		rejectFailedIndexesOverlappingCompleted:   failedIndexesChanged || completedIndexesChanged,
		rejectFailedWithoutFailureTarget:          failedChanged || failedIndexesChanged,
		rejectCompleteWithoutSuccessCriteriaMet:   completeChanged || changed(batchv1.JobSuccessCriteriaMet),
		rejectFinishedWithActive:                  finishedChanged || activeChanged,
		rejectFinishedWithoutStartTime:            (finishedChanged || startChanged) && !suspendedWithZeroCompletions,
		rejectFinishedWithUncounted:               finishedChanged || uncountedChanged,
		rejectStartTimeUpdateUnsuspended:          startChanged && !resuming,
		rejectCompletionBeforeStart:               startChanged || completionChanged,
		rejectMutatingCompletionTime:              true,
		rejectNotCompleteWithCompletionTime:       completeChanged || completionChanged,
		rejectCompleteWithoutCompletionTime:       completeChanged || completionChanged,
		rejectCompleteWithFailed:                  completeChanged || failedChanged,
		rejectCompleteWithFailureTarget:           completeChanged || changed(batchv1.JobFailureTarget),
		rejectMoreReadyThanActive:                 readyChanged || activeChanged,
		rejectFinishedWithTerm:                    finishedChanged || terminatingChanged,
	}
}

func ptrEqual[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// timePtrEqual is ptr.Equal of two *metav1.Time: equal instants (metav1.Time compares
// by value, to the second once stored).
func timePtrEqual(a, b *scheme.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Time.Equal(b.Time)
}

// jobConditionTrue and jobConditionFalse are kube's IsConditionTrue and
// IsConditionFalse: any condition of the type with that status.
func jobConditionTrue(list []batchv1.JobCondition, t batchv1.JobConditionType) bool {
	return jobConditionIs(list, t, corev1.ConditionTrue)
}

func jobConditionFalse(list []batchv1.JobCondition, t batchv1.JobConditionType) bool {
	return jobConditionIs(list, t, corev1.ConditionFalse)
}

func jobConditionIs(list []batchv1.JobCondition, t batchv1.JobConditionType, s corev1.ConditionStatus) bool {
	for _, c := range list {
		if c.Type == t && c.Status == s {
			return true
		}
	}
	return false
}

// jobFinished is kube's IsJobFinished: Complete or Failed is true.
func jobFinished(j *batchv1.Job) bool {
	return jobConditionTrue(j.Status.Conditions, batchv1.JobComplete) || jobConditionTrue(j.Status.Conditions, batchv1.JobFailed)
}

// validateJobStatusUpdate is kube's ValidateJobStatusUpdate: the status's own rules, then
// the transitions from the stored status (terminal conditions stay, counters do not
// decrease, completionTime and a running Job's startTime do not change).
func validateJobStatusUpdate(j, old *batchv1.Job, opts jobStatusOptions) validation.ErrorList {
	sp := validation.NewPath("status")
	errs := validateJobStatus(j, sp, opts)
	conds, oldConds := j.Status.Conditions, old.Status.Conditions
	if opts.rejectDisablingTerminal {
		for _, t := range []batchv1.JobConditionType{batchv1.JobFailed, batchv1.JobComplete, batchv1.JobFailureTarget} {
			if jobConditionTrue(oldConds, t) && !jobConditionTrue(conds, t) {
				errs = append(errs, validation.Invalid(sp.Child("conditions"), validation.OmitValue, fmt.Sprintf("cannot disable the terminal %s=True condition", t)))
			}
		}
	}
	if opts.rejectDecreasingFailed && j.Status.Failed < old.Status.Failed {
		errs = append(errs, validation.Invalid(sp.Child("failed"), j.Status.Failed, "cannot decrease the failed counter"))
	}
	if opts.rejectDecreasingSucceeded && j.Status.Succeeded < old.Status.Succeeded {
		errs = append(errs, validation.Invalid(sp.Child("succeeded"), j.Status.Succeeded, "cannot decrease the succeeded counter"))
	}
	if opts.rejectMutatingCompletionTime && j.Status.CompletionTime != nil && old.Status.CompletionTime != nil && !timePtrEqual(j.Status.CompletionTime, old.Status.CompletionTime) {
		errs = append(errs, validation.Invalid(sp.Child("completionTime"), timeValue(j.Status.CompletionTime), validation.FieldImmutableErrorMsg))
	}
	if opts.rejectStartTimeUpdateUnsuspended && old.Status.StartTime != nil && !timePtrEqual(old.Status.StartTime, j.Status.StartTime) && (j.Spec.Suspend == nil || !*j.Spec.Suspend) {
		errs = append(errs, validation.Invalid(sp.Child("startTime"), timeValue(j.Status.StartTime), "field is immutable for unsuspended job once set"))
	}
	if jobConditionTrue(oldConds, batchv1.JobSuccessCriteriaMet) && !jobConditionTrue(conds, batchv1.JobSuccessCriteriaMet) {
		errs = append(errs, validation.Invalid(sp.Child("conditions"), validation.OmitValue, "cannot disable the SuccessCriteriaMet=True condition"))
	}
	if jobConditionTrue(oldConds, batchv1.JobComplete) && !jobConditionTrue(oldConds, batchv1.JobSuccessCriteriaMet) && jobConditionTrue(conds, batchv1.JobSuccessCriteriaMet) {
		errs = append(errs, validation.Invalid(sp.Child("conditions"), validation.OmitValue, "cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions"))
	}
	return errs
}

// timeValue is a *metav1.Time as kube's field error prints it: its JSON form
// ("2026-01-02T03:04:05Z"), null when nil.
func timeValue(t *scheme.Time) any {
	if t == nil {
		return nil
	}
	return t
}

// validateJobStatus is kube's validateJobStatus.
func validateJobStatus(j *batchv1.Job, p *validation.Path, opts jobStatusOptions) validation.ErrorList {
	st := &j.Status
	conds := st.Conditions
	errs := nonNegativeField(int64(st.Active), p.Child("active"))
	errs = append(errs, nonNegativeField(int64(st.Succeeded), p.Child("succeeded"))...)
	errs = append(errs, nonNegativeField(int64(st.Failed), p.Child("failed"))...)
	if st.Ready != nil {
		errs = append(errs, nonNegativeField(int64(*st.Ready), p.Child("ready"))...)
	}
	if st.Terminating != nil {
		errs = append(errs, nonNegativeField(int64(*st.Terminating), p.Child("terminating"))...)
	}
	if u := st.UncountedTerminatedPods; u != nil {
		up := p.Child("uncountedTerminatedPods")
		seen := map[scheme.UID]bool{}
		for _, list := range []struct {
			name string
			uids []scheme.UID
		}{{"succeeded", u.Succeeded}, {"failed", u.Failed}} {
			for i, uid := range list.uids {
				ip := up.Child(list.name).Index(i)
				switch {
				case uid == "":
					errs = append(errs, validation.Invalid(ip, string(uid), "must not be empty"))
				case seen[uid]:
					errs = append(errs, validation.Duplicate(ip, string(uid)))
				default:
					seen[uid] = true
				}
			}
		}
	}
	complete, failed := jobConditionTrue(conds, batchv1.JobComplete), jobConditionTrue(conds, batchv1.JobFailed)
	failureTarget, successMet := jobConditionTrue(conds, batchv1.JobFailureTarget), jobConditionTrue(conds, batchv1.JobSuccessCriteriaMet)
	cp := p.Child("conditions")
	if opts.rejectCompleteWithFailed && complete && failed {
		errs = append(errs, validation.Invalid(cp, validation.OmitValue, "cannot set Complete=True and Failed=true conditions"))
	}
	if opts.rejectCompleteWithFailureTarget && complete && failureTarget {
		errs = append(errs, validation.Invalid(cp, validation.OmitValue, "cannot set Complete=True and FailureTarget=true conditions"))
	}
	if opts.rejectNotCompleteWithCompletionTime && st.CompletionTime != nil && !complete {
		errs = append(errs, validation.Invalid(p.Child("completionTime"), timeValue(st.CompletionTime), "cannot set completionTime when there is no Complete=True condition"))
	}
	if opts.rejectCompleteWithoutCompletionTime && st.CompletionTime == nil && complete {
		errs = append(errs, validation.Required(p.Child("completionTime"), "completionTime is required for Complete jobs"))
	}
	if opts.rejectCompletionBeforeStart && st.StartTime != nil && st.CompletionTime != nil && st.CompletionTime.Before(st.StartTime.Time) {
		errs = append(errs, validation.Invalid(p.Child("completionTime"), timeValue(st.CompletionTime), "must be equal to or after `startTime`"))
	}
	if opts.rejectFailedWithoutFailureTarget && failed && !failureTarget {
		errs = append(errs, validation.Invalid(cp, validation.OmitValue, "cannot set Failed=True condition without the FailureTarget=true condition"))
	}
	if opts.rejectCompleteWithoutSuccessCriteriaMet && complete && !successMet {
		errs = append(errs, validation.Invalid(cp, validation.OmitValue, "cannot set Complete=True condition without the SuccessCriteriaMet=true condition"))
	}
	finished := complete || failed
	if opts.rejectFinishedWithActive && st.Active > 0 && finished {
		errs = append(errs, validation.Invalid(p.Child("active"), st.Active, "active>0 is invalid for finished job"))
	}
	if opts.rejectFinishedWithoutStartTime && st.StartTime == nil && finished {
		errs = append(errs, validation.Required(p.Child("startTime"), "startTime is required for finished job"))
	}
	if opts.rejectFinishedWithUncounted && finished && st.UncountedTerminatedPods != nil && len(st.UncountedTerminatedPods.Failed)+len(st.UncountedTerminatedPods.Succeeded) > 0 {
		errs = append(errs, validation.Invalid(p.Child("uncountedTerminatedPods"), badStruct(st.UncountedTerminatedPods), "must be empty for finished job"))
	}
	if opts.rejectInvalidCompletedIndexes && j.Spec.Completions != nil {
		if _, err := validateIndexesFormat(st.CompletedIndexes, *j.Spec.Completions); err != nil {
			errs = append(errs, validation.Invalid(p.Child("completedIndexes"), st.CompletedIndexes, "error parsing completedIndexes: "+err.Error()))
		}
	}
	if opts.rejectInvalidFailedIndexes && j.Spec.Completions != nil && j.Spec.BackoffLimitPerIndex != nil && st.FailedIndexes != nil {
		if _, err := validateIndexesFormat(*st.FailedIndexes, *j.Spec.Completions); err != nil {
			errs = append(errs, validation.Invalid(p.Child("failedIndexes"), st.FailedIndexes, "error parsing failedIndexes: "+err.Error()))
		}
	}
	isIndexed := j.Spec.CompletionMode != nil && *j.Spec.CompletionMode == batchv1.IndexedCompletion
	if opts.rejectCompletedIndexesNonIndexed && st.CompletedIndexes != "" && !isIndexed {
		errs = append(errs, validation.Invalid(p.Child("completedIndexes"), st.CompletedIndexes, "cannot set non-empty completedIndexes when non-indexed completion mode"))
	}
	if opts.rejectFailedIndexesNoBackoffLimitPerIndex && j.Spec.BackoffLimitPerIndex == nil && st.FailedIndexes != nil {
		errs = append(errs, validation.Invalid(p.Child("failedIndexes"), *st.FailedIndexes, "cannot set non-null failedIndexes when backoffLimitPerIndex is null"))
	}
	if opts.rejectFailedIndexesOverlappingCompleted && j.Spec.Completions != nil && st.FailedIndexes != nil {
		if err := indexesOverlap(st.CompletedIndexes, *st.FailedIndexes, *j.Spec.Completions); err != nil {
			errs = append(errs, validation.Invalid(p.Child("failedIndexes"), *st.FailedIndexes, err.Error()))
		}
	}
	if opts.rejectFinishedWithTerm && st.Terminating != nil && *st.Terminating > 0 && finished {
		errs = append(errs, validation.Invalid(p.Child("terminating"), st.Terminating, "terminating>0 is invalid for finished job"))
	}
	if opts.rejectMoreReadyThanActive && st.Ready != nil && *st.Ready > st.Active {
		errs = append(errs, validation.Invalid(p.Child("ready"), *st.Ready, "cannot set more ready pods than active"))
	}
	if successMet && failed {
		errs = append(errs, validation.Invalid(cp, validation.OmitValue, "cannot set SuccessCriteriaMet=True and Failed=true conditions"))
	}
	if successMet && failureTarget {
		errs = append(errs, validation.Invalid(cp, validation.OmitValue, "cannot set SuccessCriteriaMet=True and FailureTarget=true conditions"))
	}
	if j.Spec.SuccessPolicy != nil && !successMet && complete {
		errs = append(errs, validation.Invalid(cp, validation.OmitValue, "cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True"))
	}
	return errs
}
