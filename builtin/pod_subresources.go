package builtin

import (
	"fmt"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	policyv1 "github.com/apikit-dev/apikit/builtin/policy/v1"
	"github.com/apikit-dev/apikit/codec/protobuf"
	"github.com/apikit-dev/apikit/scheme"
)

// podSubresources are the subresources of pods that kube-apiserver v1.37.2 serves
// beside pods/status, as its discovery lists them: pods/binding (kind Binding, create),
// pods/ephemeralcontainers and pods/resize (kind Pod, get, patch and update),
// pods/eviction (kind policy/v1 Eviction, create), and the connections to a pod's
// kubelet: pods/attach, exec and portforward (their options' kinds, create and get:
// GET and POST, each authorized for create too), pods/log (kind Pod, get) and
// pods/proxy (kind PodProxyOptions, every method, the rest of the path its own).
// registry/strategies says what each does.
var podSubresources = []scheme.Subresource{
	{Name: "attach", Verbs: streamVerbs, Kind: corev1.SchemeGroupVersion.WithKind("PodAttachOptions"), ConnectMethods: streamMethods, ConnectVerb: "create"},
	{Name: "binding", Verbs: []string{"create"}, Kind: corev1.SchemeGroupVersion.WithKind("Binding")},
	{Name: "ephemeralcontainers", Verbs: []string{"get", "patch", "update"}},
	{Name: "eviction", Verbs: []string{"create"}, Kind: policyv1.SchemeGroupVersion.WithKind("Eviction")},
	{Name: "exec", Verbs: streamVerbs, Kind: corev1.SchemeGroupVersion.WithKind("PodExecOptions"), ConnectMethods: streamMethods, ConnectVerb: "create"},
	{Name: "log", Verbs: []string{"get"}, ConnectMethods: []string{"GET"}},
	{Name: "portforward", Verbs: streamVerbs, Kind: corev1.SchemeGroupVersion.WithKind("PodPortForwardOptions"), ConnectMethods: streamMethods, ConnectVerb: "create"},
	proxySubresource("PodProxyOptions"),
	{Name: "resize", Verbs: []string{"get", "patch", "update"}},
}

// streamMethods and streamVerbs are those of kube's upgradeable connections (exec,
// attach, portforward): GET and POST, listed as get and create.
var (
	streamMethods = []string{"GET", "POST"}
	streamVerbs   = []string{"create", "get"}
)

// proxySubresource is kube's proxy subresource of pods, nodes and services: every
// method kube's ProxyREST accepts, listed as the five verbs they are authorized as,
// the path after it the proxied path.
func proxySubresource(optionsKind string) scheme.Subresource {
	return scheme.Subresource{
		Name: "proxy", Verbs: []string{"create", "delete", "get", "patch", "update"},
		Kind:           corev1.SchemeGroupVersion.WithKind(optionsKind),
		ConnectMethods: []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}, ConnectPath: true,
	}
}

// bindingsResource is kube's top-level bindings, create-only: the older form of
// pods/binding.
var bindingsResource = scheme.Resource{Kind: "Binding", Plural: "bindings", Namespaced: true, Verbs: []string{"create"}}

// addPodSubresourcesToScheme registers the bodies of the pod subresources (core/v1
// Binding, with its protobuf field numbers) and the top-level bindings.
func addPodSubresourcesToScheme(s *scheme.Scheme) error {
	s.AddKnownTypes(corev1.SchemeGroupVersion, &corev1.Binding{})
	if err := protobuf.RegisterTypes(s, corev1.SchemeGroupVersion, &corev1.Binding{}); err != nil {
		return fmt.Errorf("builtin: %w", err)
	}
	if err := s.AddResource(bindingsResource); err != nil {
		return fmt.Errorf("builtin: %w", err)
	}
	return nil
}
