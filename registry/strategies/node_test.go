package strategies_test

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/rest"
)

func node(name string) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "Node", "metadata": map[string]any{"name": name}, "spec": map[string]any{}}
}

// TestNode_CreateKeepsStatusAndRefusesAsKube registers nodes as a kubelet does: the
// status it sends is kept with allocatable defaulted from capacity, podCIDR and
// podCIDRs reconciled; bad taints, CIDRs and quantities get kube's causes.
func TestNode_CreateKeepsStatusAndRefusesAsKube(t *testing.T) {
	srv := apitest.NewServer(t, appsScheme(t), apitest.Options{REST: rest.Options{Strategies: strategies.Builtin()}})
	const path = "/api/v1/nodes"
	in := node("n1")
	in["spec"] = map[string]any{"podCIDR": "10.244.1.0/24", "podCIDRs": []any{"10.244.9.0/24", "fd00::/64"}}
	in["status"] = map[string]any{"capacity": map[string]any{"cpu": "4", "memory": "8Gi", "pods": "110"}}
	got := call(t, srv, http.MethodPost, path, in, http.StatusCreated)
	for _, c := range []struct {
		path []string
		want any
	}{
		{[]string{"status", "allocatable"}, map[string]any{"cpu": "4", "memory": "8Gi", "pods": "110"}},
		{[]string{"spec", "podCIDR"}, "10.244.1.0/24"},
		{[]string{"spec", "podCIDRs"}, []any{"10.244.1.0/24"}},
	} {
		if d := cmp.Diff(c.want, at(got, c.path...)); d != "" {
			t.Errorf("created %v (-want +got):\n%s", c.path, d)
		}
	}

	for _, c := range []struct {
		name string
		spec map[string]any
		st   map[string]any
		want []string
	}{
		{"bad and duplicate taints", map[string]any{"taints": []any{
			map[string]any{"key": "a", "effect": "NoSchedule"},
			map[string]any{"key": "a", "value": "x", "effect": "NoSchedule"},
			map[string]any{"key": "b/c/d", "value": "-x", "effect": "Never"},
			map[string]any{"key": "e"},
		}}, nil, []string{
			`metadata.taints[1]: Duplicate value: {"Key":"a","Value":"x","Effect":"NoSchedule","TimeAdded":null}: taints must be unique by key and effect pair`,
			`metadata.taints[2].key: Invalid value: "b/c/d": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
			`metadata.taints[2].value: Invalid value: "-x": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
			`metadata.taints[2].effect: Unsupported value: "Never": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`,
			"metadata.taints[3].effect: Required value",
		}},
		{"bad pod CIDRs", map[string]any{"podCIDRs": []any{"10.0.0.1/24", "10.1.0.0/16", "nope"}}, nil, []string{
			`spec.podCIDRs[0]: Invalid value: "10.0.0.1/24": must not have bits set beyond the prefix length`,
			`spec.podCIDRs[2]: Invalid value: "nope": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)`,
			"spec.podCIDRs: Internal error: invalid PodCIDRs. failed to check with dual stack with error:invalid CIDR[2]: <nil> (invalid CIDR address: nope)",
			`spec.podCIDRs: Invalid value: ["10.0.0.1/24","10.1.0.0/16","nope"]: may specify no more than one CIDR for each IP family`,
		}},
		{"negative capacity and fractional pods", nil, map[string]any{"capacity": map[string]any{"memory": "-1", "pods": "1500m"}}, []string{
			`status.capacity.memory: Invalid value: "-1": must be greater than or equal to 0`,
			`status.capacity.pods: Invalid value: "1500m": must be an integer`,
			`status.allocatable.memory: Invalid value: "-1": must be greater than or equal to 0`,
			`status.allocatable.pods: Invalid value: "1500m": must be an integer`,
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := node("bad")
			if c.spec != nil {
				m["spec"] = c.spec
			}
			if c.st != nil {
				m["status"] = c.st
			}
			st := call(t, srv, http.MethodPost, path, m, http.StatusUnprocessableEntity)
			if d := cmp.Diff(c.want, causesOf(st)); d != "" {
				t.Errorf("causes (-want +got):\n%s", d)
			}
		})
	}

	// Updates: podCIDRs and the external ID are fixed once set, the status is the
	// kubelet's to write through /status.
	got["spec"].(map[string]any)["podCIDRs"] = []any{"10.244.2.0/24"}
	got["spec"].(map[string]any)["podCIDR"] = "10.244.2.0/24"
	got["spec"].(map[string]any)["externalID"] = "i-123"
	st := call(t, srv, http.MethodPut, path+"/n1", got, http.StatusUnprocessableEntity)
	if d := cmp.Diff([]string{
		`spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid`,
		"spec.externalID: Forbidden: may not be updated",
	}, causesOf(st)); d != "" {
		t.Errorf("update causes (-want +got):\n%s", d)
	}
	cur := call(t, srv, http.MethodGet, path+"/n1", nil, http.StatusOK)
	cur["spec"].(map[string]any)["unschedulable"] = true
	cur["status"] = map[string]any{"phase": "Running"}
	upd := call(t, srv, http.MethodPut, path+"/n1", cur, http.StatusOK)
	if at(upd, "spec", "unschedulable") != true || at(upd, "status", "allocatable") == nil || at(upd, "status", "phase") != nil {
		t.Errorf("after the update: %v, %v: want the spec change and the stored status", at(upd, "spec"), at(upd, "status"))
	}
	upd["status"] = map[string]any{"addresses": []any{
		map[string]any{"type": "InternalIP", "address": "10.0.0.1"}, map[string]any{"type": "InternalIP", "address": "10.0.0.1"},
	}}
	st = call(t, srv, http.MethodPut, path+"/n1/status", upd, http.StatusUnprocessableEntity)
	if d := cmp.Diff([]string{`status.addresses[1]: Duplicate value: {"Type":"InternalIP","Address":"10.0.0.1"}`}, causesOf(st)); d != "" {
		t.Errorf("status update causes (-want +got):\n%s", d)
	}
}
