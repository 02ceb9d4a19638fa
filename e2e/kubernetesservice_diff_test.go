package e2e

import (
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apikit-dev/apikit/apitest"
)

var (
	gvrEndpoints      = k8sschema.GroupVersionResource{Version: "v1", Resource: "endpoints"}
	gvrEndpointSlices = k8sschema.GroupVersionResource{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"}
)

// TestSideBySide_KubernetesEndpointsResetAfterAWrite writes the kubernetes Service's
// Endpoints (the skip-mirror label dropped, another address, a label and an annotation
// of the user's) and its EndpointSlice (an extra label and an annotation) on both
// servers, waits until each server put them back (kube-apiserver's endpoint reconciler
// runs every 10 s), and compares what they hold, the API server's address and port
// set aside.
func TestSideBySide_KubernetesEndpointsResetAfterAWrite(t *testing.T) {
	// The shared control plane runs no endpoint reconciler and advertises loopback;
	// envtest's kube-apiserver runs the lease reconciler and advertises the host's
	// address, as the test server does.
	host := apitest.AdvertiseAddress(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 443}).Addr()
	if !host.IsValid() {
		t.Skip("no host address to advertise")
	}
	servers := startSideBySide(t, "--endpoint-reconciler-type=lease", "--advertise-address="+host.String())
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	get := func(sv *sideBySide, gvr k8sschema.GroupVersionResource) *unstructured.Unstructured {
		t.Helper()
		obj, err := sv.dc.Resource(gvr).Namespace("default").Get(ctx, "kubernetes", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("%s: get %s default/kubernetes: %v", sv.name, gvr.Resource, err)
		}
		return obj
	}
	update := func(sv *sideBySide, gvr k8sschema.GroupVersionResource, fn func(obj map[string]any)) {
		t.Helper()
		obj := get(sv, gvr)
		fn(obj.Object)
		if _, err := sv.dc.Resource(gvr).Namespace("default").Update(ctx, obj, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("%s: update %s default/kubernetes: %v", sv.name, gvr.Resource, err)
		}
	}
	got := map[string]string{}
	for _, sv := range servers {
		var ep *unstructured.Unstructured
		waitFor(t, sv.name+": the kubernetes Endpoints", func() bool {
			obj, err := sv.dc.Resource(gvrEndpoints).Namespace("default").Get(ctx, "kubernetes", metav1.GetOptions{})
			ep = obj
			return err == nil
		})
		subsets, _, _ := unstructured.NestedSlice(ep.Object, "subsets")
		if len(subsets) != 1 {
			t.Fatalf("%s: Endpoints subsets %v, want one", sv.name, subsets)
		}
		addrs, _, _ := unstructured.NestedSlice(subsets[0].(map[string]any), "addresses")
		ports, _, _ := unstructured.NestedSlice(subsets[0].(map[string]any), "ports")
		ip, _ := addrs[0].(map[string]any)["ip"].(string)
		port := ports[0].(map[string]any)["port"]
		normalize := func(v any) string {
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			s := strings.ReplaceAll(string(b), `"`+ip+`"`, `"<address>"`)
			pb, _ := json.Marshal(port)
			return strings.ReplaceAll(s, `"port":`+string(pb), `"port":"<port>"`)
		}

		update(sv, gvrEndpoints, func(obj map[string]any) {
			md := obj["metadata"].(map[string]any)
			md["labels"] = map[string]any{"team": "a"}
			md["annotations"] = map[string]any{"note": "kept"}
			obj["subsets"].([]any)[0].(map[string]any)["addresses"] = []any{map[string]any{"ip": "10.9.9.9"}}
		})
		waitFor(t, sv.name+": the Endpoints reset", func() bool {
			obj := get(sv, gvrEndpoints)
			l := obj.GetLabels()
			return l["endpointslice.kubernetes.io/skip-mirror"] == "true" && strings.Contains(normalize(obj.Object["subsets"]), "<address>")
		})
		update(sv, gvrEndpointSlices, func(obj map[string]any) {
			md := obj["metadata"].(map[string]any)
			md["labels"].(map[string]any)["team"] = "b"
			md["annotations"] = map[string]any{"note": "dropped"}
		})
		waitFor(t, sv.name+": the EndpointSlice reset", func() bool {
			_, extra := get(sv, gvrEndpointSlices).GetLabels()["team"]
			return !extra
		})
		ep, slice := get(sv, gvrEndpoints), get(sv, gvrEndpointSlices)
		got[sv.name] = strings.Join([]string{
			"endpoints labels " + normalize(ep.GetLabels()),
			"endpoints annotations " + normalize(ep.GetAnnotations()),
			"endpoints subsets " + normalize(ep.Object["subsets"]),
			"slice labels " + normalize(slice.GetLabels()),
			"slice annotations " + normalize(slice.GetAnnotations()),
			"slice addressType " + normalize(slice.Object["addressType"]),
			"slice endpoints " + normalize(slice.Object["endpoints"]),
			"slice ports " + normalize(slice.Object["ports"]),
		}, "\n")
	}
	if got["kube"] != got["apikit"] {
		t.Errorf("after the resets:\nkube:\n%s\napikit:\n%s", got["kube"], got["apikit"])
	}
	t.Logf("both servers:\n%s", got["kube"])
}
