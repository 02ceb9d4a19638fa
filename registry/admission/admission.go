// Package admission holds kube-apiserver's default admission plugins that act on the
// built-in kinds, each as kube-apiserver v1.37.2 runs it (plugin/pkg/admission in
// k8s.io/kubernetes): they read the objects they consult (LimitRanges, ResourceQuotas,
// IngressClasses, Namespaces, ...) with registry.Get and registry.List, within the
// Store's call that runs them. NamespaceLifecycle is the registry's own; the plugins
// that read nothing but the object (DefaultTolerationSeconds) are part of the kind's
// strategy (package registry/strategies).
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
func Builtin() Plugins {
	return Plugins{
		// kube's order (AllOrderedPlugins): NamespaceLifecycle (the registry's own),
		// LimitRanger, TaintNodesByCondition, PodSecurity, Priority,
		// DefaultTolerationSeconds (the Pod strategy's), DefaultStorageClass,
		// StorageObjectInUseProtection, PersistentVolumeClaimResize,
		// DefaultIngressClass, ..., ResourceQuota last.
		Mutating:   []registry.MutatingAdmission{LimitRanger{}, Priority{}, DefaultIngressClass{}},
		Validating: []registry.ValidatingAdmission{LimitRanger{}, PodSecurity{}, Priority{}, ResourceQuota{}},
	}
}
