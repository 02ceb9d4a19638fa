package builtin_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apikit-dev/apikit/builtin"
	batchv1 "github.com/apikit-dev/apikit/builtin/batch/v1"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/scheme"
)

// TestBatchKinds_ServedWithKubeTableColumns creates a Job and a CronJob and reads them
// back as the Tables kubectl asks for: kube's columns and cells (the generated selector
// is the Job strategy's, held in registry/strategies).
func TestBatchKinds_ServedWithKubeTableColumns(t *testing.T) {
	srv := eventsServer(t)
	template := map[string]any{"spec": map[string]any{"restartPolicy": "Never", "containers": []any{
		map[string]any{"name": "pi", "image": "perl:5.34"}, map[string]any{"name": "log", "image": "busybox"}}}}
	call(t, srv, http.MethodPost, "/apis/batch/v1/namespaces/default/jobs", map[string]any{
		"apiVersion": "batch/v1", "kind": "Job", "metadata": map[string]any{"name": "pi"},
		"spec": map[string]any{"parallelism": 3, "completions": 6, "template": template,
			"selector": map[string]any{"matchLabels": map[string]any{"app": "pi"}}}}, http.StatusCreated)
	call(t, srv, http.MethodPost, "/apis/batch/v1/namespaces/default/cronjobs", map[string]any{
		"apiVersion": "batch/v1", "kind": "CronJob", "metadata": map[string]any{"name": "hello"},
		"spec": map[string]any{"schedule": "*/5 * * * *", "timeZone": "UTC", "jobTemplate": map[string]any{"spec": map[string]any{"template": template}}}}, http.StatusCreated)
	for _, tt := range []struct {
		path, columns string
		cells         map[int]any
	}{
		{"/apis/batch/v1/namespaces/default/jobs/pi", "Name,Status,Completions,Duration,Age,Containers,Images,Selector",
			map[int]any{0: "pi", 1: "Running", 2: "0/6", 3: "", 5: "pi,log", 6: "perl:5.34,busybox", 7: "app=pi"}},
		{"/apis/batch/v1/namespaces/default/cronjobs/hello", "Name,Schedule,Timezone,Suspend,Active,Last Schedule,Age,Containers,Images,Selector",
			map[int]any{0: "hello", 1: "*/5 * * * *", 2: "UTC", 3: "False", 4: float64(0), 5: "<none>", 7: "pi,log", 8: "perl:5.34,busybox", 9: "<none>"}},
	} {
		t.Run(tt.path, func(t *testing.T) {
			table := callAccept(t, srv, tt.path, "application/json;as=Table;g=meta.k8s.io;v=v1")
			var names []string
			for _, c := range table["columnDefinitions"].([]any) {
				names = append(names, c.(map[string]any)["name"].(string))
			}
			if got := strings.Join(names, ","); got != tt.columns {
				t.Fatalf("columns %s, want %s", got, tt.columns)
			}
			cells := table["rows"].([]any)[0].(map[string]any)["cells"].([]any)
			for i, want := range tt.cells {
				if cells[i] != want {
					t.Errorf("cell %d (%s) = %#v, want %#v", i, names[i], cells[i], want)
				}
			}
		})
	}
}

// TestBatchDefaults_AsKubeV1_37 holds SetDefaults_Job and SetDefaults_CronJob of
// kube-apiserver v1.37.2, compared in their JSON form.
func TestBatchDefaults_AsKubeV1_37(t *testing.T) {
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		obj  any
		in   string
		want string // the spec after defaulting, but for the (job) template
	}{
		{"job", &batchv1.Job{}, `{"spec":{}}`,
			`{"parallelism":1,"completions":1,"backoffLimit":6,"completionMode":"NonIndexed","suspend":false,"podReplacementPolicy":"TerminatingOrFailed","manualSelector":false}`},
		{"parallel job keeps completions unset", &batchv1.Job{}, `{"spec":{"parallelism":4}}`,
			`{"parallelism":4,"backoffLimit":6,"completionMode":"NonIndexed","suspend":false,"podReplacementPolicy":"TerminatingOrFailed","manualSelector":false}`},
		{"completions alone get parallelism 1", &batchv1.Job{}, `{"spec":{"completions":5}}`,
			`{"parallelism":1,"completions":5,"backoffLimit":6,"completionMode":"NonIndexed","suspend":false,"podReplacementPolicy":"TerminatingOrFailed","manualSelector":false}`},
		{"per-index backoff lifts backoffLimit", &batchv1.Job{}, `{"spec":{"completionMode":"Indexed","completions":3,"backoffLimitPerIndex":1}}`,
			`{"parallelism":1,"completions":3,"backoffLimit":2147483647,"backoffLimitPerIndex":1,"completionMode":"Indexed","suspend":false,"podReplacementPolicy":"TerminatingOrFailed","manualSelector":false}`},
		{"a pod failure policy replaces failed pods only, its conditions True", &batchv1.Job{},
			`{"spec":{"podFailurePolicy":{"rules":[{"action":"Ignore","onPodConditions":[{"type":"DisruptionTarget"}]}]}}}`,
			`{"parallelism":1,"completions":1,"backoffLimit":6,"completionMode":"NonIndexed","suspend":false,"podReplacementPolicy":"Failed","manualSelector":false,
			  "podFailurePolicy":{"rules":[{"action":"Ignore","onPodConditions":[{"type":"DisruptionTarget","status":"True"}]}]}}`},
		{"cronjob, its job template without Job defaults", &batchv1.CronJob{}, `{"spec":{"schedule":"@daily","jobTemplate":{"spec":{}}}}`,
			`{"schedule":"@daily","concurrencyPolicy":"Allow","suspend":false,"successfulJobsHistoryLimit":3,"failedJobsHistoryLimit":1,"jobTemplate":{"spec":{}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := json.Unmarshal([]byte(tt.in), tt.obj); err != nil {
				t.Fatal(err)
			}
			conversion.Default(s, tt.obj)
			b, err := json.Marshal(tt.obj)
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Spec map[string]any `json:"spec"`
			}
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			delete(got.Spec, "template")
			if jt, ok := got.Spec["jobTemplate"].(map[string]any); ok {
				delete(jt["spec"].(map[string]any), "template")
				delete(jt, "metadata")
			}
			var want map[string]any
			if err := json.Unmarshal([]byte(tt.want), &want); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, got.Spec); d != "" {
				t.Errorf("defaulted spec (-want +got):\n%s", d)
			}
		})
	}
}

// TestBatchDefaults_JobSharesItsTemplatesLabels holds SetDefaults_Job's assignment of the
// template's label map to a Job without labels: the two are one map, so the labels the
// strategy generates on the template show on the Job, as in kube.
func TestBatchDefaults_JobSharesItsTemplatesLabels(t *testing.T) {
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	j := &batchv1.Job{}
	j.Spec.Template.Labels = map[string]string{"app": "pi"}
	conversion.Default(s, j)
	j.Spec.Template.Labels["job-name"] = "pi"
	if j.Labels["job-name"] != "pi" {
		t.Errorf("job labels %v do not share the template's map", j.Labels)
	}
}
