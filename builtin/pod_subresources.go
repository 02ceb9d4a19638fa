package builtin

import (
	"fmt"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	policyv1 "github.com/apikit-dev/apikit/builtin/policy/v1"
	"github.com/apikit-dev/apikit/codec/protobuf"
	"github.com/apikit-dev/apikit/scheme"
)

// podSubresources are the subresources of pods that kube-apiserver v1.37.2 serves
// beside pods/status, as its discovery lists them (pods/binding: kind Binding, create; pods/ephemeralcontainers: kind Pod, get, patch and update; pods/eviction: kind policy/v1 Eviction, create).
// registry/strategies says what each does.
var podSubresources = []scheme.Subresource{
	{Name: "binding", Verbs: []string{"create"}, Kind: corev1.SchemeGroupVersion.WithKind("Binding")},
	{Name: "ephemeralcontainers", Verbs: []string{"get", "patch", "update"}},
	{Name: "eviction", Verbs: []string{"create"}, Kind: policyv1.SchemeGroupVersion.WithKind("Eviction")},
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
