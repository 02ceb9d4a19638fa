package rest_test

import (
	"slices"
	"testing"

	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/scheme/openapi"
)

// TestCRDScale_ReplicasCheckedOnWrite: a schema-only kind with a scale subresource has
// the replicas at its scale paths checked on every write, as kube-apiserver checks a
// custom resource's (even where the schema itself allows the value), with kube's
// paths and messages.
func TestCRDScale_ReplicasCheckedOnWrite(t *testing.T) {
	s := newServer(t, func(o *rest.Options) {
		gv := scheme.GroupVersion{Group: "scale.example.com", Version: "v1"}
		openapi.Register(o.Scheme, gv.WithKind("Pool"), crdSchema(t, `{"type":"object","properties":{
			"spec":{"x-kubernetes-preserve-unknown-fields":true,"type":"object"},
			"status":{"type":"object","properties":{"replicas":{"type":"integer"},"selector":{"type":"string"}}}}}`))
		o.Scheme.AddUnstructuredKind(gv.WithKind("PoolList"))
		if err := o.Scheme.AddResource(scheme.Resource{Group: gv.Group, Kind: "Pool", ListKind: "PoolList", Plural: "pools",
			Namespaced: true, StatusSubresource: true,
			Scale: &scheme.ScaleSubresource{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: ".status.selector"}}); err != nil {
			t.Fatal(err)
		}
	})
	const path = "/apis/scale.example.com/v1/namespaces/default/pools"
	for _, tc := range []struct {
		name, spec string
		want       []string // causes: field, message
	}{
		{"fine", `{"replicas":3}`, nil},
		{"absent", `{}`, nil},
		{"negative", `{"replicas":-1}`, []string{".spec.replicas", "Invalid value: -1: should be a non-negative integer"}},
		{"above MaxInt32", `{"replicas":2147483648}`, []string{".spec.replicas", "Invalid value: 2147483648: should be less than or equal to 2147483647"}},
		{"not an integer", `{"replicas":"3"}`, []string{".spec.replicas", "Invalid value: 0: .spec.replicas accessor error: 3 is of the type string, expected int64"}},
		{"null", `{"replicas":null}`, []string{".spec.replicas", "Invalid value: 0: .spec.replicas accessor error: <nil> is of the type <nil>, expected int64"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := s.do("POST", path, "application/json", `{"apiVersion":"scale.example.com/v1","kind":"Pool","metadata":{"generateName":"p-"},"spec":`+tc.spec+`}`)
			if tc.want == nil {
				if r.code != 201 {
					t.Fatalf("%d %s", r.code, r.body)
				}
				return
			}
			if r.code != 422 {
				t.Fatalf("%d %s, want 422", r.code, r.body)
			}
			var got []string
			for _, c := range get(r.json(t), "details", "causes").([]any) {
				c := c.(map[string]any)
				got = append(got, c["field"].(string), c["message"].(string))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("causes %q, want %q", got, tc.want)
			}
		})
	}
}
