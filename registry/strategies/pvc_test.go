package strategies_test

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/rest"
)

func claim(name string, storage string, modes ...any) map[string]any {
	return map[string]any{
		"apiVersion": "v1", "kind": "PersistentVolumeClaim",
		"metadata": map[string]any{"name": name},
		"spec": map[string]any{
			"accessModes": modes,
			"resources":   map[string]any{"requests": map[string]any{"storage": storage}},
		},
	}
}

// TestPersistentVolumeClaim_CreateDefaultsAndRefusalsAsKube creates claims through the
// HTTP API: a valid one is Pending with a Filesystem volume mode and no other status
// whatever the request said; invalid ones get kube's causes.
func TestPersistentVolumeClaim_CreateDefaultsAndRefusalsAsKube(t *testing.T) {
	srv := apitest.NewServer(t, appsScheme(t), apitest.Options{REST: rest.Options{Strategies: strategies.Builtin()}})
	call(t, srv, http.MethodPost, "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": "default"}}, http.StatusCreated)
	const path = "/api/v1/namespaces/default/persistentvolumeclaims"

	in := claim("data", "1Gi", "ReadWriteOnce")
	in["status"] = map[string]any{"phase": "Bound", "capacity": map[string]any{"storage": "5Gi"}}
	got := call(t, srv, http.MethodPost, path, in, http.StatusCreated)
	for _, c := range []struct {
		path []string
		want any
	}{
		{[]string{"status"}, map[string]any{"phase": "Pending"}},
		{[]string{"spec", "volumeMode"}, "Filesystem"},
		{[]string{"metadata", "generation"}, nil},
	} {
		if d := cmp.Diff(c.want, at(got, c.path...)); d != "" {
			t.Errorf("created %v (-want +got):\n%s", c.path, d)
		}
	}

	for _, c := range []struct {
		name string
		mod  func(map[string]any)
		want []string
	}{
		{"no access modes and no storage request", func(m map[string]any) {
			m["spec"] = map[string]any{}
		}, []string{"spec.accessModes: Required value: at least 1 access mode is required", "spec.resources[storage]: Required value"}},
		{"unknown access mode and ReadWriteOncePod with another", func(m map[string]any) {
			m["spec"].(map[string]any)["accessModes"] = []any{"ReadWriteOncePod", "ReadWriteOnce", "Sometimes"}
		}, []string{
			`spec.accessModes: Unsupported value: "Sometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"`,
			"spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes",
		}},
		{"zero storage request", func(m map[string]any) {
			m["spec"].(map[string]any)["resources"] = map[string]any{"requests": map[string]any{"storage": "0"}}
		}, []string{`spec.resources[storage]: Invalid value: "0": must be greater than zero`}},
		{"bad class names and volume mode", func(m map[string]any) {
			s := m["spec"].(map[string]any)
			s["storageClassName"] = "Fast_SSD"
			s["volumeAttributesClassName"] = "Gold!"
			s["volumeMode"] = "Raw"
		}, []string{
			`spec.storageClassName: Invalid value: "Fast_SSD": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
			`spec.volumeMode: Unsupported value: "Raw": supported values: "Block", "Filesystem"`,
			`spec.volumeAttributesClassName: Invalid value: "Gold!": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
		}},
		{"data source of the core group that is not a claim", func(m map[string]any) {
			m["spec"].(map[string]any)["dataSourceRef"] = map[string]any{"kind": "ConfigMap", "name": ""}
		}, []string{
			"spec.dataSource.name: Required value",
			`spec.dataSource: Invalid value: "ConfigMap": must be 'PersistentVolumeClaim' when referencing the default apiGroup`,
			"spec.dataSourceRef.name: Required value",
			`spec.dataSourceRef: Invalid value: "ConfigMap": must be 'PersistentVolumeClaim' when referencing the default apiGroup`,
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := claim("bad", "1Gi", "ReadWriteOnce")
			c.mod(m)
			st := call(t, srv, http.MethodPost, path, m, http.StatusUnprocessableEntity)
			if d := cmp.Diff(c.want, causesOf(st)); d != "" {
				t.Errorf("causes (-want +got):\n%s", d)
			}
		})
	}
}

// TestPersistentVolumeClaim_UpdateRulesAsKube updates a claim as users and kube's
// controllers do: a volume name may be set once, a bound claim's request may grow but
// not shrink below its capacity, any other spec change is refused with kube's diff,
// and a status write keeps the spec.
func TestPersistentVolumeClaim_UpdateRulesAsKube(t *testing.T) {
	srv := apitest.NewServer(t, appsScheme(t), apitest.Options{REST: rest.Options{Strategies: strategies.Builtin()}})
	call(t, srv, http.MethodPost, "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": "default"}}, http.StatusCreated)
	const path = "/api/v1/namespaces/default/persistentvolumeclaims"
	c := call(t, srv, http.MethodPost, path, claim("data", "1Gi", "ReadWriteOnce"), http.StatusCreated)

	c["spec"].(map[string]any)["volumeName"] = "pv-1"
	c = call(t, srv, http.MethodPut, path+"/data", c, http.StatusOK)
	c["status"] = map[string]any{"phase": "Bound", "accessModes": []any{"ReadWriteOnce"}, "capacity": map[string]any{"storage": "2Gi"}}
	c["spec"].(map[string]any)["volumeName"] = "ignored-by-status"
	// An unconditional status write (no resourceVersion) is checked against the stored
	// object's, as kube's store fills it in before validation.
	delete(c["metadata"].(map[string]any), "resourceVersion")
	c = call(t, srv, http.MethodPut, path+"/data/status", c, http.StatusOK)
	if got := at(c, "spec", "volumeName"); got != "pv-1" {
		t.Errorf("a status write changed spec.volumeName to %v", got)
	}
	if got := at(c, "status", "phase"); got != "Bound" {
		t.Errorf("status.phase = %v after the status write, want Bound", got)
	}

	grown := c
	grown["spec"].(map[string]any)["resources"] = map[string]any{"requests": map[string]any{"storage": "3Gi"}}
	c = call(t, srv, http.MethodPut, path+"/data", grown, http.StatusOK)

	for _, tc := range []struct {
		name string
		mod  func(spec map[string]any)
		want []string
	}{
		{"request below status.capacity", func(s map[string]any) {
			s["resources"] = map[string]any{"requests": map[string]any{"storage": "2Gi"}}
		}, []string{"spec.resources.requests.storage: Forbidden: field can not be less than status.capacity"}},
		{"another volume once bound", func(s map[string]any) { s["volumeName"] = "pv-2" }, []string{
			"spec: Forbidden: " + pvcImmutable + "\n@@ -9,7 +9,7 @@\n" +
				"    \"storage\": \"3Gi\"\n   }\n  },\n" +
				"- \"VolumeName\": \"pv-1\",\n+ \"VolumeName\": \"pv-2\",\n" +
				"  \"StorageClassName\": null,\n  \"VolumeMode\": \"Filesystem\",\n  \"DataSource\": null,\n",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := map[string]any{}
			for k, v := range c {
				m[k] = v
			}
			spec := map[string]any{}
			for k, v := range c["spec"].(map[string]any) {
				spec[k] = v
			}
			tc.mod(spec)
			m["spec"] = spec
			st := call(t, srv, http.MethodPut, path+"/data", m, http.StatusUnprocessableEntity)
			got := causesOf(st)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("causes (-want +got):\n%s", d)
			}
		})
	}
}

// pvcImmutable is kube's refusal of a claim's spec change, before its diff.
const pvcImmutable = "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims"
