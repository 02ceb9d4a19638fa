package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

// The side-by-side check of issue 26 for batch/v1: the same Jobs (NonIndexed, Indexed,
// with a manual selector, with a pod failure policy) and CronJobs, valid and invalid,
// created on kube-apiserver (envtest's flags) and on apikit, then updated, read back
// equal once the fields a server picks are set aside. A Job's generated selector and
// labels carry its uid: each server's uids are replaced by <uid>, so they are compared
// by shape.

const batchPodSpec = `
      containers:
      - name: main
        image: busybox:1.36
        command: [sh, -c, "echo done"]
        resources:
          requests: {cpu: 100m, memory: 32Mi}
      - name: side
        image: busybox`

// jobManifest is a Job named name with spec fields before its template, whose pod spec
// gets podSpec before the containers.
func jobManifest(name, spec, podSpec string) string {
	return fmt.Sprintf("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: %s\nspec:\n%s  template:\n    metadata:\n      labels: {app: batch}\n    spec:\n%s%s\n",
		name, spec, podSpec, batchPodSpec)
}

// cronJobManifest is a CronJob named name with spec fields and job spec fields.
func cronJobManifest(name, spec, jobSpec, podSpec string) string {
	indented := strings.ReplaceAll(batchPodSpec, "\n", "\n    ")
	return fmt.Sprintf("apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: %s\nspec:\n%s  jobTemplate:\n    spec:\n%s      template:\n        spec:\n%s%s\n",
		name, spec, jobSpec, podSpec, indented)
}

// batchDiffCase is an appsDiffCase whose update may go to the status subresource.
type batchDiffCase struct {
	appsDiffCase
	status bool
}

// jobStatus returns an update that replaces a Job's status with st.
func jobStatus(st map[string]any) func(map[string]any) {
	return func(o map[string]any) { o["status"] = st }
}

func batchDiffCases() []batchDiffCase {
	const (
		jobs = "/apis/batch/v1/namespaces/default/jobs"
		cjs  = "/apis/batch/v1/namespaces/default/cronjobs"
	)
	never, onFailure := "      restartPolicy: Never\n", "      restartPolicy: OnFailure\n"
	cjNever := "          restartPolicy: Never\n"
	cases := []appsDiffCase{
		{name: "job with kube's defaults", collection: jobs, manifest: jobManifest("j-min", "", never)},
		{name: "job whose status is written", collection: jobs, manifest: jobManifest("j-status", "", never)},
		{name: "job with its own labels", collection: jobs, manifest: strings.Replace(jobManifest("j-labels", "", onFailure), "  name: j-labels\n", "  name: j-labels\n  labels: {team: a}\n", 1)},
		{name: "parallel job without completions", collection: jobs, manifest: jobManifest("j-par", "  parallelism: 3\n  backoffLimit: 2\n  activeDeadlineSeconds: 600\n  ttlSecondsAfterFinished: 60\n", never)},
		{name: "indexed job with per-index backoff and a success policy", collection: jobs, manifest: jobManifest("j-indexed",
			"  completionMode: Indexed\n  completions: 5\n  parallelism: 5\n  backoffLimitPerIndex: 1\n  maxFailedIndexes: 2\n  successPolicy:\n    rules: [{succeededIndexes: \"0-2,4\", succeededCount: 3}]\n", never)},
		{name: "job with a manual selector, suspended", collection: jobs, manifest: jobManifest("j-manual",
			"  manualSelector: true\n  suspend: true\n  selector:\n    matchLabels: {app: batch}\n", never)},
		{name: "job with a pod failure policy", collection: jobs, manifest: jobManifest("j-pfp",
			"  podFailurePolicy:\n    rules:\n    - action: FailJob\n      onExitCodes: {containerName: main, operator: In, values: [1, 42]}\n    - action: Ignore\n      onPodConditions: [{type: DisruptionTarget}]\n", never)},
		{name: "job that always restarts", collection: jobs, manifest: jobManifest("j-always", "", "      restartPolicy: Always\n")},
		{name: "job with negative counts", collection: jobs, manifest: jobManifest("j-neg", "  parallelism: -1\n  completions: -2\n  backoffLimit: -3\n  activeDeadlineSeconds: -4\n", never)},
		{name: "job with a selector but no manualSelector", collection: jobs, manifest: jobManifest("j-sel", "  selector:\n    matchLabels: {app: batch}\n", never)},
		{name: "job with a manual selector that does not match", collection: jobs, manifest: jobManifest("j-nomatch", "  manualSelector: true\n  selector:\n    matchLabels: {app: other}\n", never)},
		{name: "indexed job without completions", collection: jobs, manifest: jobManifest("j-nocomp", "  completionMode: Indexed\n  maxFailedIndexes: 1\n", never)},
		{name: "indexed job named too long for its hostnames", collection: jobs, manifest: jobManifest(strings.Repeat("j", 61), "  completionMode: Indexed\n  completions: 10\n", never)},
		{name: "job with a bad pod failure policy", collection: jobs, manifest: jobManifest("j-badpfp",
			"  podFailurePolicy:\n    rules:\n    - action: Retry\n      onExitCodes: {operator: In, values: [3, 0, 3]}\n    - action: FailIndex\n    - action: Count\n      onExitCodes: {operator: NotIn, values: [1]}\n      onPodConditions: [{type: Ready, status: Maybe}]\n", onFailure)},
		{name: "job with a success policy but NonIndexed", collection: jobs, manifest: jobManifest("j-sp", "  successPolicy:\n    rules: [{succeededCount: 1}]\n", never)},
		{name: "job with a bad managedBy", collection: jobs, manifest: jobManifest("j-managed", "  managedBy: no-slash\n", never)},
		{name: "cronjob with kube's defaults", collection: cjs, manifest: cronJobManifest("cj-min", "  schedule: \"*/5 * * * *\"\n", "", cjNever)},
		{name: "cronjob with a time zone and policies", collection: cjs, manifest: cronJobManifest("cj-tz",
			"  schedule: \"0 9-17 * * MON-FRI\"\n  timeZone: Europe/Berlin\n  concurrencyPolicy: Forbid\n  startingDeadlineSeconds: 100\n  successfulJobsHistoryLimit: 1\n  failedJobsHistoryLimit: 0\n  suspend: true\n",
			"      backoffLimit: 2\n", cjNever)},
		{name: "cronjob with a descriptor", collection: cjs, manifest: cronJobManifest("cj-every", "  schedule: \"@every 90m\"\n", "", cjNever)},
		{name: "cronjob with six fields", collection: cjs, manifest: cronJobManifest("cj-six", "  schedule: \"0 * * * * *\"\n", "", cjNever)},
		{name: "cronjob with a range out of bounds", collection: cjs, manifest: cronJobManifest("cj-range", "  schedule: \"0 25 * * *\"\n", "", cjNever)},
		{name: "cronjob with TZ in its schedule", collection: cjs, manifest: cronJobManifest("cj-tzsched", "  schedule: \"CRON_TZ=UTC 0 0 * * *\"\n", "", cjNever)},
		{name: "cronjob with TZ and no space", collection: cjs, manifest: cronJobManifest("cj-tzpanic", "  schedule: \"TZ=0\"\n", "", cjNever)},
		{name: "cronjob with an unknown time zone", collection: cjs, manifest: cronJobManifest("cj-badtz", "  schedule: \"@daily\"\n  timeZone: Mars/Olympus\n", "", cjNever)},
		{name: "cronjob with the Local time zone", collection: cjs, manifest: cronJobManifest("cj-local", "  schedule: \"@daily\"\n  timeZone: Local\n", "", cjNever)},
		{name: "cronjob with a selector in its job template", collection: cjs, manifest: cronJobManifest("cj-sel", "  schedule: \"@daily\"\n",
			"      manualSelector: true\n      selector:\n        matchLabels: {app: x}\n", cjNever)},
		{name: "cronjob named over 52 characters", collection: cjs, manifest: cronJobManifest(strings.Repeat("c", 53), "  schedule: \"@daily\"\n", "", cjNever)},
		{name: "cronjob with a bad concurrency policy", collection: cjs, manifest: cronJobManifest("cj-conc", "  schedule: \"@daily\"\n  concurrencyPolicy: Sometimes\n  startingDeadlineSeconds: -1\n", "", "          restartPolicy: Always\n")},
		{name: "running job's image changed", fixture: "j-min", collection: jobs, update: func(o map[string]any) {
			c := get(o, "spec", "template", "spec", "containers").([]any)
			c[0].(map[string]any)["image"] = "busybox:1.37"
		}},
		{name: "job's parallelism changed", fixture: "j-par", collection: jobs, update: func(o map[string]any) {
			setPath(o, int64(5), "spec", "parallelism")
		}},
		{name: "NonIndexed job's completions changed", fixture: "j-labels", collection: jobs, update: func(o map[string]any) {
			setPath(o, int64(4), "spec", "completions")
		}},
		{name: "indexed job scaled with completions and parallelism", fixture: "j-indexed", collection: jobs, update: func(o map[string]any) {
			setPath(o, int64(7), "spec", "completions")
			setPath(o, int64(7), "spec", "parallelism")
		}},
		{name: "suspended job's node selector and resources changed", fixture: "j-manual", collection: jobs, update: func(o map[string]any) {
			setPath(o, map[string]any{"pool": "batch"}, "spec", "template", "spec", "nodeSelector")
			c := get(o, "spec", "template", "spec", "containers").([]any)
			c[0].(map[string]any)["resources"] = map[string]any{"requests": map[string]any{"cpu": "2"}}
		}},
		{name: "job's pod failure policy changed", fixture: "j-pfp", collection: jobs, update: func(o map[string]any) {
			setPath(o, map[string]any{"rules": []any{map[string]any{"action": "FailJob", "onExitCodes": map[string]any{"operator": "In", "values": []any{int64(9)}}}}}, "spec", "podFailurePolicy")
		}},
		{name: "job's selector changed", fixture: "j-labels", collection: jobs, update: func(o map[string]any) {
			setPath(o, map[string]any{"app": "batch"}, "spec", "selector", "matchLabels")
		}},
		{name: "cronjob's schedule and time zone changed", fixture: "cj-min", collection: cjs, update: func(o map[string]any) {
			setPath(o, "0 3 * * *", "spec", "schedule")
			setPath(o, "Asia/Tokyo", "spec", "timeZone")
		}},
		{name: "cronjob's schedule given TZ on update", fixture: "cj-tz", collection: cjs, update: func(o map[string]any) {
			setPath(o, "TZ=UTC 0 3 * * *", "spec", "schedule")
		}},
	}
	var out []batchDiffCase
	for _, c := range cases {
		out = append(out, batchDiffCase{appsDiffCase: c})
	}
	// A Job's life through /status, each write over the last one stored: kube's status
	// strategy holds the transitions (JobManagedBy is GA in v1.37).
	const t0, t1 = "2026-01-02T03:04:05Z", "2026-01-02T03:05:10Z"
	cond := func(types ...string) []any {
		var l []any
		for _, t := range types {
			l = append(l, map[string]any{"type": t, "status": "True", "lastProbeTime": t1, "lastTransitionTime": t1})
		}
		return l
	}
	for _, c := range []appsDiffCase{
		{name: "job starts", update: jobStatus(map[string]any{"startTime": t0, "active": 1, "ready": 1})},
		{name: "job reports more ready than active pods", update: jobStatus(map[string]any{"startTime": t0, "active": 1, "ready": 2})},
		{name: "job's start time moves while it runs", update: jobStatus(map[string]any{"startTime": t1, "active": 1})},
		{name: "job completes without success criteria or completion time", update: jobStatus(map[string]any{"startTime": t0, "succeeded": 1, "conditions": cond("Complete")})},
		{name: "job fails with active pods and no failure target", update: jobStatus(map[string]any{"startTime": t0, "active": 1, "failed": 1, "conditions": cond("Failed")})},
		{name: "job completes before it started", update: jobStatus(map[string]any{"startTime": t1, "completionTime": t0, "succeeded": 1,
			"conditions": cond("SuccessCriteriaMet", "Complete")})},
		{name: "job completes", update: jobStatus(map[string]any{"startTime": t0, "completionTime": t1, "succeeded": 1, "ready": 0,
			"conditions": cond("SuccessCriteriaMet", "Complete")})},
		{name: "complete job loses its condition and counts", update: jobStatus(map[string]any{"startTime": t0, "completionTime": t1})},
		{name: "status write changes the spec too", update: func(o map[string]any) {
			setPath(o, int64(4), "spec", "parallelism")
			setPath(o, "x", "metadata", "annotations", "note")
		}},
	} {
		c.fixture, c.collection = "j-status", "/apis/batch/v1/namespaces/default/jobs"
		out = append(out, batchDiffCase{appsDiffCase: c, status: true})
	}
	return out
}

// uuidPattern matches the uids both servers give (random version 4 UUIDs).
var uuidPattern = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// TestSideBySide_BatchManifestsAsKubeAPIServer creates and updates the manifests of
// batchDiffCases on kube-apiserver and on apikit, writes a Job's status through its
// life, and compares the answers and the stored objects, uids set aside.
func TestSideBySide_BatchManifestsAsKubeAPIServer(t *testing.T) {
	servers := startSideBySide(t, "--disable-admission-plugins=ServiceAccount")
	cases := batchDiffCases()
	answers := make([][]appsDiffAnswer, len(servers))
	for i, sv := range servers {
		hc, err := rest.HTTPClientFor(sv.cfg)
		if err != nil {
			t.Fatal(err)
		}
		stored := map[string]map[string]any{}
		for _, c := range cases {
			var code int
			var m map[string]any
			if c.update == nil {
				body, err := yaml.YAMLToJSON([]byte(c.manifest))
				if err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				code, m = sv.do(t, hc, "POST", c.collection, "application/json", string(body))
				if code == http.StatusCreated {
					stored[get(m, "metadata", "name").(string)] = m
				}
			} else {
				obj := stored[c.fixture]
				if obj == nil {
					t.Fatalf("%s: %s: the fixture %s was not created", sv.name, c.name, c.fixture)
				}
				raw, _ := json.Marshal(obj)
				var cp map[string]any
				_ = json.Unmarshal(raw, &cp)
				c.update(cp)
				body, _ := json.Marshal(cp)
				path := c.collection + "/" + c.fixture
				if c.status {
					path += "/status"
				}
				code, m = sv.do(t, hc, "PUT", path, "application/json", string(body))
				if code == http.StatusOK && c.status {
					// The next status write starts from this one.
					stored[c.fixture] = m
				}
			}
			// The uid a server gave shows in a Job's selector, labels and messages.
			raw, _ := json.Marshal(m)
			raw = uuidPattern.ReplaceAll(raw, []byte("<uid>"))
			var cp map[string]any
			_ = json.Unmarshal(raw, &cp)
			ans := appsDiffAnswer{Code: code}
			if cp["kind"] == "Status" {
				ans.setRefusal(cp)
			} else {
				ans.Stored = normalizeStored(cp)
			}
			answers[i] = append(answers[i], ans)
		}
	}
	equal, refused := 0, 0
	for j, c := range cases {
		if answers[0][j].Code >= 300 {
			refused++
		}
		if d := cmp.Diff(answers[0][j], answers[1][j]); d != "" {
			t.Errorf("%s (-kube +apikit):\n%s", c.name, d)
			continue
		}
		equal++
	}
	t.Logf("%d of %d batch/v1 writes answered and stored as kube-apiserver does (kube-apiserver refused %d)", equal, len(cases), refused)
	if refused == 0 || refused == len(cases) {
		t.Errorf("kube-apiserver refused %d of %d writes: the cases do not cover both outcomes", refused, len(cases))
	}
}
