package envtest_test

import (
	"context"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/envtest"
	"github.com/apikit-dev/apikit/scheme"
)

// TestGinkgoSuite runs a kubebuilder-shaped suite: the Environment starts in
// BeforeSuite and stops in AfterSuite, with no testing.TB.
func TestGinkgoSuite(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "envtest under Ginkgo")
}

var (
	testEnv   *envtest.Environment
	k8sClient client.Client
)

var _ = BeforeSuite(func() {
	testEnv = &envtest.Environment{
		CRDDirectoryPaths:     []string{"testdata/crds"},
		ErrorIfCRDPathMissing: true,
		BinaryAssetsDirectory: "bin/k8s/ignored", // kubebuilder's suites set it; ignored here
	}
	var cfg *rest.Config
	var err error
	cfg, err = testEnv.Start()
	Expect(err).NotTo(HaveOccurred())
	Expect(cfg).NotTo(BeNil())
	k8sClient, err = client.New(cfg, client.Options{})
	Expect(err).NotTo(HaveOccurred())
})

var _ = AfterSuite(func() {
	Expect(testEnv.Stop()).To(Succeed())
})

var _ = Describe("Environment", func() {
	It("serves the CRDs of CRDDirectoryPaths", func() {
		Expect(k8sClient.Create(context.Background(), object(widgetGVK, "default", "from-ginkgo", map[string]any{"replicas": int64(1)}))).To(Succeed())
	})
	It("lets apitest.NewServer take GinkgoT()", func() {
		srv := apitest.NewServer(GinkgoT(), scheme.New(), apitest.Options{})
		resp, err := srv.Client().Get(srv.URL + "/healthz")
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Body.Close()).To(Succeed())
		Expect(resp.StatusCode).To(Equal(200))
	})
})
