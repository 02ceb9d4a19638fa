package builtin

import (
	"testing"
	"time"

	batchv1 "github.com/apikit-dev/apikit/builtin/batch/v1"
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/scheme"
)

// TestJobCells_AsKubesPrintJob holds kube's printJob cells: COMPLETIONS with and without
// completions (" of <parallelism>" past one pod), DURATION before, during and after the
// run, and STATUS in kube's order of precedence (the first condition of a type decides).
func TestJobCells_AsKubesPrintJob(t *testing.T) {
	start := scheme.NewTime(time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC))
	done := scheme.NewTime(start.Add(3*time.Minute + 20*time.Second))
	now := start.Add(90 * time.Second)
	cond := func(ct batchv1.JobConditionType, s corev1.ConditionStatus) batchv1.JobCondition {
		return batchv1.JobCondition{Type: ct, Status: s}
	}
	tests := []struct {
		name                          string
		job                           batchv1.Job
		completions, duration, status string
	}{
		{"a new job", batchv1.Job{Spec: batchv1.JobSpec{Completions: int32Ptr(1)}}, "0/1", "", "Running"},
		{"a running job without completions", batchv1.Job{Spec: batchv1.JobSpec{Parallelism: int32Ptr(1)},
			Status: batchv1.JobStatus{StartTime: &start}}, "0/1", "90s", "Running"},
		{"parallel without completions", batchv1.Job{Spec: batchv1.JobSpec{Parallelism: int32Ptr(3)},
			Status: batchv1.JobStatus{Succeeded: 2, StartTime: &start}}, "2/1 of 3", "90s", "Running"},
		{"a complete job", batchv1.Job{Spec: batchv1.JobSpec{Completions: int32Ptr(3)},
			Status: batchv1.JobStatus{Succeeded: 3, StartTime: &start, CompletionTime: &done,
				Conditions: []batchv1.JobCondition{cond(batchv1.JobSuccessCriteriaMet, corev1.ConditionTrue), cond(batchv1.JobComplete, corev1.ConditionTrue)}}},
			"3/3", "3m20s", "Complete"},
		{"a failed job", batchv1.Job{Spec: batchv1.JobSpec{Completions: int32Ptr(1)},
			Status: batchv1.JobStatus{Conditions: []batchv1.JobCondition{cond(batchv1.JobFailureTarget, corev1.ConditionTrue), cond(batchv1.JobFailed, corev1.ConditionTrue)}}},
			"0/1", "", "Failed"},
		{"a job being deleted", batchv1.Job{ObjectMeta: scheme.ObjectMeta{DeletionTimestamp: &start}, Spec: batchv1.JobSpec{Completions: int32Ptr(1)},
			Status: batchv1.JobStatus{Conditions: []batchv1.JobCondition{cond(batchv1.JobSuspended, corev1.ConditionTrue)}}}, "0/1", "", "Terminating"},
		{"a suspended job", batchv1.Job{Spec: batchv1.JobSpec{Completions: int32Ptr(1)},
			Status: batchv1.JobStatus{Conditions: []batchv1.JobCondition{cond(batchv1.JobSuspended, corev1.ConditionTrue)}}}, "0/1", "", "Suspended"},
		{"the first condition of a type decides", batchv1.Job{Spec: batchv1.JobSpec{Completions: int32Ptr(1)},
			Status: batchv1.JobStatus{Conditions: []batchv1.JobCondition{cond(batchv1.JobSuspended, corev1.ConditionFalse), cond(batchv1.JobSuspended, corev1.ConditionTrue),
				cond(batchv1.JobSuccessCriteriaMet, corev1.ConditionTrue)}}}, "0/1", "", "SuccessCriteriaMet"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := &tt.job
			if got := jobCompletionsCell(j); got != tt.completions {
				t.Errorf("COMPLETIONS %q, want %q", got, tt.completions)
			}
			if got := jobDurationCell(j, now); got != tt.duration {
				t.Errorf("DURATION %q, want %q", got, tt.duration)
			}
			if got := jobStatusCell(j); got != tt.status {
				t.Errorf("STATUS %q, want %q", got, tt.status)
			}
		})
	}
}
