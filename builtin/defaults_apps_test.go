package builtin_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apikit-dev/apikit/builtin"
	appsv1 "github.com/apikit-dev/apikit/builtin/apps/v1"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/scheme"
)

// TestAppsDefaults_AsKubeV1_37 holds kube-apiserver v1.37.2's defaults of the apps/v1
// kinds (with the MaxUnavailableStatefulSet gate on, as in 1.37), each written by a
// user as little as possible, compared in their JSON form.
func TestAppsDefaults_AsKubeV1_37(t *testing.T) {
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		obj  any
		in   string // the object as written
		want string // its spec after defaulting, but for the template
	}{
		{"deployment", &appsv1.Deployment{}, `{"spec":{}}`,
			`{"replicas":1,"selector":null,"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":"25%","maxSurge":"25%"}},"revisionHistoryLimit":10,"progressDeadlineSeconds":600}`},
		{"deployment with Recreate gets no rollingUpdate", &appsv1.Deployment{}, `{"spec":{"replicas":0,"strategy":{"type":"Recreate"}}}`,
			`{"replicas":0,"selector":null,"strategy":{"type":"Recreate"},"revisionHistoryLimit":10,"progressDeadlineSeconds":600}`},
		{"daemonset", &appsv1.DaemonSet{}, `{"spec":{}}`,
			`{"selector":null,"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":1,"maxSurge":0}},"revisionHistoryLimit":10}`},
		{"statefulset", &appsv1.StatefulSet{}, `{"spec":{"volumeClaimTemplates":[{"metadata":{"name":"data"}}]}}`,
			`{"replicas":1,"selector":null,"volumeClaimTemplates":[{"metadata":{"name":"data"},"spec":{"resources":{},"volumeMode":"Filesystem"},"status":{"phase":"Pending"}}],"serviceName":"","podManagementPolicy":"OrderedReady","updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":0,"maxUnavailable":1}},"revisionHistoryLimit":10,"persistentVolumeClaimRetentionPolicy":{"whenDeleted":"Retain","whenScaled":"Retain"}}`},
		{"statefulset OnDelete gets no rollingUpdate", &appsv1.StatefulSet{}, `{"spec":{"updateStrategy":{"type":"OnDelete"},"persistentVolumeClaimRetentionPolicy":{"whenDeleted":"Delete"}}}`,
			`{"replicas":1,"selector":null,"serviceName":"","podManagementPolicy":"OrderedReady","updateStrategy":{"type":"OnDelete"},"revisionHistoryLimit":10,"persistentVolumeClaimRetentionPolicy":{"whenDeleted":"Delete","whenScaled":"Retain"}}`},
		{"statefulset RollingUpdate without rollingUpdate gets none", &appsv1.StatefulSet{}, `{"spec":{"updateStrategy":{"type":"RollingUpdate"}}}`,
			`{"replicas":1,"selector":null,"serviceName":"","podManagementPolicy":"OrderedReady","updateStrategy":{"type":"RollingUpdate"},"revisionHistoryLimit":10,"persistentVolumeClaimRetentionPolicy":{"whenDeleted":"Retain","whenScaled":"Retain"}}`},
		{"replicaset", &appsv1.ReplicaSet{}, `{"spec":{}}`,
			`{"replicas":1,"selector":null}`},
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
			// The template's defaults are the pod template's, not held here.
			var got struct {
				Spec map[string]any `json:"spec"`
			}
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			delete(got.Spec, "template")
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
