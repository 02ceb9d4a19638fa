package kubecode

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/client-go/informers"
	"k8s.io/kubernetes/pkg/apis/networking"
	"k8s.io/kubernetes/plugin/pkg/admission/network/defaultingressclass"

	"github.com/apikit-dev/apikit/authz"
	"github.com/apikit-dev/apikit/builtin"
	apikitadmission "github.com/apikit-dev/apikit/registry/admission"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage/memory"
)

// ingressClassCase is one DefaultIngressClass case: the IngressClasses that exist (each
// with its is-default-class annotation, "" for none, and its creation second) and a new
// Ingress's class name and class annotation ("" for none).
type ingressClassCase struct {
	classes          []classSpec
	className, annot string
}

type classSpec struct {
	name, isDefault string
	second          int
}

func (c ingressClassCase) String() string {
	var cs []string
	for _, k := range c.classes {
		cs = append(cs, fmt.Sprintf("%s(default=%q,t=%d)", k.name, k.isDefault, k.second))
	}
	return fmt.Sprintf("classes [%s], ingressClassName %q, annotation %q", strings.Join(cs, " "), c.className, c.annot)
}

func generateIngressClassCases(seed uint64, n int) []ingressClassCase {
	r := rand.New(rand.NewPCG(seed, 0x1c))
	names := []string{"alpha", "beta", "nginx", "traefik", "zeta"}
	out := make([]ingressClassCase, 0, n)
	for range n {
		var c ingressClassCase
		for _, i := range r.Perm(len(names))[:r.IntN(len(names)+1)] {
			c.classes = append(c.classes, classSpec{name: names[i], isDefault: pick(r, []string{"", "true", "true", "false", "True"}), second: 1 + r.IntN(3)})
		}
		if r.IntN(5) == 0 {
			c.className = "mine"
		}
		if r.IntN(5) == 0 {
			// Validation refuses an annotation that differs from the class name.
			c.annot = "legacy"
			if c.className != "" {
				c.annot = c.className
			}
		}
		out = append(out, c)
	}
	return out
}

// kubeDefaultIngressClass runs k8s.io/kubernetes's DefaultIngressClass plugin, its lister
// holding the case's classes, on the case's new Ingress; it returns the class it gives.
func kubeDefaultIngressClass(t *testing.T, c ingressClassCase) string {
	t.Helper()
	// The informer is never started: its store is filled by hand and the plugin's
	// lister reads it.
	f := informers.NewSharedInformerFactory(nil, 0)
	store := f.Networking().V1().IngressClasses().Informer().GetStore()
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, k := range c.classes {
		ic := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: k.name, CreationTimestamp: metav1.NewTime(base.Add(time.Duration(k.second) * time.Second))}}
		if k.isDefault != "" {
			ic.Annotations = map[string]string{networkingv1.AnnotationIsDefaultIngressClass: k.isDefault}
		}
		if err := store.Add(ic); err != nil {
			t.Fatal(err)
		}
	}
	plugins := admission.NewPlugins()
	defaultingressclass.Register(plugins)
	p, err := plugins.InitPlugin(defaultingressclass.PluginName, nil, informerInitializer{f})
	if err != nil {
		t.Fatal(err)
	}
	ing := &networking.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns1"}}
	if c.className != "" {
		ing.Spec.IngressClassName = &c.className
	}
	if c.annot != "" {
		ing.Annotations = map[string]string{"kubernetes.io/ingress.class": c.annot}
	}
	gvk := schema.GroupVersionKind{Group: "networking.k8s.io", Version: "v1", Kind: "Ingress"}
	a := admission.NewAttributesRecord(ing, nil, gvk, "ns1", "web", gvk.GroupVersion().WithResource("ingresses"), "", admission.Create, &metav1.CreateOptions{}, false, nil)
	if err := p.(admission.MutationInterface).Admit(context.Background(), a, nil); err != nil {
		t.Fatalf("%s: kube: %v", c, err)
	}
	if ing.Spec.IngressClassName == nil {
		return ""
	}
	return *ing.Spec.IngressClassName
}

// informerInitializer gives a plugin the informer factory, as kube-apiserver's
// initializer does.
type informerInitializer struct {
	f informers.SharedInformerFactory
}

func (i informerInitializer) Initialize(p admission.Interface) {
	if w, ok := p.(interface {
		SetExternalKubeInformerFactory(informers.SharedInformerFactory)
	}); ok {
		w.SetExternalKubeInformerFactory(i.f)
	}
}

// apikitDefaultIngressClass creates the case's classes and Ingress on apikit with its
// default admission plugins (admission.Builtin()) and returns the stored Ingress's class.
func apikitDefaultIngressClass(t *testing.T, c ingressClassCase) string {
	t.Helper()
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	var second atomic.Int64
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	plugins := apikitadmission.Builtin()
	h, err := rest.New(rest.Options{Scheme: s, Storage: memory.New(memory.Options{}), Strategies: strategies.Builtin(),
		MutatingAdmission: plugins.Mutating, ValidatingAdmission: plugins.Validating,
		AllowAnonymous: true, Authorizer: authz.AlwaysAllow{}, Clock: func() time.Time { return base.Add(time.Duration(second.Load()) * time.Second) }})
	if err != nil {
		t.Fatal(err)
	}
	a := &apikitServer{h: h, scheme: s}
	if r := a.send(http.MethodPost, "/api/v1/namespaces", []byte(`{"metadata":{"name":"ns1"}}`)); r.Code != http.StatusCreated {
		t.Fatalf("apikit: creating namespace ns1: %d %s", r.Code, r.Message)
	}
	for _, k := range c.classes {
		second.Store(int64(k.second))
		meta := Object{"name": k.name}
		if k.isDefault != "" {
			meta["annotations"] = Object{"ingressclass.kubernetes.io/is-default-class": k.isDefault}
		}
		r := a.Create("IngressClass", "", JSON(Object{"apiVersion": "networking.k8s.io/v1", "kind": "IngressClass", "metadata": meta,
			"spec": Object{"controller": "example.com/" + k.name}}))
		if r.Code != http.StatusCreated {
			t.Fatalf("%s: apikit: creating class %s: %d %s", c, k.name, r.Code, r.Message)
		}
	}
	second.Store(10)
	meta := Object{"name": "web"}
	spec := Object{"defaultBackend": Object{"service": Object{"name": "web", "port": Object{"number": 80}}}}
	if c.className != "" {
		spec["ingressClassName"] = c.className
	}
	if c.annot != "" {
		meta["annotations"] = Object{"kubernetes.io/ingress.class": c.annot}
	}
	r := a.Create("Ingress", "ns1", JSON(Object{"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": meta, "spec": spec}))
	if r.Code != http.StatusCreated {
		t.Fatalf("%s: apikit: creating the ingress: %d %s %v", c, r.Code, r.Message, r.Causes)
	}
	var stored struct {
		Spec struct {
			IngressClassName string `json:"ingressClassName"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(r.Object, &stored); err != nil {
		t.Fatal(err)
	}
	return stored.Spec.IngressClassName
}

// TestDifferential_DefaultIngressClass gives k8s.io/kubernetes v1.37.2's
// DefaultIngressClass plugin and apikit's admission the same IngressClasses (several
// defaults, ties of creation time, annotations other than "true") and new Ingresses
// (with and without a class name or the deprecated annotation), and compares the class
// each gives the Ingress.
func TestDifferential_DefaultIngressClass(t *testing.T) {
	n := 200
	if testing.Short() {
		n = 20
	}
	defaulted, differ := 0, 0
	for _, c := range generateIngressClassCases(seed(t), n) {
		kube, apikit := kubeDefaultIngressClass(t, c), apikitDefaultIngressClass(t, c)
		if kube != "" && c.className == "" {
			defaulted++
		}
		if kube != apikit {
			differ++
			t.Errorf("%s: kube gives %q, apikit %q", c, kube, apikit)
		}
	}
	t.Logf("DefaultIngressClass: %d new Ingresses, %d given a default class by kube, %d different", n, defaulted, differ)
	if defaulted == 0 || defaulted == n {
		t.Errorf("the generator gave %d of %d Ingresses a default class: both outcomes are needed", defaulted, n)
	}
}
