package builtin

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	appsv1 "github.com/apikit-dev/apikit/builtin/apps/v1"
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/conversion"
)

// defaulted decodes in as a T, applies the scheme's defaults and returns the result
// as generic JSON, for comparison with what kube-apiserver stores.
func defaulted[T any](t *testing.T, in string) any {
	t.Helper()
	s := newScheme(t)
	obj := new(T)
	if err := json.Unmarshal([]byte(in), obj); err != nil {
		t.Fatal(err)
	}
	conversion.Default(s, obj)
	return asJSON(t, obj)
}

func asJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func parseJSON(t *testing.T, s string) any {
	t.Helper()
	var out any
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		t.Fatalf("%v in %s", err, s)
	}
	return out
}

// The defaulted spec of a one-container pod with nothing set, as kube-apiserver
// v1.37 stores it.
const defaultedSpecTail = `"dnsPolicy":"ClusterFirst","restartPolicy":"Always","schedulerName":"default-scheduler",
	"securityContext":{},"terminationGracePeriodSeconds":30`

func TestPodDefaults_AreKubeApiserverDefaults(t *testing.T) {
	ctr := `"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"`
	tests := []struct {
		name, in, want string
	}{
		{
			name: "an empty pod gets the spec's policies and enableServiceLinks",
			in:   `{"spec":{"containers":[{"name":"c","image":"nginx"}]}}`,
			want: `{"metadata":{},"status":{},"spec":{"containers":[{"name":"c","image":"nginx","imagePullPolicy":"Always",` + ctr + `,"resources":{}}],
				"enableServiceLinks":true,` + defaultedSpecTail + `}}`,
		},
		{
			name: "the pull policy follows the image's tag",
			in: `{"spec":{"containers":[{"name":"a","image":"nginx:latest"},{"name":"b","image":"nginx:1.27"},
				{"name":"c","image":"registry.example.com:5000/team/app"},{"name":"d","image":"nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"},
				{"name":"e","image":"nginx:latest@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"},
				{"name":"f","image":"NGINX"},{"name":"g"},{"name":"h","image":"localhost/app:v1"},{"name":"i","image":"nginx@sha256:0123"}]}}`,
			want: `{"metadata":{},"status":{},"spec":{"containers":[
				{"name":"a","image":"nginx:latest","imagePullPolicy":"Always",` + ctr + `,"resources":{}},
				{"name":"b","image":"nginx:1.27","imagePullPolicy":"IfNotPresent",` + ctr + `,"resources":{}},
				{"name":"c","image":"registry.example.com:5000/team/app","imagePullPolicy":"Always",` + ctr + `,"resources":{}},
				{"name":"d","image":"nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef","imagePullPolicy":"IfNotPresent",` + ctr + `,"resources":{}},
				{"name":"e","image":"nginx:latest@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef","imagePullPolicy":"Always",` + ctr + `,"resources":{}},
				{"name":"f","image":"NGINX","imagePullPolicy":"IfNotPresent",` + ctr + `,"resources":{}},
				{"name":"g","imagePullPolicy":"IfNotPresent",` + ctr + `,"resources":{}},
				{"name":"h","image":"localhost/app:v1","imagePullPolicy":"IfNotPresent",` + ctr + `,"resources":{}},
				{"name":"i","image":"nginx@sha256:0123","imagePullPolicy":"IfNotPresent",` + ctr + `,"resources":{}}],
				"enableServiceLinks":true,` + defaultedSpecTail + `}}`,
		},
		{
			name: "requests come from limits and every quantity is rounded up to a milli",
			in: `{"spec":{"containers":[{"name":"c","image":"nginx:1","resources":{"limits":{"cpu":"1.0001","memory":"1Gi"},"requests":{"memory":"100Mi"}}}],
				"initContainers":[{"name":"i","image":"busybox:1","resources":{"limits":{"cpu":"500m"}}}],"overhead":{"cpu":"0.0000001"}}}`,
			want: `{"metadata":{},"status":{},"spec":{"containers":[{"name":"c","image":"nginx:1","imagePullPolicy":"IfNotPresent",` + ctr + `,
				"resources":{"limits":{"cpu":"1001m","memory":"1Gi"},"requests":{"cpu":"1001m","memory":"100Mi"}}}],
				"initContainers":[{"name":"i","image":"busybox:1","imagePullPolicy":"IfNotPresent",` + ctr + `,"resources":{"limits":{"cpu":"500m"},"requests":{"cpu":"500m"}}}],
				"overhead":{"cpu":"1m"},"enableServiceLinks":true,` + defaultedSpecTail + `}}`,
		},
		{
			name: "ports, probes, lifecycle handlers and env field references",
			in: `{"spec":{"hostNetwork":true,"containers":[{"name":"c","image":"nginx:1","ports":[{"containerPort":80},{"containerPort":53,"protocol":"UDP","hostPort":5353}],
				"livenessProbe":{"httpGet":{"port":8080}},"readinessProbe":{"grpc":{"port":9000},"periodSeconds":5},"startupProbe":{"tcpSocket":{"port":80}},
				"lifecycle":{"preStop":{"httpGet":{"port":80,"path":"/stop"}}},
				"env":[{"name":"NODE","valueFrom":{"fieldRef":{"fieldPath":"spec.nodeName"}}},{"name":"F","valueFrom":{"fileKeyRef":{"volumeName":"v","path":"p","key":"k"}}}]}]}}`,
			want: `{"metadata":{},"status":{},"spec":{"hostNetwork":true,"containers":[{"name":"c","image":"nginx:1","imagePullPolicy":"IfNotPresent",` + ctr + `,"resources":{},
				"ports":[{"containerPort":80,"hostPort":80,"protocol":"TCP"},{"containerPort":53,"protocol":"UDP","hostPort":5353}],
				"livenessProbe":{"httpGet":{"port":8080,"path":"/","scheme":"HTTP"},"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3},
				"readinessProbe":{"grpc":{"port":9000,"service":""},"timeoutSeconds":1,"periodSeconds":5,"successThreshold":1,"failureThreshold":3},
				"startupProbe":{"tcpSocket":{"port":80},"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3},
				"lifecycle":{"preStop":{"httpGet":{"port":80,"path":"/stop","scheme":"HTTP"}}},
				"env":[{"name":"NODE","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"spec.nodeName"}}},{"name":"F","valueFrom":{"fileKeyRef":{"volumeName":"v","path":"p","key":"k","optional":false}}}]}],
				"enableServiceLinks":true,` + defaultedSpecTail + `}}`,
		},
		{
			name: "volumes: no source is an emptyDir, modes 420, hostPath type, token expiry, claim template mode",
			in: `{"spec":{"containers":[{"name":"c","image":"nginx:1"}],"volumes":[{"name":"a"},{"name":"b","secret":{"secretName":"s"}},
				{"name":"c","configMap":{"name":"m","defaultMode":256}},{"name":"d","hostPath":{"path":"/x"}},{"name":"e","downwardAPI":{"items":[{"path":"l","fieldRef":{"fieldPath":"metadata.labels"}}]}},
				{"name":"f","projected":{"sources":[{"serviceAccountToken":{"path":"t"}},{"downwardAPI":{"items":[{"path":"n","fieldRef":{"fieldPath":"metadata.name"}}]}}]}},
				{"name":"g","ephemeral":{"volumeClaimTemplate":{"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1.5555Gi"}}}}}},
				{"name":"h","image":{"reference":"quay.io/x/y:latest"}},{"name":"i","image":{"reference":"quay.io/x/y:v1"}}]}}`,
			want: `{"metadata":{},"status":{},"spec":{"containers":[{"name":"c","image":"nginx:1","imagePullPolicy":"IfNotPresent",` + ctr + `,"resources":{}}],
				"volumes":[{"name":"a","emptyDir":{}},{"name":"b","secret":{"secretName":"s","defaultMode":420}},{"name":"c","configMap":{"name":"m","defaultMode":256}},
				{"name":"d","hostPath":{"path":"/x","type":""}},{"name":"e","downwardAPI":{"items":[{"path":"l","fieldRef":{"apiVersion":"v1","fieldPath":"metadata.labels"}}],"defaultMode":420}},
				{"name":"f","projected":{"sources":[{"serviceAccountToken":{"path":"t","expirationSeconds":3600}},{"downwardAPI":{"items":[{"path":"n","fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}]}}],"defaultMode":420}},
				{"name":"g","ephemeral":{"volumeClaimTemplate":{"metadata":{},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1670205407232m"}},"volumeMode":"Filesystem"}}}},
				{"name":"h","image":{"reference":"quay.io/x/y:latest","pullPolicy":"Always"}},{"name":"i","image":{"reference":"quay.io/x/y:v1","pullPolicy":"IfNotPresent"}}],
				"enableServiceLinks":true,` + defaultedSpecTail + `}}`,
		},
		{
			name: "a negative grace period is 1 and the deprecated serviceAccount fills serviceAccountName",
			in:   `{"spec":{"containers":[{"name":"c","image":"nginx:1"}],"terminationGracePeriodSeconds":-5,"serviceAccount":"robot","enableServiceLinks":false}}`,
			want: `{"metadata":{},"status":{},"spec":{"containers":[{"name":"c","image":"nginx:1","imagePullPolicy":"IfNotPresent",` + ctr + `,"resources":{}}],
				"serviceAccount":"robot","serviceAccountName":"robot","enableServiceLinks":false,"dnsPolicy":"ClusterFirst","restartPolicy":"Always",
				"schedulerName":"default-scheduler","securityContext":{},"terminationGracePeriodSeconds":1}}`,
		},
		{
			name: "status podIP and podIPs agree",
			in:   `{"spec":{"containers":[{"name":"c","image":"nginx:1"}]},"status":{"podIP":"10.0.0.1"}}`,
			want: `{"metadata":{},"status":{"podIP":"10.0.0.1","podIPs":[{"ip":"10.0.0.1"}]},"spec":{"containers":[{"name":"c","image":"nginx:1","imagePullPolicy":"IfNotPresent",` + ctr + `,"resources":{}}],
				"enableServiceLinks":true,` + defaultedSpecTail + `}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := defaulted[corev1.Pod](t, tt.in)
			if d := cmp.Diff(parseJSON(t, tt.want), got); d != "" {
				t.Errorf("defaulted pod (-kube +got):\n%s", d)
			}
		})
	}
}

func TestPodTemplateDefaults_LeaveOutThePodKindsOwn(t *testing.T) {
	// A Deployment's template gets the spec's and containers' defaults but not
	// enableServiceLinks, requests from limits or host ports: those are SetDefaults_Pod's.
	got := defaulted[appsv1.Deployment](t, `{"spec":{"template":{"spec":{"hostNetwork":true,"containers":[{"name":"c","image":"nginx",
		"ports":[{"containerPort":80}],"resources":{"limits":{"cpu":"1"}}}]}}}}`)
	spec := got.(map[string]any)["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	want := parseJSON(t, `{"hostNetwork":true,"containers":[{"name":"c","image":"nginx","imagePullPolicy":"Always",
		"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","ports":[{"containerPort":80,"protocol":"TCP"}],
		"resources":{"limits":{"cpu":"1"}}}],`+defaultedSpecTail+`}`)
	if d := cmp.Diff(want, spec); d != "" {
		t.Errorf("defaulted template spec (-kube +got):\n%s", d)
	}
}
