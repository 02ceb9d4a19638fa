package e2e

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/managedfields/managedfieldstest"
	"k8s.io/kube-openapi/pkg/spec3"

	"github.com/apikit-dev/apikit/examples/widgets/server"
)

// deepFieldsV1 is a fieldsV1 document nesting levels objects: the document, f:spec,
// then f:x ones.
func deepFieldsV1(levels int) string {
	return `{"f:spec":` + strings.Repeat(`{"f:x":`, levels-2) + "{}" + strings.Repeat("}", levels-2) + "}"
}

// TestManagedFields_DeepFieldsV1OnWriteIsTreatedAsKubesFieldManagerTreatsIt sends an
// update whose managedFields carry another manager's entry with a deep fieldsV1, to the
// example server and to k8s.io/apimachinery's field manager (kube-apiserver's, which
// reads fieldsV1 with structured-merge-diff, json-iterator's 10000 levels at most, and
// keeps the live object's entries when it cannot), and compares what each keeps.
// The 5,000 levels are readable, so kube stores them (200), and so does
// apikit. The deepest fieldsV1 a JSON body can carry (9,996 levels, the body then
// 10,000 deep) kube stores too, as an object no list or Table of it can be read from;
// apikit refuses it with the 400 of any object stored deeper than that
// (rest's maxStoredDepth).
func TestManagedFields_DeepFieldsV1OnWriteIsTreatedAsKubesFieldManagerTreatsIt(t *testing.T) {
	es := startExampleServer(t, server.StorageMemory)
	const ns = "mf-depth"
	gvk := schema.GroupVersionKind{Group: "toys.example.com", Version: "v1", Kind: "Widget"}
	code, _, body := es.do(t, "GET", "/openapi/v3/apis/toys.example.com/v1", nil, nil)
	if code != 200 {
		t.Fatalf("openapi v3: %d %s", code, body)
	}
	var doc spec3.OpenAPI
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	converter, err := managedfields.NewTypeConverter(doc.Components.Schemas, false)
	if err != nil {
		t.Fatal(err)
	}
	widget := func(name string) map[string]any {
		return map[string]any{"apiVersion": "toys.example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"name": name, "namespace": ns}, "spec": map[string]any{"color": "red"}}
	}
	intruder := func(levels int) map[string]any {
		var fields any
		if err := json.Unmarshal([]byte(deepFieldsV1(levels)), &fields); err != nil {
			t.Fatal(err)
		}
		return map[string]any{"manager": "intruder", "operation": "Update", "apiVersion": "toys.example.com/v1",
			"time": "2026-01-01T00:00:00Z", "fieldsType": "FieldsV1", "fieldsV1": fields}
	}
	hasIntruder := func(entries []metav1.ManagedFieldsEntry, levels int) bool {
		for _, e := range entries {
			if e.Manager == "intruder" && e.FieldsV1 != nil && string(e.FieldsV1.Raw) == deepFieldsV1(levels) {
				return true
			}
		}
		return false
	}

	for _, tc := range []struct {
		levels  int
		ourCode int
	}{
		{5000, http.StatusOK},
		{9996, http.StatusBadRequest},
	} {
		t.Run(strconv.Itoa(tc.levels), func(t *testing.T) {
			name := "w" + strconv.Itoa(tc.levels)
			// Kube's field manager: create, then the update with the intruder's entry.
			kube := managedfieldstest.NewTestFieldManager(converter, gvk)
			if err := kube.Update(&unstructured.Unstructured{Object: widget(name)}, "creator"); err != nil {
				t.Fatal(err)
			}
			upd := kube.Live().(*unstructured.Unstructured).DeepCopy().Object
			md := upd["metadata"].(map[string]any)
			md["managedFields"] = append(md["managedFields"].([]any), intruder(tc.levels))
			if err := kube.Update(&unstructured.Unstructured{Object: upd}, "editor"); err != nil {
				t.Fatalf("kube's field manager: %v", err)
			}
			kubeKeeps := hasIntruder(kube.ManagedFields(), tc.levels)
			if !kubeKeeps {
				t.Fatalf("kube's field manager dropped the %d-level fieldsV1: the premise of this case changed", tc.levels)
			}

			// Ours, over HTTP.
			path := "/apis/toys.example.com/v1/namespaces/" + ns + "/widgets"
			created, _ := json.Marshal(widget(name))
			if code, _, resp := es.do(t, "POST", path+"?fieldManager=creator", http.Header{"Content-Type": {"application/json"}}, created); code != http.StatusCreated {
				t.Fatalf("POST: %d %.300s", code, resp)
			}
			_, _, cur := es.do(t, "GET", path+"/"+name, nil, nil)
			var live map[string]any
			if err := json.Unmarshal(cur, &live); err != nil {
				t.Fatal(err)
			}
			lmd := live["metadata"].(map[string]any)
			lmd["managedFields"] = append(lmd["managedFields"].([]any), intruder(tc.levels))
			put, _ := json.Marshal(live)
			code, _, resp := es.do(t, "PUT", path+"/"+name+"?fieldManager=editor", http.Header{"Content-Type": {"application/json"}}, put)
			if code != tc.ourCode {
				t.Fatalf("PUT with a %d-level fieldsV1: %d %.300s, want %d", tc.levels, code, resp, tc.ourCode)
			}
			if code != http.StatusOK {
				t.Logf("apikit: %d %.400s; kube stores it", code, resp)
				return
			}
			var st struct {
				Metadata struct {
					ManagedFields []metav1.ManagedFieldsEntry `json:"managedFields"`
				} `json:"metadata"`
			}
			if err := json.Unmarshal(resp, &st); err != nil {
				t.Fatal(err)
			}
			if got := hasIntruder(st.Metadata.ManagedFields, tc.levels); got != kubeKeeps {
				t.Errorf("apikit keeps the intruder's entry: %v, kube: %v", got, kubeKeeps)
			}
		})
	}
}
