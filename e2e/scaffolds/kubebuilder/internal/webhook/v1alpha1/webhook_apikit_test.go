package v1alpha1

// This file is apikit's, not the scaffold's: the scaffold's specs are empty, and a suite
// without specs runs no BeforeSuite, so this one makes it start envtest and the manager.

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

var _ = Describe("Memcached webhooks installed by apikit's envtest", func() {
	It("installs config/webhook pointed at the manager's webhook server", func() {
		cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: "validating-webhook-configuration"}, cfg)).To(Succeed())
		Expect(cfg.Webhooks).To(HaveLen(1))
		Expect(cfg.Webhooks[0].ClientConfig.Service).To(BeNil())
		Expect(cfg.Webhooks[0].ClientConfig.URL).To(HaveValue(HaveSuffix("//validate-example-com-testproject-org-v1alpha1-memcached")))
		Expect(cfg.Webhooks[0].ClientConfig.CABundle).To(Equal(testEnv.WebhookInstallOptions.LocalServingCAData))
	})
})
