package strategies_test

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/rest"
)

// piJob is the Job of kube's docs as a user writes it: no selector, template labels
// only, restartPolicy Never.
func piJob() map[string]any {
	return map[string]any{
		"apiVersion": "batch/v1", "kind": "Job",
		"metadata": map[string]any{"name": "pi"},
		"spec": map[string]any{
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": "pi"}},
				"spec": map[string]any{"restartPolicy": "Never",
					"containers": []any{map[string]any{"name": "pi", "image": "perl:5.34", "command": []any{"perl", "-Mbignum=bpi", "-wle", "print bpi(2000)"}}}},
			},
		},
	}
}

// TestJob_GeneratedSelectorDefaultsAndImmutableTemplateAsKube drives a Job through the
// HTTP API: kube's defaults, the selector and labels generated from its uid and name
// (on the template, and on the Job, whose labels the defaults took from the template),
// generation 1, the template immutable while it runs, and its status written through
// /status under kube's transition rules.
func TestJob_GeneratedSelectorDefaultsAndImmutableTemplateAsKube(t *testing.T) {
	srv := apitest.NewServer(t, appsScheme(t), apitest.Options{REST: rest.Options{Strategies: strategies.Builtin()}})
	call(t, srv, http.MethodPost, "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": "default"}}, http.StatusCreated)
	const path = "/apis/batch/v1/namespaces/default/jobs"

	j := call(t, srv, http.MethodPost, path, piJob(), http.StatusCreated)
	uid, _ := at(j, "metadata", "uid").(string)
	if uid == "" {
		t.Fatalf("created job has no uid: %v", j)
	}
	generated := map[string]any{"app": "pi", "batch.kubernetes.io/controller-uid": uid, "batch.kubernetes.io/job-name": "pi",
		"controller-uid": uid, "job-name": "pi"}
	for _, c := range []struct {
		path []string
		want any
	}{
		{[]string{"metadata", "generation"}, float64(1)},
		{[]string{"metadata", "labels"}, generated},
		{[]string{"spec", "template", "metadata", "labels"}, generated},
		{[]string{"spec", "selector"}, map[string]any{"matchLabels": map[string]any{"batch.kubernetes.io/controller-uid": uid}}},
		{[]string{"spec", "completions"}, float64(1)},
		{[]string{"spec", "parallelism"}, float64(1)},
		{[]string{"spec", "backoffLimit"}, float64(6)},
		{[]string{"spec", "completionMode"}, "NonIndexed"},
		{[]string{"spec", "suspend"}, false},
		{[]string{"spec", "manualSelector"}, false},
		{[]string{"spec", "podReplacementPolicy"}, "TerminatingOrFailed"},
		{[]string{"spec", "template", "spec", "dnsPolicy"}, "ClusterFirst"},
		{[]string{"status"}, map[string]any{}},
	} {
		if d := cmp.Diff(c.want, at(j, c.path...)); d != "" {
			t.Errorf("created %v (-want +got):\n%s", c.path, d)
		}
	}

	// The template of a running Job does not change.
	j["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["image"] = "perl:5.36"
	refused := call(t, srv, http.MethodPut, path+"/pi", j, http.StatusUnprocessableEntity)
	if causes := causesOf(refused); len(causes) != 1 || causes[0][:len("spec.template: Invalid value: ")] != "spec.template: Invalid value: " {
		t.Errorf("template change causes = %v, want the one spec.template immutable cause", causes)
	}

	// A status write keeps the spec; a Complete job needs its success criteria and times.
	j = call(t, srv, http.MethodGet, path+"/pi", nil, http.StatusOK)
	j["status"] = map[string]any{"succeeded": 1, "conditions": []any{map[string]any{"type": "Complete", "status": "True"}}}
	refused = call(t, srv, http.MethodPut, path+"/pi/status", j, http.StatusUnprocessableEntity)
	if d := cmp.Diff([]string{
		"status.completionTime: Required value: completionTime is required for Complete jobs",
		"status.conditions: Invalid value: cannot set Complete=True condition without the SuccessCriteriaMet=true condition",
		"status.startTime: Required value: startTime is required for finished job",
	}, causesOf(refused)); d != "" {
		t.Errorf("status causes (-want +got):\n%s", d)
	}
	j["status"] = map[string]any{"succeeded": 1, "startTime": "2026-01-02T03:04:05Z", "completionTime": "2026-01-02T03:05:10Z",
		"conditions": []any{map[string]any{"type": "SuccessCriteriaMet", "status": "True"}, map[string]any{"type": "Complete", "status": "True"}}}
	j["spec"].(map[string]any)["parallelism"] = 5
	st := call(t, srv, http.MethodPut, path+"/pi/status", j, http.StatusOK)
	if p, s := at(st, "spec", "parallelism"), at(st, "status", "succeeded"); p != float64(1) || s != float64(1) {
		t.Errorf("after the status write: parallelism %v succeeded %v, want 1 and 1", p, s)
	}

	// status.successful selects on status.succeeded.
	for _, c := range []struct {
		selector string
		want     int
	}{{"status.successful=1", 1}, {"status.successful=0", 0}, {"status.successful!=0", 1}} {
		list := call(t, srv, http.MethodGet, path+"?fieldSelector="+c.selector, nil, http.StatusOK)
		if items, _ := list["items"].([]any); len(items) != c.want {
			t.Errorf("fieldSelector %s: %d jobs, want %d", c.selector, len(items), c.want)
		}
	}
}

// TestCronJob_ScheduleTimeZoneAndNameAsKube creates CronJobs: kube's defaults, and its
// refusals of a schedule the cron parser rejects, a TZ= prefix, an unknown time zone,
// a selector in the job template, and a name too long for its Jobs' names.
func TestCronJob_ScheduleTimeZoneAndNameAsKube(t *testing.T) {
	srv := apitest.NewServer(t, appsScheme(t), apitest.Options{REST: rest.Options{Strategies: strategies.Builtin()}})
	call(t, srv, http.MethodPost, "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": "default"}}, http.StatusCreated)
	const path = "/apis/batch/v1/namespaces/default/cronjobs"
	cronJob := func(name, schedule string, change func(spec map[string]any)) map[string]any {
		job := piJob()
		delete(job["spec"].(map[string]any)["template"].(map[string]any), "metadata")
		spec := map[string]any{"schedule": schedule, "jobTemplate": map[string]any{"spec": job["spec"]}}
		if change != nil {
			change(spec)
		}
		return map[string]any{"apiVersion": "batch/v1", "kind": "CronJob", "metadata": map[string]any{"name": name}, "spec": spec}
	}
	c := call(t, srv, http.MethodPost, path, cronJob("hello", "*/5 * * * *", nil), http.StatusCreated)
	for _, f := range []struct {
		path []string
		want any
	}{
		{[]string{"metadata", "generation"}, float64(1)},
		{[]string{"spec", "concurrencyPolicy"}, "Allow"},
		{[]string{"spec", "suspend"}, false},
		{[]string{"spec", "successfulJobsHistoryLimit"}, float64(3)},
		{[]string{"spec", "failedJobsHistoryLimit"}, float64(1)},
		// A job template gets no Job defaults, only its pod template's.
		{[]string{"spec", "jobTemplate", "spec", "backoffLimit"}, nil},
		{[]string{"spec", "jobTemplate", "spec", "template", "spec", "schedulerName"}, "default-scheduler"},
	} {
		if d := cmp.Diff(f.want, at(c, f.path...)); d != "" {
			t.Errorf("created %v (-want +got):\n%s", f.path, d)
		}
	}
	long := "a234567890123456789012345678901234567890123456789012"
	for _, tt := range []struct {
		name string
		obj  map[string]any
		want []string
	}{
		{"six fields", cronJob("six", "0 * * * * *", nil), []string{
			`spec.schedule: Invalid value: "0 * * * * *": expected exactly 5 fields, found 6: [0 * * * * *]`}},
		{"TZ prefix", cronJob("tz", "TZ=UTC 0 * * * *", nil), []string{
			`spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead`}},
		{"unknown zone", cronJob("zone", "@hourly", func(s map[string]any) { s["timeZone"] = "Mars/Olympus" }), []string{
			`spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus`}},
		{"selector in the job template", cronJob("sel", "@daily", func(s map[string]any) {
			s["jobTemplate"].(map[string]any)["spec"].(map[string]any)["selector"] = map[string]any{"matchLabels": map[string]any{"a": "b"}}
		}), []string{"spec.jobTemplate.spec.selector: Invalid value: {\"matchLabels\":{\"a\":\"b\"}}: `selector` will be auto-generated"}},
		{"name over 52 characters", cronJob(long+"3", "@daily", nil), []string{
			`metadata.name: Invalid value: "` + long + `3": must be no more than 52 characters`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			refused := call(t, srv, http.MethodPost, path, tt.obj, http.StatusUnprocessableEntity)
			if d := cmp.Diff(tt.want, causesOf(refused)); d != "" {
				t.Errorf("causes (-want +got):\n%s", d)
			}
		})
	}
	call(t, srv, http.MethodPost, path, cronJob(long, "@daily", nil), http.StatusCreated)
}
