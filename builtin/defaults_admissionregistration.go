package builtin

import (
	admissionregistrationv1 "github.com/apikit-dev/apikit/builtin/admissionregistration/v1"
	metav1 "github.com/apikit-dev/apikit/builtin/meta/v1"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/scheme"
)

// registerAdmissionRegistrationDefaults registers kube-apiserver v1.37.2's defaults of the
// admissionregistration.k8s.io/v1 kinds (k8s.io/kubernetes
// pkg/apis/admissionregistration/v1/defaults.go). In v1 sideEffects and
// admissionReviewVersions are required, not defaulted.
func registerAdmissionRegistrationDefaults(s *scheme.Scheme) {
	conversion.RegisterDefaults(s, defaultValidatingWebhook)
	conversion.RegisterDefaults(s, defaultMutatingWebhook)
	conversion.RegisterDefaults(s, defaultAdmissionRule)
	conversion.RegisterDefaults(s, defaultWebhookServiceReference)
	conversion.RegisterDefaults(s, defaultValidatingAdmissionPolicySpec)
	conversion.RegisterDefaults(s, defaultMutatingAdmissionPolicySpec)
	conversion.RegisterDefaults(s, defaultMatchResources)
}

// webhookMatchDefaults are the defaults every webhook and every policy's matchResources
// share: matchPolicy Equivalent and empty (match-all) namespace and object selectors.
func webhookMatchDefaults(matchPolicy **admissionregistrationv1.MatchPolicyType, namespaceSelector, objectSelector **metav1.LabelSelector) {
	if *matchPolicy == nil {
		p := admissionregistrationv1.Equivalent
		*matchPolicy = &p
	}
	if *namespaceSelector == nil {
		*namespaceSelector = &metav1.LabelSelector{}
	}
	if *objectSelector == nil {
		*objectSelector = &metav1.LabelSelector{}
	}
}

// failurePolicyFail sets a failure policy of Fail when none is set.
func failurePolicyFail(p **admissionregistrationv1.FailurePolicyType) {
	if *p == nil {
		fail := admissionregistrationv1.Fail
		*p = &fail
	}
}

// defaultWebhookTimeoutSeconds is kube's default timeout of a webhook call.
const defaultWebhookTimeoutSeconds = 10

// defaultValidatingWebhook is SetDefaults_ValidatingWebhook.
func defaultValidatingWebhook(w *admissionregistrationv1.ValidatingWebhook) {
	failurePolicyFail(&w.FailurePolicy)
	webhookMatchDefaults(&w.MatchPolicy, &w.NamespaceSelector, &w.ObjectSelector)
	if w.TimeoutSeconds == nil {
		t := int32(defaultWebhookTimeoutSeconds)
		w.TimeoutSeconds = &t
	}
}

// defaultMutatingWebhook is SetDefaults_MutatingWebhook: a validating webhook's defaults
// and reinvocationPolicy Never.
func defaultMutatingWebhook(w *admissionregistrationv1.MutatingWebhook) {
	failurePolicyFail(&w.FailurePolicy)
	webhookMatchDefaults(&w.MatchPolicy, &w.NamespaceSelector, &w.ObjectSelector)
	if w.TimeoutSeconds == nil {
		t := int32(defaultWebhookTimeoutSeconds)
		w.TimeoutSeconds = &t
	}
	if w.ReinvocationPolicy == nil {
		never := admissionregistrationv1.NeverReinvocationPolicy
		w.ReinvocationPolicy = &never
	}
}

// defaultAdmissionRule is SetDefaults_Rule: scope "*".
func defaultAdmissionRule(r *admissionregistrationv1.Rule) {
	if r.Scope == nil {
		all := admissionregistrationv1.AllScopes
		r.Scope = &all
	}
}

// defaultWebhookServicePort is the port of a webhook's service when none is given.
const defaultWebhookServicePort = 443

// defaultWebhookServiceReference is SetDefaults_ServiceReference: port 443.
func defaultWebhookServiceReference(r *admissionregistrationv1.ServiceReference) {
	if r.Port == nil {
		p := int32(defaultWebhookServicePort)
		r.Port = &p
	}
}

// defaultValidatingAdmissionPolicySpec is SetDefaults_ValidatingAdmissionPolicySpec.
func defaultValidatingAdmissionPolicySpec(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
	failurePolicyFail(&s.FailurePolicy)
}

// defaultMutatingAdmissionPolicySpec is SetDefaults_MutatingAdmissionPolicySpec.
func defaultMutatingAdmissionPolicySpec(s *admissionregistrationv1.MutatingAdmissionPolicySpec) {
	failurePolicyFail(&s.FailurePolicy)
}

// defaultMatchResources is SetDefaults_MatchResources.
func defaultMatchResources(m *admissionregistrationv1.MatchResources) {
	webhookMatchDefaults(&m.MatchPolicy, &m.NamespaceSelector, &m.ObjectSelector)
}
