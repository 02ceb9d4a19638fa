package builtin

import (
	"fmt"
	"slices"

	authenticationv1 "github.com/apikit-dev/apikit/builtin/authentication/v1"
	coordinationv1 "github.com/apikit-dev/apikit/builtin/coordination/v1"
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	eventsv1 "github.com/apikit-dev/apikit/builtin/events/v1"
	metav1 "github.com/apikit-dev/apikit/builtin/meta/v1"
	"github.com/apikit-dev/apikit/codec/protobuf"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/scheme/openapi"
)

// AddToScheme registers the built-in kinds, their protobuf field numbers, their defaults
// and their resources as kube-apiserver serves them: names, scope, short names,
// subresources and the columns of kubectl get. It covers core/v1 (its pods, services,
// volumes, nodes, replication controllers, quotas and limit ranges), events, leases,
// apps/v1, batch/v1, networking.k8s.io/v1, policy/v1, autoscaling/v1 and v2,
// discovery.k8s.io/v1, RBAC and the access reviews, each group also by its own
// Add<Group>ToScheme. Call it once per scheme; hosts that do not call it serve none of
// them.
func AddToScheme(s *scheme.Scheme) error {
	s.AddKnownTypes(corev1.SchemeGroupVersion, &corev1.Namespace{}, &corev1.NamespaceList{}, &corev1.ConfigMap{}, &corev1.ConfigMapList{},
		&corev1.Secret{}, &corev1.SecretList{}, &corev1.ServiceAccount{}, &corev1.ServiceAccountList{}, &corev1.Event{}, &corev1.EventList{},
		&corev1.Pod{}, &corev1.PodList{}, &corev1.PodTemplate{}, &corev1.PodTemplateList{})
	s.AddKnownTypes(eventsv1.SchemeGroupVersion, &eventsv1.Event{}, &eventsv1.EventList{})
	s.AddKnownTypes(coordinationv1.SchemeGroupVersion, &coordinationv1.Lease{}, &coordinationv1.LeaseList{})
	s.AddKnownTypes(authenticationv1.SchemeGroupVersion, &authenticationv1.SelfSubjectReview{}, &authenticationv1.SelfSubjectReviewList{})
	for _, r := range slices.Concat(resources, podResources) {
		if err := s.AddResource(r); err != nil {
			return fmt.Errorf("builtin: %w", err)
		}
	}
	registerEventConversions(s)
	if err := protobuf.RegisterTypes(s, corev1.SchemeGroupVersion, &corev1.Pod{}, &corev1.PodTemplate{}); err != nil {
		return fmt.Errorf("builtin: %w", err)
	}
	registerCoreDefaults(s)
	registerGeneratedAtomicTypes(s)
	// meta/v1 LabelSelector is +structType=atomic too.
	openapi.Customize[metav1.LabelSelector](s, atomicStruct)
	if err := registerProtobuf(s); err != nil {
		return fmt.Errorf("builtin: %w", err)
	}
	// Each group registers its kinds, resources, protobuf messages and defaults.
	for _, add := range []func(*scheme.Scheme) error{
		AddAppsToScheme,
		AddServicesToScheme, AddStorageAndNodesToScheme, AddReplicationControllersToScheme, AddQuotaToScheme,
		addPodSubresourcesToScheme,
		AddBatchToScheme, AddNetworkingToScheme, AddPolicyToScheme, AddAutoscalingToScheme, AddDiscoveryToScheme,
		AddRBACToScheme, AddAuthorizationToScheme, AddAdmissionRegistrationToScheme,
	} {
		if err := add(s); err != nil {
			return err
		}
	}
	return nil
}

// resources are the built-in resources as kube-apiserver's discovery lists them; the
// columns are those of kube's table printers that a JSONPath can compute.
var resources = []scheme.Resource{
	{Kind: "Namespace", Plural: "namespaces", ShortNames: []string{"ns"}, StatusSubresource: true,
		Verbs:          []string{"create", "delete", "get", "list", "patch", "update", "watch"}, // no deletecollection
		PrinterColumns: []scheme.PrinterColumn{{Name: "Status", Type: "string", JSONPath: ".status.phase", Description: "The status of the namespace"}}},
	{Kind: "ConfigMap", Plural: "configmaps", ShortNames: []string{"cm"}, Namespaced: true},
	{Kind: "Secret", Plural: "secrets", Namespaced: true,
		PrinterColumns: []scheme.PrinterColumn{{Name: "Type", Type: "string", JSONPath: ".type", Description: "The type of the secret"}}},
	{Kind: "ServiceAccount", Plural: "serviceaccounts", ShortNames: []string{"sa"}, Namespaced: true},
	{Kind: "Event", Plural: "events", ShortNames: []string{"ev"}, Namespaced: true,
		PrinterColumns: []scheme.PrinterColumn{
			{Name: "Type", Type: "string", JSONPath: ".type"},
			{Name: "Reason", Type: "string", JSONPath: ".reason"},
			{Name: "Object", Type: "string", JSONPath: ".involvedObject.name"},
			{Name: "Message", Type: "string", JSONPath: ".message"},
		}},
	{Group: eventsv1.SchemeGroupVersion.Group, Kind: "Event", Plural: "events", ShortNames: []string{"ev"}, Namespaced: true,
		SharesStorageWith: corev1.Events,
		PrinterColumns: []scheme.PrinterColumn{
			{Name: "Type", Type: "string", JSONPath: ".type"},
			{Name: "Reason", Type: "string", JSONPath: ".reason"},
			{Name: "Object", Type: "string", JSONPath: ".regarding.name"},
			{Name: "Note", Type: "string", JSONPath: ".note"},
		}},
	{Group: coordinationv1.SchemeGroupVersion.Group, Kind: "Lease", Plural: "leases", Namespaced: true,
		PrinterColumns: []scheme.PrinterColumn{{Name: "Holder", Type: "string", JSONPath: ".spec.holderIdentity"}}},
	{Group: authenticationv1.SchemeGroupVersion.Group, Kind: "SelfSubjectReview", Plural: "selfsubjectreviews", Verbs: []string{"create"}},
}
