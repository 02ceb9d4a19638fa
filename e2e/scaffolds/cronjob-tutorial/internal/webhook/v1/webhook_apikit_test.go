package v1

// This file is apikit's, not the scaffold's: it checks what the scaffold's suite
// relies on without saying so, that the configurations envtest installed lead to the
// manager's webhook server.

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	batchv1k8s "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apikitwebhook "github.com/apikit-dev/apikit/webhook"

	batchv1 "github.com/apikit-dev/apikit/e2e/scaffolds/cronjob-tutorial/api/v1"
)

// apikitCronJob returns a CronJob the CRD's schema accepts, with schedule and none of
// the fields the defaulter sets.
func apikitCronJob(name, schedule string) *batchv1.CronJob {
	return &batchv1.CronJob{
		TypeMeta:   metav1.TypeMeta{APIVersion: batchv1.GroupVersion.String(), Kind: "CronJob"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: batchv1.CronJobSpec{Schedule: schedule, JobTemplate: batchv1k8s.JobTemplateSpec{Spec: batchv1k8s.JobSpec{
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				Containers:    []corev1.Container{{Name: "main", Image: "busybox"}},
				RestartPolicy: corev1.RestartPolicyOnFailure,
			}},
		}}},
	}
}

var _ = Describe("CronJob webhooks installed by apikit's envtest", func() {
	It("the installed mutating configuration leads to the manager's defaulter", func() {
		cfg := &admissionregistrationv1.MutatingWebhookConfiguration{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: "mutating-webhook-configuration"}, cfg)).To(Succeed())
		Expect(cfg.Webhooks).To(HaveLen(1))
		cc := cfg.Webhooks[0].ClientConfig
		Expect(cc.Service).To(BeNil())
		Expect(cc.URL).NotTo(BeNil())
		Expect(cc.CABundle).To(Equal(testEnv.WebhookInstallOptions.LocalServingCAData))

		By("calling it as the API server's admission does, with apikit's webhook client")
		hook, err := apikitwebhook.New(cfg.Webhooks[0].Name, apikitwebhook.ClientConfig{URL: *cc.URL, CABundle: cc.CABundle}, apikitwebhook.Options{})
		Expect(err).NotTo(HaveOccurred())
		defer hook.Close()
		raw, err := json.Marshal(apikitCronJob("called-directly", "*/5 * * * *"))
		Expect(err).NotTo(HaveOccurred())
		review := admissionv1.AdmissionReview{
			TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
			Request: &admissionv1.AdmissionRequest{
				UID:       "the-uid",
				Kind:      metav1.GroupVersionKind{Group: batchv1.GroupVersion.Group, Version: batchv1.GroupVersion.Version, Kind: "CronJob"},
				Resource:  metav1.GroupVersionResource{Group: batchv1.GroupVersion.Group, Version: batchv1.GroupVersion.Version, Resource: "cronjobs"},
				Name:      "called-directly",
				Namespace: "default",
				Operation: admissionv1.Create,
				Object:    runtime.RawExtension{Raw: raw},
			},
		}
		var answer admissionv1.AdmissionReview
		Expect(hook.Call(ctx, &review, &answer)).To(Succeed())
		Expect(answer.Response).NotTo(BeNil())
		Expect(answer.Response.UID).To(BeEquivalentTo("the-uid"))
		Expect(answer.Response.Allowed).To(BeTrue())
		Expect(string(answer.Response.Patch)).To(ContainSubstring("/spec/successfulJobsHistoryLimit"))
	})

	// Through the API server's admission webhooks, as on controller-runtime's envtest
	// with kube-apiserver v1.37.2.
	It("defaults a CronJob created through the API server", func() {
		cj := apikitCronJob("defaulted", "*/5 * * * *")
		Expect(k8sClient.Create(ctx, cj)).To(Succeed())
		Expect(cj.Spec.SuccessfulJobsHistoryLimit).NotTo(BeNil())
		Expect(*cj.Spec.SuccessfulJobsHistoryLimit).To(Equal(int32(3)))
		Expect(cj.Spec.FailedJobsHistoryLimit).NotTo(BeNil())
		Expect(*cj.Spec.FailedJobsHistoryLimit).To(Equal(int32(1)))
		Expect(cj.Spec.Suspend).NotTo(BeNil())
		Expect(*cj.Spec.Suspend).To(BeFalse())
	})

	It("refuses a CronJob with an invalid schedule through the API server", func() {
		err := k8sClient.Create(ctx, apikitCronJob("refused", "invalid-cron-schedule"))
		Expect(err).To(MatchError(ContainSubstring(`admission webhook "vcronjob-v1.kb.io" denied the request`)))
		Expect(err).To(MatchError(ContainSubstring("Expected exactly 5 fields, found 1: invalid-cron-schedule")))
	})
})
