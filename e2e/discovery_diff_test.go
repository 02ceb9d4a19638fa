package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/registry/strategies"
	apikitrest "github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
)

// kubeResourcesFile is kube-apiserver v1.37.2's discovery of its built-in resources,
// one main resource a line: group/version|name|namespaced|kind|verbs (verbs in the
// order its JSON lists them, sorted). It is ../shared/bench/kube-control-plane's
// resources-v1.37.2.txt, copied here so that the check runs without the control plane.
const kubeResourcesFile = "testdata/kube-apiserver-v1.37.2-resources.txt"

// discoveryServer serves what the standalone servers serve (examples/testenv's
// assembly): the built-in kinds with their strategies and the
// customresourcedefinitions resource.
func discoveryServer(t *testing.T) *rest.Config {
	t.Helper()
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	srv := apitest.NewServer(t, s, apitest.Options{REST: apikitrest.Options{Strategies: strategies.Builtin()}, CRDAPI: true, TLS: true, Token: "discovery-token"})
	return &rest.Config{Host: srv.URL, BearerToken: srv.Token(), TLSClientConfig: rest.TLSClientConfig{CAData: srv.CertificateAuthority}, Timeout: 30 * time.Second}
}

// legacyDiscovery reads the APIResourceList JSON of every group version a server lists
// (/api/v1 and /apis/GROUP/VERSION), keyed by group version, in the server's order.
func legacyDiscovery(t *testing.T, cfg *rest.Config) map[string][]metav1.APIResource {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	client := cs.Discovery().RESTClient()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	getJSON := func(path string, into any) {
		t.Helper()
		body, err := client.Get().AbsPath(path).SetHeader("Accept", "application/json").DoRaw(ctx)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		if err := json.Unmarshal(body, into); err != nil {
			t.Fatalf("GET %s: %v: %s", path, err, body)
		}
	}
	paths := map[string]string{}
	var core metav1.APIVersions
	getJSON("/api", &core)
	for _, v := range core.Versions {
		paths[v] = "/api/" + v
	}
	var groups metav1.APIGroupList
	getJSON("/apis", &groups)
	for _, g := range groups.Groups {
		for _, v := range g.Versions {
			paths[v.GroupVersion] = "/apis/" + v.GroupVersion
		}
	}
	out := map[string][]metav1.APIResource{}
	for gv, path := range paths {
		var list metav1.APIResourceList
		getJSON(path, &list)
		if list.GroupVersion != gv {
			t.Errorf("GET %s: groupVersion %q, want %q", path, list.GroupVersion, gv)
		}
		out[gv] = list.APIResources
	}
	return out
}

// TestDiscovery_EveryServedBuiltinResourceIsListedAsKubeAPIServerListsIt checks each
// main resource apikit's discovery lists (built-in kinds and the CRD API) against
// kube-apiserver v1.37.2's: the same group version, name, scope, kind and verbs, in the
// same order. A built-in kind added to package builtin is checked without a change here.
func TestDiscovery_EveryServedBuiltinResourceIsListedAsKubeAPIServerListsIt(t *testing.T) {
	type entry struct {
		namespaced bool
		kind       string
		verbs      string
	}
	f, err := os.Open(kubeResourcesFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	kube := map[string]entry{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "|")
		if len(fields) != 5 {
			t.Fatalf("%s: line %q has %d fields, want 5", kubeResourcesFile, sc.Text(), len(fields))
		}
		kube[fields[0]+" "+fields[1]] = entry{namespaced: fields[2] == "true", kind: fields[3], verbs: fields[4]}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}

	checked := 0
	for gv, resources := range legacyDiscovery(t, discoveryServer(t)) {
		for _, r := range resources {
			if strings.Contains(r.Name, "/") {
				continue // subresources: TestDiscovery_SameEntriesAsKubeAPIServer
			}
			key := gv + " " + r.Name
			want, ok := kube[key]
			if !ok {
				t.Errorf("apikit lists %s, which kube-apiserver does not serve", key)
				continue
			}
			got := entry{namespaced: r.Namespaced, kind: r.Kind, verbs: strings.Join(r.Verbs, ",")}
			if got != want {
				t.Errorf("%s:\napikit: %+v\nkube:   %+v", key, got, want)
			}
			checked++
		}
	}
	// namespaces, configmaps, secrets, serviceaccounts, events (two groups), leases,
	// the RBAC kinds, the reviews and customresourcedefinitions, at least.
	if checked < 15 {
		t.Errorf("checked %d resources, want the 15 or more apikit serves", checked)
	}
	t.Logf("checked %d resources against kube-apiserver v1.37.2's", checked)
}

// TestDiscovery_SameEntriesAsKubeAPIServer compares every entry apikit's discovery
// lists, subresources included, with the real kube-apiserver's of
// ../shared/bench/kube-control-plane: name, singularName, scope, group, version, kind,
// verbs (in order), shortNames, categories and storageVersionHash (the hash of where
// the objects are stored, none for a resource that stores nothing).
func TestDiscovery_SameEntriesAsKubeAPIServer(t *testing.T) {
	ours := legacyDiscovery(t, discoveryServer(t))
	kcp := startKubeControlPlane(t) // skips without it
	theirs := legacyDiscovery(t, kcp.Config)
	checked := 0
	for gv, resources := range ours {
		kubeByName := map[string]metav1.APIResource{}
		for _, r := range theirs[gv] {
			kubeByName[r.Name] = r
		}
		for _, r := range resources {
			want, ok := kubeByName[r.Name]
			if !ok {
				t.Errorf("apikit lists %s %s, which kube-apiserver does not", gv, r.Name)
				continue
			}
			if r.Name == "customresourcedefinitions" && gv == "apiextensions.k8s.io/v1" {
				// kube-apiserver stores CRDs at apiextensions.k8s.io/v1beta1, a version
				// apikit does not have, and hashes that; apikit hashes v1, where it
				// stores them.
				r.StorageVersionHash, want.StorageVersionHash = "", ""
			}
			if !reflect.DeepEqual(r, want) {
				a, _ := json.Marshal(r)
				k, _ := json.Marshal(want)
				t.Errorf("%s %s:\napikit: %s\nkube:   %s", gv, r.Name, a, k)
			}
			checked++
		}
	}
	if checked < 15 {
		t.Errorf("checked %d entries, want the 15 or more apikit serves", checked)
	}
	t.Logf("checked %d entries against kube-apiserver's", checked)
}
