package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

// The side-by-side check of issue 26 for ReplicationControllers, ResourceQuotas and
// LimitRanges: the same manifests created on kube-apiserver (as envtest starts it) and
// on apikit with kube's default admission plugins (admission.Builtin()), read back
// equal; invalid ones refused alike; a pod defaulted by a LimitRange stored alike and a
// pod past its max refused with the same 403.

// quotaDiffCase is one POST of a YAML manifest to a collection, or with patch set a
// merge patch of the object at collection.
type quotaDiffCase struct {
	name, collection, manifest string
	patch                      bool
}

const rcTemplate = `
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: app
        image: nginx:1.27
        resources:
          limits: {cpu: 500m, memory: 128Mi}`

func quotaDiffCases() []quotaDiffCase {
	const (
		rcs    = "/api/v1/namespaces/default/replicationcontrollers"
		quotas = "/api/v1/namespaces/default/resourcequotas"
		lrs    = "/api/v1/namespaces/default/limitranges"
		pods   = "/api/v1/namespaces/limited/pods"
	)
	rc := func(name, spec string) string {
		return fmt.Sprintf("apiVersion: v1\nkind: ReplicationController\nmetadata: {name: %s}\nspec:\n%s  template:%s\n", name, spec, rcTemplate)
	}
	pod := func(name, resources string) string {
		return fmt.Sprintf("apiVersion: v1\nkind: Pod\nmetadata: {name: %s}\nspec:\n  containers:\n  - name: app\n    image: nginx:1.27\n%s", name, resources)
	}
	return []quotaDiffCase{
		{"rc with kube's defaults (selector, labels, replicas)", rcs, rc("rc-min", ""), false},
		{"rc with a selector and replicas", rcs, rc("rc-sel", "  replicas: 3\n  selector: {app: web}\n"), false},
		{"rc whose selector does not match", rcs, rc("rc-mismatch", "  selector: {app: db}\n"), false},
		{"rc with restartPolicy Never", rcs, "apiVersion: v1\nkind: ReplicationController\nmetadata: {name: rc-never}\nspec:\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      restartPolicy: Never\n      containers: [{name: app, image: nginx}]\n", false},
		{"rc without a template", rcs, "apiVersion: v1\nkind: ReplicationController\nmetadata: {name: rc-notemplate}\nspec:\n  selector: {app: web}\n", false},
		{"quota of compute and counts", quotas, "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: compute}\nspec:\n  hard: {requests.cpu: \"0.5\", limits.memory: 1Gi, pods: \"10\", count/deployments.apps: \"2\", requests.storage: 10Gi}\n", false},
		{"quota with scopes", quotas, "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: scoped}\nspec:\n  hard: {pods: \"3\"}\n  scopes: [NotTerminating, BestEffort]\n", false},
		{"quota with a priority class selector", quotas, "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: prio}\nspec:\n  hard: {pods: \"3\", cpu: \"2\"}\n  scopeSelector:\n    matchExpressions: [{scopeName: PriorityClass, operator: In, values: [high]}]\n", false},
		{"quota of an unknown resource", quotas, "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: bad-name}\nspec:\n  hard: {gpus: \"1\", pods: 1500m}\n", false},
		{"quota with conflicting scopes", quotas, "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: conflict}\nspec:\n  hard: {cpu: \"1\"}\n  scopes: [BestEffort, NotBestEffort]\n", false},
		{"limit range of every type", lrs, "apiVersion: v1\nkind: LimitRange\nmetadata: {name: all}\nspec:\n  limits:\n  - {type: Container, max: {cpu: \"2\"}, min: {memory: 32Mi}, maxLimitRequestRatio: {cpu: \"4\"}}\n  - {type: Pod, max: {memory: 2Gi}}\n  - {type: PersistentVolumeClaim, min: {storage: 1Gi}}\n", false},
		{"limit range with min above max", lrs, "apiVersion: v1\nkind: LimitRange\nmetadata: {name: minmax}\nspec:\n  limits:\n  - {type: Container, max: {cpu: \"1\"}, min: {cpu: \"2\"}, default: {cpu: 3}}\n", false},
		{"limit range with defaults on a pod item", lrs, "apiVersion: v1\nkind: LimitRange\nmetadata: {name: poddefault}\nspec:\n  limits:\n  - {type: Pod, default: {cpu: \"1\"}}\n", false},
		{"namespace for the limited pods", "/api/v1/namespaces", "apiVersion: v1\nkind: Namespace\nmetadata: {name: limited}\n", false},
		{"limit range of the limited namespace", "/api/v1/namespaces/limited/limitranges", "apiVersion: v1\nkind: LimitRange\nmetadata: {name: limits}\nspec:\n  limits:\n  - {type: Container, max: {cpu: \"1\", memory: 1Gi}, min: {cpu: 50m}, default: {cpu: 500m, memory: 256Mi}, defaultRequest: {cpu: 100m}, maxLimitRequestRatio: {cpu: \"10\"}}\n  - {type: Pod, max: {memory: 1536Mi}}\n", false},
		{"pod defaulted by the limit range", pods, pod("defaulted", ""), false},
		{"pod with its own requests", pods, pod("own", "    resources: {requests: {cpu: 200m}, limits: {memory: 512Mi}}\n"), false},
		{"pod past the container max", pods, pod("too-big", "    resources: {limits: {cpu: \"2\"}}\n"), false},
		{"pod under the container min", pods, pod("too-small", "    resources: {requests: {cpu: 10m}, limits: {cpu: 20m}}\n"), false},
		{"pod past the ratio and the min", pods, pod("ratio", "    resources: {requests: {cpu: 10m}, limits: {cpu: \"1\"}}\n"), false},
		{"namespace for the quota", "/api/v1/namespaces", "apiVersion: v1\nkind: Namespace\nmetadata: {name: quoted}\n", false},
		{"quota of the quota namespace", "/api/v1/namespaces/quoted/resourcequotas", "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: q}\nspec:\n  hard: {pods: \"1\", requests.cpu: \"1\", configmaps: \"1\"}\n", false},
		{"configmap before the quota has a status", "/api/v1/namespaces/quoted/configmaps", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: early}\n", false},
		{"quota status as a quota controller sets it", "/api/v1/namespaces/quoted/resourcequotas/q/status",
			"status:\n  hard: {pods: \"1\", requests.cpu: \"1\", configmaps: \"1\"}\n  used: {pods: \"0\", requests.cpu: \"0\", configmaps: \"1\"}\n", true},
		{"configmap past the quota", "/api/v1/namespaces/quoted/configmaps", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: late}\n", false},
		{"pod without a cpu request under a cpu quota", "/api/v1/namespaces/quoted/pods", pod("no-cpu", ""), false},
		{"pod past the cpu quota", "/api/v1/namespaces/quoted/pods", pod("big", "    resources: {requests: {cpu: 1500m}}\n"), false},
		{"pod within the quota", "/api/v1/namespaces/quoted/pods", pod("fits", "    resources: {requests: {cpu: 500m}}\n"), false},
		{"second pod past the pod count", "/api/v1/namespaces/quoted/pods", pod("second", "    resources: {requests: {cpu: 100m}}\n"), false},
		// An empty merge patch reads the quota back: status.used as admission charged it.
		{"quota read back after the charges", "/api/v1/namespaces/quoted/resourcequotas/q", "{}", true},
	}
}

// TestSideBySide_QuotaManifestsAsKubeAPIServer creates the manifests of quotaDiffCases
// on kube-apiserver and on apikit and compares the answers and the stored objects.
func TestSideBySide_QuotaManifestsAsKubeAPIServer(t *testing.T) {
	servers := startSideBySide(t, "--disable-admission-plugins=ServiceAccount")
	cases := quotaDiffCases()
	answers := make([][]appsDiffAnswer, len(servers))
	for i, sv := range servers {
		hc, err := rest.HTTPClientFor(sv.cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			body, err := yaml.YAMLToJSON([]byte(c.manifest))
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			method, ctype := "POST", "application/json"
			if c.patch {
				method, ctype = "PATCH", "application/merge-patch+json"
			}
			code, m := sv.do(t, hc, method, c.collection, ctype, string(body))
			ans := appsDiffAnswer{Code: code}
			if m["kind"] == "Status" {
				ans.setRefusal(m)
			} else {
				ans.Stored = normalizeStored(m)
				if c.collection == "/api/v1/namespaces" {
					ans.Stored = nil // a namespace carries its server's finalizers and labels alike, but is not under test
				}
			}
			answers[i] = append(answers[i], ans)
			if c.patch && strings.HasSuffix(c.collection, "/status") {
				awaitQuotaStatusSeen(t, sv, hc)
			}
		}
	}
	equal := 0
	for j, c := range cases {
		if d := cmp.Diff(answers[0][j], answers[1][j]); d != "" {
			t.Errorf("%s (-kube +apikit):\n%s", c.name, d)
			continue
		}
		equal++
	}
	raw, _ := json.Marshal(answers[1][len(cases)-2])
	t.Logf("apikit's refusal of the second pod past the quota: %s", raw)
	t.Logf("%d of %d core/v1 quota, limit range and RC writes answered and stored as kube-apiserver does", equal, len(cases))
	if answers[0][len(cases)-2].Code != http.StatusForbidden {
		t.Errorf("kube-apiserver answered the pod past the quota with %d, not 403: its ResourceQuota admission is not on", answers[0][len(cases)-2].Code)
	}
}

// awaitQuotaStatusSeen waits, bounded, until sv's quota admission charges against the
// status the test just wrote: kube-apiserver's ResourceQuota plugin reads quotas from an
// informer, which sees a status patch some time after it is answered. A dry-run create
// is checked against the quota without charging it (kube's checkQuotas skips the
// update of a dry-run request), so probing changes nothing.
func awaitQuotaStatusSeen(t *testing.T, sv *sideBySide, hc *http.Client) {
	t.Helper()
	const probe = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"probe"}}`
	for range 100 {
		if code, _ := sv.do(t, hc, "POST", "/api/v1/namespaces/quoted/configmaps?dryRun=All", "application/json", probe); code == http.StatusForbidden {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("%s: the quota status was not charged against after 10 s", sv.name)
}
