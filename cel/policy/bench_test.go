package policy_test

import (
	"fmt"
	"net/http"
	"testing"
)

// BenchmarkCreate_ConfigMap is a ConfigMap create over HTTP without policies and under
// a bound policy with a param, a matchCondition and two validations (the latency a
// CEL policy adds to a create); compare with e2e's kube-apiserver runs.
func BenchmarkCreate_ConfigMap(b *testing.B) {
	for _, withPolicy := range []bool{false, true} {
		b.Run(fmt.Sprintf("policy=%v", withPolicy), func(b *testing.B) {
			srv := newServer(b)
			if withPolicy {
				expect(b, srv, http.MethodPost, cms, configMap("limits", obj{"max": "5"}), http.StatusCreated)
				expect(b, srv, http.MethodPost, policies, vap("bench", obj{
					"paramKind":       obj{"apiVersion": "v1", "kind": "ConfigMap"},
					"matchConditions": []any{obj{"name": "not-limits", "expression": "object.metadata.name != 'limits'"}},
					"validations": []any{
						obj{"expression": "!has(object.data) || size(object.data) <= int(params.data.max)"},
						obj{"expression": "object.metadata.name.size() < 64"},
					}}), http.StatusCreated)
				expect(b, srv, http.MethodPost, bindings, binding("bench-b", "bench", obj{"paramRef": obj{"name": "limits", "namespace": "ns", "parameterNotFoundAction": "Deny"}}), http.StatusCreated)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				expect(b, srv, http.MethodPost, cms, configMap(fmt.Sprintf("cm-%d", i), obj{"a": "1"}), http.StatusCreated)
			}
		})
	}
}
