package e2e

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/registry/strategies"
	apikitrest "github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
)

// namingCRD is a namespaced CRD with the given names, served at v1.
func namingCRD(group, plural, singular, kind string, shortNames ...string) *apiextensionsv1.CustomResourceDefinition {
	crd := collidingKubeCRD(group, plural, kind, apiextensionsv1.NamespaceScoped)
	if !strings.HasSuffix(group, ".k8s.io") {
		crd.Annotations = nil
	}
	crd.Spec.Names.Singular, crd.Spec.Names.ShortNames = singular, shortNames
	return crd
}

// crdNamingState is what the naming and establishing controllers wrote on a CRD.
type crdNamingState struct {
	NamesAccepted, Established string // status/reason/message
	AcceptedNames              apiextensionsv1.CustomResourceDefinitionNames
}

func (s crdNamingState) String() string {
	return fmt.Sprintf("NamesAccepted %s; Established %s; acceptedNames %+v", s.NamesAccepted, s.Established, s.AcceptedNames)
}

func namingStateOf(crd *apiextensionsv1.CustomResourceDefinition) crdNamingState {
	st := crdNamingState{AcceptedNames: crd.Status.AcceptedNames}
	for _, c := range crd.Status.Conditions {
		text := fmt.Sprintf("%s/%s/%s", c.Status, c.Reason, c.Message)
		switch c.Type {
		case apiextensionsv1.NamesAccepted:
			st.NamesAccepted = text
		case apiextensionsv1.Established:
			st.Established = text
		}
	}
	return st
}

// crdNamingScenario runs the same CRD requests against one server and returns, per
// step, the naming state of every CRD it looks at, and the CRD events the server
// recorded. Each CRD is waited for until the controllers wrote its conditions (and,
// for the ones that must be served, until it is established).
func crdNamingScenario(t *testing.T, cfg *rest.Config) (map[string]crdNamingState, []string) {
	t.Helper()
	cfg = rest.CopyConfig(cfg)
	cfg.ContentType = "application/json"
	crds := apiextensionsclient.NewForConfigOrDie(cfg).ApiextensionsV1().CustomResourceDefinitions()
	kube := kubernetes.NewForConfigOrDie(cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	get := func(name string) *apiextensionsv1.CustomResourceDefinition {
		crd, err := crds.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("getting CRD %s: %v", name, err)
		}
		return crd
	}
	waitFor := func(name string, established bool) {
		waitUntil(t, ctx, name+" observed", func() bool {
			st := namingStateOf(get(name))
			if established {
				return strings.HasPrefix(st.Established, "True/")
			}
			return st.NamesAccepted != "" && st.Established != "" && !strings.HasPrefix(st.Established, "False/Installing/")
		})
	}
	create := func(crd *apiextensionsv1.CustomResourceDefinition, established bool) {
		if _, err := crds.Create(ctx, crd, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating CRD %s: %v", crd.Name, err)
		}
		waitFor(crd.Name, established)
	}
	out := map[string]crdNamingState{}
	record := func(step string, names ...string) {
		for _, n := range names {
			out[step+": "+n] = namingStateOf(get(n))
		}
	}

	const g = "lab.example.org"
	create(namingCRD(g, "gadgets", "gadget", "Gadget", "gd"), true)
	conflicting := []*apiextensionsv1.CustomResourceDefinition{
		namingCRD(g, "gizmo3s", "gadgets", "Gizmo3"),            // singular = the plural of gadgets
		namingCRD(g, "gadget", "gadgetone", "GadgetOne"),        // plural = the singular of gadgets
		namingCRD(g, "widgets", "widget", "Widget", "wd", "gd"), // the short name gd of gadgets
		namingCRD(g, "gadgettwos", "gadgettwo", "Gadget"),       // the kind and list kind of gadgets
	}
	names := []string{"gadgets." + g}
	for _, crd := range conflicting {
		create(crd, false)
		names = append(names, crd.Name)
	}
	// The plural of a built-in resource of the same group.
	create(namingCRD("coordination.k8s.io", "leases", "lease", "Lease"), true)
	record("created", append(names, "leases.coordination.k8s.io")...)

	// An established CRD that asks for a name in use keeps its own.
	waitFor("gadgets."+g, true)
	g2 := get("gadgets." + g)
	g2.Spec.Names.ShortNames = []string{"gd", "widget"} // the singular widgets holds
	if _, err := crds.Update(ctx, g2, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, ctx, "the new generation of gadgets observed", func() bool {
		return strings.HasPrefix(namingStateOf(get("gadgets."+g)).NamesAccepted, "False/")
	})
	record("gadgets asks for the short name widget", "gadgets."+g)

	// Once gadgets is gone, the names it held are granted.
	if err := crds.Delete(ctx, "gadgets."+g, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, ctx, "gadgets gone", func() bool {
		_, err := crds.Get(ctx, "gadgets."+g, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	for _, crd := range conflicting {
		waitFor(crd.Name, true)
	}
	record("gadgets deleted", names[1:]...)

	// The built-in Leases are still what the resource serves.
	if _, err := kube.CoordinationV1().Leases("default").List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("listing the built-in leases with the CRD leases.coordination.k8s.io: %v", err)
	}
	evs, err := kube.CoreV1().Events("").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	for _, ev := range evs.Items {
		if ev.InvolvedObject.Kind == "CustomResourceDefinition" {
			events = append(events, ev.InvolvedObject.Name+" "+ev.Reason+" "+ev.Message)
		}
	}
	return out, events
}

// TestCRDNaming_MatchesKubeAPIServer creates the same CRDs, with names that clash
// within their group and with a built-in resource, on apikit and on the real
// kube-apiserver of ../shared/bench/kube-control-plane, and compares the conditions
// NamesAccepted and Established (status, reason, message), the accepted names and the
// CRD events, step by step.
func TestCRDNaming_MatchesKubeAPIServer(t *testing.T) {
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	srv := apitest.NewServer(t, s, apitest.Options{REST: apikitrest.Options{Strategies: strategies.Builtin()}, CRDAPI: true, TLS: true, Token: "naming-token"})

	ours, ourEvents := crdNamingScenario(t, &rest.Config{Host: srv.URL, BearerToken: srv.Token(), TLSClientConfig: rest.TLSClientConfig{CAData: srv.CertificateAuthority}})
	for key, st := range ours {
		t.Logf("apikit %s: %v", key, st)
	}
	kcp := startKubeControlPlane(t) // skips without it, having shown apikit's answers
	theirs, theirEvents := crdNamingScenario(t, kcp.Config)
	for key, want := range theirs {
		got := ours[key]
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\napikit: %v\nkube:   %v", key, got, want)
		} else {
			t.Logf("%s: same: %v", key, got)
		}
	}
	if len(ours) != len(theirs) {
		t.Errorf("apikit recorded %d states, kube %d", len(ours), len(theirs))
	}
	if !reflect.DeepEqual(ourEvents, theirEvents) {
		t.Errorf("CRD events: apikit %q, kube %q", ourEvents, theirEvents)
	}
}
