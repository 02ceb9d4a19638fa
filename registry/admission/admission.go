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
// The admission webhooks are among them, without cluster DNS or CEL, and no
// ValidatingAdmissionPolicy plugin (BuiltinWith).
func Builtin() Plugins { return BuiltinWith(Options{}) }

// Options configure the plugins of BuiltinWith that need more than the Store.
type Options struct {
	// Webhooks configure the MutatingAdmissionWebhook and ValidatingAdmissionWebhook
	// plugins.
	Webhooks WebhookOptions
	// ValidatingPolicy is kube's ValidatingAdmissionPolicy plugin, run where kube runs
	// it: after the other validating plugins, before the validating webhooks. CEL lives
	// outside the main module, so the host brings it
	// (github.com/apikit-dev/apikit/cel/policy.NewValidating()); without it, policies
	// and their bindings are stored but not enforced.
	ValidatingPolicy registry.ValidatingAdmission
}

// BuiltinWith is Builtin with the plugins opts configures. Each call returns new
// plugins, to be used by one Store.
func BuiltinWith(opts Options) Plugins {
	// kube's order (AllOrderedPlugins): NamespaceLifecycle (the registry's own),
	// LimitRanger, TaintNodesByCondition, PodSecurity, Priority,
	// DefaultTolerationSeconds, DefaultStorageClass, StorageObjectInUseProtection,
	// PersistentVolumeClaimResize, DefaultIngressClass, ..., MutatingAdmissionWebhook,
	// ValidatingAdmissionPolicy, ValidatingAdmissionWebhook, ResourceQuota last.
	validating := []registry.ValidatingAdmission{LimitRanger{}, PodSecurity{}, Priority{}, PersistentVolumeClaimResize{}}
	if opts.ValidatingPolicy != nil {
		validating = append(validating, opts.ValidatingPolicy)
	}
	return Plugins{
		Mutating: []registry.MutatingAdmission{LimitRanger{}, TaintNodesByCondition{}, Priority{}, DefaultTolerationSeconds{},
			DefaultStorageClass{}, StorageObjectInUseProtection{}, DefaultIngressClass{}, NewMutatingWebhook(opts.Webhooks)},
		Validating: append(validating, NewValidatingWebhook(opts.Webhooks), ResourceQuota{}),
	}
}
