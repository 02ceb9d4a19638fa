// Package admission holds kube-apiserver's default admission plugins that act on the
// built-in kinds, each as kube-apiserver v1.37.2 runs it (plugin/pkg/admission in
// k8s.io/kubernetes): they read the objects they consult (LimitRanges, ResourceQuotas,
// IngressClasses, Namespaces, ...) with registry.Get and registry.List, within the
// Store's call that runs them. NamespaceLifecycle is the registry's own.
//
// MutatingWebhook and ValidatingWebhook are kube's MutatingAdmissionWebhook and
// ValidatingAdmissionWebhook plugins: they call the admission webhooks of the stored
// admissionregistration.k8s.io/v1 webhook configurations (package webhook is their
// client); BuiltinWith configures how they reach Services and compile matchConditions.
package admission

import "github.com/apikit-dev/apikit/registry"

// Plugins are admission plugins for rest.Options' MutatingAdmission and
// ValidatingAdmission, each list in the order kube-apiserver runs them.
type Plugins struct {
	Mutating   []registry.MutatingAdmission
	Validating []registry.ValidatingAdmission
}

// Builtin returns kube-apiserver's default admission plugins of the built-in kinds as
// envtest's kube-apiserver runs them (every default plugin but ServiceAccount), in
// kube's order; a plugin whose kinds a server does not serve lets every request pass.
// The admission webhooks are among them, without cluster DNS or CEL (BuiltinWith).
func Builtin() Plugins { return BuiltinWith(WebhookOptions{}) }

// BuiltinWith is Builtin with the MutatingAdmissionWebhook and
// ValidatingAdmissionWebhook plugins configured by webhooks. Each call returns new
// plugins, to be used by one Store.
func BuiltinWith(webhooks WebhookOptions) Plugins {
	return Plugins{
		// kube's order (AllOrderedPlugins): NamespaceLifecycle (the registry's own),
		// LimitRanger, TaintNodesByCondition, PodSecurity, Priority,
		// DefaultTolerationSeconds, DefaultStorageClass,
		// StorageObjectInUseProtection, PersistentVolumeClaimResize,
		// DefaultIngressClass, ..., MutatingAdmissionWebhook,
		// ValidatingAdmissionWebhook, ResourceQuota last.
		Mutating: []registry.MutatingAdmission{LimitRanger{}, TaintNodesByCondition{}, Priority{}, DefaultTolerationSeconds{},
			DefaultStorageClass{}, StorageObjectInUseProtection{}, DefaultIngressClass{}, NewMutatingWebhook(webhooks)},
		Validating: []registry.ValidatingAdmission{LimitRanger{}, PodSecurity{}, Priority{},
			PersistentVolumeClaimResize{}, NewValidatingWebhook(webhooks), ResourceQuota{}},
	}
}
