package v1

// This file is apikit's, not the scaffold's. The scaffold's suite registers only v1 of
// Wordpress in the scheme, so neither envtest nor the manager sees its conversion; with
// v2 registered too (below, before the suite starts), envtest points the CRD's conversion
// at the manager's webhook server, and the manager serves /convert there.

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	examplecomv1 "github.com/apikit-dev/apikit/e2e/scaffolds/kubebuilder/api/v1"
	examplecomv2 "github.com/apikit-dev/apikit/e2e/scaffolds/kubebuilder/api/v2"
)

func init() { utilruntime.Must(examplecomv2.AddToScheme(scheme.Scheme)) }

var _ = Describe("Wordpress conversion through apikit's envtest", func() {
	It("points the CRD's conversion at the manager's webhook server", func() {
		crd := &unstructured.Unstructured{}
		crd.SetAPIVersion("apiextensions.k8s.io/v1")
		crd.SetKind("CustomResourceDefinition")
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: "wordpresses.example.com.testproject.org"}, crd)).To(Succeed())
		strategy, _, _ := unstructured.NestedString(crd.Object, "spec", "conversion", "strategy")
		url, _, _ := unstructured.NestedString(crd.Object, "spec", "conversion", "webhook", "clientConfig", "url")
		Expect(strategy).To(Equal("Webhook"))
		Expect(url).To(HaveSuffix("/convert"))
	})

	It("stores a v2 Wordpress in v1 through the scaffold's ConvertTo", func() {
		foo := "kept only without conversion"
		w := &examplecomv2.Wordpress{ObjectMeta: metav1.ObjectMeta{Name: "converted", Namespace: "default"}, Spec: examplecomv2.WordpressSpec{Foo: &foo}}
		Expect(k8sClient.Create(ctx, w)).To(Succeed())
		got := &examplecomv1.Wordpress{}
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(w), got)).To(Succeed())
		Expect(got.Name).To(Equal("converted"))
		By("the scaffold's ConvertTo copies metadata only, so spec.foo is gone")
		Expect(got.Spec.Foo).To(BeNil())
	})
})
