package strategies

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	batchv1 "github.com/apikit-dev/apikit/builtin/batch/v1"
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	metav1 "github.com/apikit-dev/apikit/builtin/meta/v1"
	"github.com/apikit-dev/apikit/quantity"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
)

const testUID = "0a1b2c3d-0000-4000-8000-000000000001"

// job is a defaulted Job as the Job strategy's PrepareForCreate leaves it (uid set,
// selector and labels generated), after change ran on the user's manifest.
func job(t *testing.T, change func(j *batchv1.Job)) *batchv1.Job {
	t.Helper()
	j := &batchv1.Job{ObjectMeta: scheme.ObjectMeta{Name: "pi", Namespace: "default", UID: testUID},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{
			ObjectMeta: scheme.ObjectMeta{Labels: map[string]string{"app": "pi"}},
			Spec:       corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "pi", Image: "perl:5.34"}}},
		}}}
	if change != nil {
		change(j)
	}
	j = defaulted(t, j)
	prepareJobCreate(j)
	return j
}

func TestPrepareJobCreate_GeneratesSelectorAndLabelsAsKube(t *testing.T) {
	all := map[string]string{"app": "pi", jobNameLabel: "pi", legacyJobNameLabel: "pi", controllerUIDLabel: testUID, legacyControllerUIDLabel: testUID}
	tests := []struct {
		name                         string
		change                       func(j *batchv1.Job)
		wantSelector                 *metav1.LabelSelector
		wantLabels, wantTemplateLabs map[string]string
	}{
		{"the Job takes its template's labels with the generated ones", nil,
			&metav1.LabelSelector{MatchLabels: map[string]string{controllerUIDLabel: testUID}}, all, all},
		{"a Job with its own labels keeps them", func(j *batchv1.Job) { j.Labels = map[string]string{"team": "a"} },
			&metav1.LabelSelector{MatchLabels: map[string]string{controllerUIDLabel: testUID}}, map[string]string{"team": "a"}, all},
		{"a template without labels gets the generated ones, the Job none", func(j *batchv1.Job) { j.Spec.Template.Labels = nil },
			&metav1.LabelSelector{MatchLabels: map[string]string{controllerUIDLabel: testUID}}, nil,
			map[string]string{jobNameLabel: "pi", legacyJobNameLabel: "pi", controllerUIDLabel: testUID, legacyControllerUIDLabel: testUID}},
		{"a user's label is kept for validation to refuse", func(j *batchv1.Job) {
			j.Labels = map[string]string{"team": "a"}
			j.Spec.Template.Labels["job-name"] = "other"
			j.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "x", Operator: "Exists"}}}
		}, &metav1.LabelSelector{MatchLabels: map[string]string{controllerUIDLabel: testUID}, MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "x", Operator: "Exists"}}},
			map[string]string{"team": "a"},
			map[string]string{"app": "pi", jobNameLabel: "pi", legacyJobNameLabel: "other", controllerUIDLabel: testUID, legacyControllerUIDLabel: testUID}},
		{"a manual selector is left as written", func(j *batchv1.Job) {
			j.Labels = map[string]string{"team": "a"}
			j.Spec.ManualSelector = ptr(true)
			j.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "pi"}}
		}, &metav1.LabelSelector{MatchLabels: map[string]string{"app": "pi"}}, map[string]string{"team": "a"}, map[string]string{"app": "pi"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := job(t, tt.change)
			if d := cmp.Diff(tt.wantSelector, j.Spec.Selector); d != "" {
				t.Errorf("selector (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.wantLabels, j.Labels); d != "" {
				t.Errorf("labels (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.wantTemplateLabs, j.Spec.Template.Labels); d != "" {
				t.Errorf("template labels (-want +got):\n%s", d)
			}
		})
	}
}

func TestValidateJob_KubesMessagesAndPaths(t *testing.T) {
	indexed := func(j *batchv1.Job) {
		j.Spec.CompletionMode = ptr(batchv1.IndexedCompletion)
		j.Spec.Completions = ptr(int32(5))
		j.Spec.Parallelism = ptr(int32(5))
	}
	tests := []struct {
		name   string
		change func(j *batchv1.Job)
		want   []string
	}{
		{"a defaulted job is valid", nil, nil},
		{"pods do not always restart", func(j *batchv1.Job) { j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyAlways }, []string{
			`spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"`}},
		{"counts are not negative", func(j *batchv1.Job) {
			j.Spec.Parallelism, j.Spec.BackoffLimit, j.Spec.ActiveDeadlineSeconds = ptr(int32(-1)), ptr(int32(-2)), ptr(int64(-3))
		}, []string{
			"spec.parallelism: Invalid value: -1: must be greater than or equal to 0",
			"spec.activeDeadlineSeconds: Invalid value: -3: must be greater than or equal to 0",
			"spec.backoffLimit: Invalid value: -2: must be greater than or equal to 0"}},
		{"an unknown completion mode", func(j *batchv1.Job) { j.Spec.CompletionMode = ptr(batchv1.CompletionMode("Sequential")) }, []string{
			`spec.completionMode: Unsupported value: "Sequential": supported values: "NonIndexed", "Indexed"`}},
		{"per-index backoff needs Indexed", func(j *batchv1.Job) {
			j.Spec.BackoffLimitPerIndex, j.Spec.MaxFailedIndexes = ptr(int32(1)), ptr(int32(1))
		}, []string{
			"spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode",
			"spec.maxFailedIndexes: Invalid value: 1: requires indexed completion mode"}},
		{"maxFailedIndexes needs backoffLimitPerIndex", func(j *batchv1.Job) { indexed(j); j.Spec.MaxFailedIndexes = ptr(int32(6)) }, []string{
			"spec.backoffLimitPerIndex: Required value: when maxFailedIndexes is specified",
			"spec.maxFailedIndexes: Invalid value: 6: must be less than or equal to completions"}},
		{"an Indexed job's name fits its pods' hostnames", func(j *batchv1.Job) {
			indexed(j)
			j.Name = strings.Repeat("n", 62)
			j.Labels = map[string]string{"a": "b"}
		}, []string{
			`metadata.name: Invalid value: "` + strings.Repeat("n", 62) + `": will not able to create pod with invalid DNS label: ` + strings.Repeat("n", 62) + "-4"}},
		{"a pod failure policy needs Never and valid rules", func(j *batchv1.Job) {
			j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
			j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{
				{Action: "Retry", OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: "In", Values: []int32{5, 0, 5}}},
				{Action: "FailIndex", OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{ContainerName: ptr("nope"), Values: []int32{}},
					OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: "Bad Type", Status: "Maybe"}}},
				{Action: "Count"},
			}}
		}, []string{
			`spec.podFailurePolicy.rules[0].action: Unsupported value: "Retry": supported values: "Count", "FailIndex", "FailJob", "Ignore"`,
			"spec.podFailurePolicy.rules[0].onExitCodes.values[1]: Invalid value: 0: must not be 0 for the In operator",
			"spec.podFailurePolicy.rules[0].onExitCodes.values[2]: Duplicate value: 5",
			"spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: [5,0,5]: must be ordered",
			`spec.podFailurePolicy.rules[1].action: Invalid value: "FailIndex": requires the backoffLimitPerIndex to be set`,
			`spec.podFailurePolicy.rules[1].onExitCodes.operator: Required value: valid values: ["In" "NotIn"]`,
			`spec.podFailurePolicy.rules[1].onExitCodes.containerName: Invalid value: "nope": must be one of the container or initContainer names in the pod template`,
			"spec.podFailurePolicy.rules[1].onExitCodes.values: Invalid value: []: at least one value is required",
			`spec.podFailurePolicy.rules[1].onPodConditions[0].type: Invalid value: "Bad Type": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
			`spec.podFailurePolicy.rules[1].onPodConditions[0].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"`,
			"spec.podFailurePolicy.rules[1]: Invalid value: specifying both OnExitCodes and OnPodConditions is not supported",
			"spec.podFailurePolicy.rules[2]: Invalid value: specifying one of OnExitCodes and OnPodConditions is required",
			`spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is specified`}},
		{"a success policy needs Indexed", func(j *batchv1.Job) {
			j.Spec.SuccessPolicy = &batchv1.SuccessPolicy{Rules: []batchv1.SuccessPolicyRule{{SucceededCount: ptr(int32(1))}}}
		}, []string{"spec.successPolicy: Invalid value: {\"Rules\":[{\"SucceededIndexes\":null,\"SucceededCount\":1}]}: requires indexed completion mode"}},
		{"a success policy's rules fit the completions", func(j *batchv1.Job) {
			indexed(j)
			j.Spec.SuccessPolicy = &batchv1.SuccessPolicy{Rules: []batchv1.SuccessPolicyRule{
				{SucceededIndexes: ptr("0-2,1"), SucceededCount: ptr(int32(9))}, {SucceededIndexes: ptr("1-3"), SucceededCount: ptr(int32(4))}, {}}}
		}, []string{
			`spec.successPolicy.rules[0].succeededIndexes: Invalid value: "0-2,1": error parsing succeededIndexes: non-increasing order, previous: 2, current: 1`,
			"spec.successPolicy.rules[0].succeededCount: Invalid value: 9: must be less than or equal to 5 (the number of specified completions)",
			"spec.successPolicy.rules[0].succeededCount: Invalid value: 9: must be less than or equal to 0 (the number of indexes in the specified succeededIndexes field)",
			"spec.successPolicy.rules[1].succeededCount: Invalid value: 4: must be less than or equal to 3 (the number of indexes in the specified succeededIndexes field)",
			"spec.successPolicy.rules[2]: Required value: at least one of succeededCount or succeededIndexes must be specified"}},
		{"managedBy is a domain-prefixed path of at most 63 bytes", func(j *batchv1.Job) { j.Spec.ManagedBy = ptr("example.com/" + strings.Repeat("p", 60)) }, []string{
			"spec.managedBy: Too long: may not be more than 63 bytes"}},
		{"managedBy has a domain", func(j *batchv1.Job) { j.Spec.ManagedBy = ptr("no-slash") }, []string{
			`spec.managedBy: Invalid value: "no-slash": must be a domain-prefixed path (such as "acme.io/foo")`}},
		{"a generated selector the user changed", func(j *batchv1.Job) {
			j.Spec.Template.Labels["job-name"] = "other"
			j.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "pi"}}
		}, []string{
			`spec.template.metadata.labels[job-name]: Invalid value: {"app":"pi","batch.kubernetes.io/controller-uid":"` + testUID + `","batch.kubernetes.io/job-name":"pi","controller-uid":"` + testUID + `","job-name":"other"}: must be 'pi'`,
			"spec.selector: Invalid value: {\"matchLabels\":{\"app\":\"pi\",\"batch.kubernetes.io/controller-uid\":\"" + testUID + "\"}}: `selector` not auto-generated"}},
		{"a manual selector matches the template", func(j *batchv1.Job) {
			j.Spec.ManualSelector = ptr(true)
			j.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "other"}}
		}, []string{`spec.template.metadata.labels: Invalid value: {"app":"pi"}: ` + mismatch}},
		{"repeated errors are reported once", func(j *batchv1.Job) { j.Name = "-pi"; j.Labels = nil }, []string{
			`metadata.name: Invalid value: "-pi": ` + dnsSubdomainMsg,
			`metadata.labels: Invalid value: "-pi": ` + labelValueMsg,
			`spec.template.labels: Invalid value: "-pi": ` + labelValueMsg}},
	}
	st := Batch()[batchv1.Jobs].(registry.StrategyFor[*batchv1.Job])
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, causes(st.Validate(context.Background(), job(t, tt.change)))); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
		})
	}
}

// labelValueMsg is kube's IsValidLabelValue message of a bad value.
const labelValueMsg = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"

func TestValidateJobUpdate_TemplateMutableOnlyWhileSuspendedAsKube(t *testing.T) {
	start := scheme.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	tests := []struct {
		name   string
		old    func(j *batchv1.Job)
		change func(j *batchv1.Job)
		want   []string
	}{
		{"parallelism may change", nil, func(j *batchv1.Job) { j.Spec.Parallelism = ptr(int32(3)) }, nil},
		{"a running job's template may not change", nil, func(j *batchv1.Job) { j.Spec.Template.Spec.NodeSelector = map[string]string{"pool": "b"} }, []string{"spec.template"}},
		{"a suspended job that never started changes its scheduling directives", func(j *batchv1.Job) { j.Spec.Suspend = ptr(true) },
			func(j *batchv1.Job) {
				j.Spec.Template.Spec.NodeSelector = map[string]string{"pool": "b"}
				j.Spec.Template.Spec.Tolerations = []corev1.Toleration{{Key: "k", Operator: "Exists"}}
				j.Spec.Template.Annotations = map[string]string{"a": "b"}
			}, nil},
		{"and its containers' resources", func(j *batchv1.Job) { j.Spec.Suspend = ptr(true) },
			func(j *batchv1.Job) {
				j.Spec.Template.Spec.Containers[0].Resources.Requests = corev1.ResourceList{"cpu": quantity.MustParse("2")}
			}, nil},
		{"but not its image", func(j *batchv1.Job) { j.Spec.Suspend = ptr(true) },
			func(j *batchv1.Job) { j.Spec.Template.Spec.Containers[0].Image = "perl:5.36" }, []string{"spec.template.spec"}},
		{"a suspended job that ran keeps its template", func(j *batchv1.Job) { j.Spec.Suspend = ptr(true); j.Status.StartTime = &start },
			func(j *batchv1.Job) { j.Spec.Template.Spec.NodeSelector = map[string]string{"pool": "b"} }, []string{"spec.template"}},
		{"unless it is suspended again with no active pods", func(j *batchv1.Job) {
			j.Spec.Suspend = ptr(true)
			j.Status.StartTime = &start
			j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobSuspended, Status: corev1.ConditionTrue}}
		}, func(j *batchv1.Job) { j.Spec.Template.Spec.NodeSelector = map[string]string{"pool": "b"} }, nil},
		{"a NonIndexed job's completions are immutable", nil, func(j *batchv1.Job) { j.Spec.Completions = ptr(int32(2)) }, []string{"spec.completions"}},
		{"an Indexed job's change together with parallelism", func(j *batchv1.Job) {
			j.Spec.CompletionMode, j.Spec.Completions, j.Spec.Parallelism = ptr(batchv1.IndexedCompletion), ptr(int32(3)), ptr(int32(3))
		}, func(j *batchv1.Job) { j.Spec.Completions, j.Spec.Parallelism = ptr(int32(5)), ptr(int32(5)) }, nil},
		{"but not alone", func(j *batchv1.Job) {
			j.Spec.CompletionMode, j.Spec.Completions, j.Spec.Parallelism = ptr(batchv1.IndexedCompletion), ptr(int32(3)), ptr(int32(3))
		}, func(j *batchv1.Job) { j.Spec.Completions = ptr(int32(5)) }, []string{"spec.completions"}},
		{"the selector, completion mode and policies are immutable", nil, func(j *batchv1.Job) {
			j.Spec.Selector.MatchLabels["x"] = "y"
			j.Spec.CompletionMode = ptr(batchv1.IndexedCompletion)
			j.Spec.ManagedBy = ptr("example.com/x")
		}, []string{"spec.completionMode", "spec.managedBy", "spec.selector", "spec.template.metadata.labels"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := job(t, nil)
			if tt.old != nil {
				tt.old(old)
			}
			j := scheme.DeepCopy(old)
			tt.change(j)
			var fields []string
			for _, e := range validateJobUpdate(j, old) {
				fields = append(fields, e.Field)
			}
			if d := cmp.Diff(tt.want, sortedUnique(fields)); d != "" {
				t.Errorf("fields (-want +got):\n%s", d)
			}
		})
	}
}

func sortedUnique(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	m := map[string]string{}
	for _, v := range s {
		m[v] = v
	}
	return sortedKeys(m)
}

func TestValidateJobStatusUpdate_TransitionsAsKube(t *testing.T) {
	t0 := scheme.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	t1 := scheme.NewTime(time.Date(2026, 1, 2, 3, 5, 10, 0, time.UTC))
	cond := func(types ...batchv1.JobConditionType) []batchv1.JobCondition {
		var out []batchv1.JobCondition
		for _, c := range types {
			out = append(out, batchv1.JobCondition{Type: c, Status: corev1.ConditionTrue})
		}
		return out
	}
	tests := []struct {
		name        string
		old, status batchv1.JobStatus
		indexed     bool
		want        []string
	}{
		{"a job starts", batchv1.JobStatus{}, batchv1.JobStatus{StartTime: &t0, Active: 1, Ready: ptr(int32(1))}, false, nil},
		{"more ready than active", batchv1.JobStatus{}, batchv1.JobStatus{Active: 1, Ready: ptr(int32(2))}, false, []string{
			"status.ready: Invalid value: 2: cannot set more ready pods than active"}},
		{"a job completes", batchv1.JobStatus{StartTime: &t0, Active: 1},
			batchv1.JobStatus{StartTime: &t0, CompletionTime: &t1, Succeeded: 1, Conditions: cond(batchv1.JobSuccessCriteriaMet, batchv1.JobComplete)}, false, nil},
		{"completion before start", batchv1.JobStatus{StartTime: &t1},
			batchv1.JobStatus{StartTime: &t1, CompletionTime: &t0, Conditions: cond(batchv1.JobSuccessCriteriaMet, batchv1.JobComplete)}, false, []string{
				"status.completionTime: Invalid value: \"2026-01-02T03:04:05Z\": must be equal to or after `startTime`"}},
		{"a finished job with active pods and no start", batchv1.JobStatus{},
			batchv1.JobStatus{Active: 2, Conditions: cond(batchv1.JobFailureTarget, batchv1.JobFailed)}, false, []string{
				"status.active: Invalid value: 2: active>0 is invalid for finished job",
				"status.startTime: Required value: startTime is required for finished job"}},
		{"terminal conditions stay and counters do not decrease", batchv1.JobStatus{StartTime: &t0, Failed: 3, Succeeded: 2, Conditions: cond(batchv1.JobFailureTarget)},
			batchv1.JobStatus{StartTime: &t0, Failed: 1, Succeeded: 1}, false, []string{
				"status.conditions: Invalid value: cannot disable the terminal FailureTarget=True condition",
				"status.failed: Invalid value: 1: cannot decrease the failed counter",
				"status.succeeded: Invalid value: 1: cannot decrease the succeeded counter"}},
		{"an Indexed job with equal completions and parallelism may decrease succeeded", batchv1.JobStatus{Succeeded: 2},
			batchv1.JobStatus{Succeeded: 1}, true, nil},
		{"a running job's start time is fixed", batchv1.JobStatus{StartTime: &t0}, batchv1.JobStatus{StartTime: &t1}, false, []string{
			"status.startTime: Invalid value: \"2026-01-02T03:05:10Z\": field is immutable for unsuspended job once set"}},
		{"indexes of a NonIndexed job", batchv1.JobStatus{}, batchv1.JobStatus{CompletedIndexes: "0", FailedIndexes: ptr("1")}, false, []string{
			`status.completedIndexes: Invalid value: "0": cannot set non-empty completedIndexes when non-indexed completion mode`,
			`status.failedIndexes: Invalid value: "1": cannot set non-null failedIndexes when backoffLimitPerIndex is null`}},
		{"bad completed indexes", batchv1.JobStatus{}, batchv1.JobStatus{CompletedIndexes: "1,0-1,9"}, true, []string{
			`status.completedIndexes: Invalid value: "1,0-1,9": error parsing completedIndexes: non-increasing order, previous: 1, current: 0`}},
		{"uncounted pods are unique", batchv1.JobStatus{}, batchv1.JobStatus{UncountedTerminatedPods: &batchv1.UncountedTerminatedPods{
			Succeeded: []scheme.UID{"a", ""}, Failed: []scheme.UID{"a"}}}, false, []string{
			`status.uncountedTerminatedPods.succeeded[1]: Invalid value: "": must not be empty`,
			`status.uncountedTerminatedPods.failed[0]: Duplicate value: "a"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := job(t, func(j *batchv1.Job) {
				if tt.indexed {
					j.Spec.CompletionMode, j.Spec.Completions, j.Spec.Parallelism = ptr(batchv1.IndexedCompletion), ptr(int32(3)), ptr(int32(3))
				}
			})
			old.Status = tt.old
			j := scheme.DeepCopy(old)
			j.Status = tt.status
			got := causes(validateJobStatusUpdate(j, old, jobStatusOptionsFor(j, old)))
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
		})
	}
}

func TestJobStrategy_GenerationStatusAndScheduling(t *testing.T) {
	st := Batch()[batchv1.Jobs].(registry.StrategyFor[*batchv1.Job])
	ctx := context.Background()
	old := job(t, nil)
	old.Generation = 2
	old.Status = batchv1.JobStatus{Active: 1}
	tests := []struct {
		name    string
		change  func(j *batchv1.Job)
		wantGen int64
	}{
		{"no change keeps the generation", func(*batchv1.Job) {}, 2},
		{"a label change keeps it", func(j *batchv1.Job) { j.Labels = map[string]string{"a": "b"} }, 2},
		{"a spec change bumps it", func(j *batchv1.Job) { j.Spec.Parallelism = ptr(int32(4)) }, 3},
		{"a status change is dropped", func(j *batchv1.Job) { j.Status.Active = 9 }, 2},
		{"spec.scheduling is dropped (WorkloadWithJob is off)", func(j *batchv1.Job) { j.Spec.Scheduling = &batchv1.JobSchedulingConfiguration{} }, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := scheme.DeepCopy(old)
			tt.change(j)
			st.PrepareForUpdate(ctx, j, old)
			if j.Generation != tt.wantGen || j.Status.Active != 1 || j.Spec.Scheduling != nil {
				t.Errorf("generation %d, status.active %d, scheduling %v; want %d, 1, nil", j.Generation, j.Status.Active, j.Spec.Scheduling, tt.wantGen)
			}
		})
	}
}

// TestValidateJob_IndexedSuccessPolicyWithoutCompletionsIs422 holds the one intended
// difference of Job validation: kube's validateSuccessPolicyRule dereferences the missing
// completions of an Indexed Job with a success policy and panics (kube-apiserver answers
// 500); apikit answers kube's Required cause and checks what does not need completions.
func TestValidateJob_IndexedSuccessPolicyWithoutCompletionsIs422(t *testing.T) {
	j := job(t, func(j *batchv1.Job) {
		j.Spec.CompletionMode = ptr(batchv1.IndexedCompletion)
		j.Spec.Parallelism = ptr(int32(2))
		j.Spec.SuccessPolicy = &batchv1.SuccessPolicy{Rules: []batchv1.SuccessPolicyRule{{SucceededIndexes: ptr("0-1"), SucceededCount: ptr(int32(-1))}}}
	})
	want := []string{
		"spec.completions: Required value: when completion mode is Indexed",
		"spec.successPolicy.rules[0].succeededCount: Invalid value: -1: must be greater than or equal to 0",
	}
	if d := cmp.Diff(want, causes(validateJobCreate(j))); d != "" {
		t.Errorf("errors (-want +got):\n%s", d)
	}
}

func TestBatchWarnings_AsKube(t *testing.T) {
	ctx := context.Background()
	jobs := Batch()[batchv1.Jobs].(registry.StrategyFor[*batchv1.Job])
	crons := Batch()[batchv1.CronJobs].(registry.StrategyFor[*batchv1.CronJob])
	j := job(t, func(j *batchv1.Job) {
		j.Name = "pi.v2"
		j.Spec.Template.Spec.NodeSelector = map[string]string{"beta.kubernetes.io/arch": "amd64"}
	})
	c := &batchv1.CronJob{ObjectMeta: scheme.ObjectMeta{Name: "hello", Generation: 1}, Spec: batchv1.CronJobSpec{Schedule: "TZ=UTC @daily",
		JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: j.Spec.Template}}}}
	tests := []struct {
		name string
		got  []string
		want []string
	}{
		{"a job named with a dot, with a deprecated node label", jobs.WarningsOnCreate(ctx, j), []string{
			`metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]`,
			`spec.template.spec.nodeSelector[beta.kubernetes.io/arch]: deprecated since v1.14; use "kubernetes.io/arch" instead`}},
		{"a job update without a spec change", jobs.WarningsOnUpdate(ctx, j, j), nil},
		{"a cronjob's template warns at its path", crons.WarningsOnCreate(ctx, c), []string{
			`spec.jobTemplate.spec.template.spec.nodeSelector[beta.kubernetes.io/arch]: deprecated since v1.14; use "kubernetes.io/arch" instead`}},
		{"a cronjob update with TZ in its schedule", crons.WarningsOnUpdate(ctx, c, c), []string{
			"cannot use TZ or CRON_TZ in spec.spec.schedule, use timeZone instead, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, tt.got); d != "" {
				t.Errorf("warnings (-want +got):\n%s", d)
			}
		})
	}
}
