package builtin

import (
	"fmt"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/codec/protobuf"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// replicationControllerResources is core/v1 replicationcontrollers as kube-apiserver
// v1.37.2 serves it: short name rc, the "all" category, status and scale subresources,
// the status.replicas field selector, and the columns of kube's printReplicationController.
var replicationControllerResources = []scheme.Resource{
	{Kind: "ReplicationController", Plural: "replicationcontrollers", ShortNames: []string{"rc"}, Categories: []string{"all"},
		Namespaced: true, StatusSubresource: true, SelectableFields: []string{"status.replicas"},
		// kube's RC scale serves the selector map as labels.SelectorFromSet's string.
		Scale: &scheme.ScaleSubresource{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas",
			LabelSelectorPath: ".spec.selector", SelectorIsLabelSet: true},
		// kube's declarative validation words the name's length limit in bytes.
		NameValidation: validation.NameIsLongName,
		PrinterColumns: []scheme.PrinterColumn{
			{Name: "Desired", Type: "integer", Description: "Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller",
				Cell: cellOf(func(rc *corev1.ReplicationController) any { return int64(replicas(rc.Spec.Replicas)) })},
			{Name: "Current", Type: "integer", Description: "Replicas is the most recently observed number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller",
				Cell: cellOf(func(rc *corev1.ReplicationController) any { return int64(rc.Status.Replicas) })},
			{Name: "Ready", Type: "integer", Description: "The number of ready replicas for this replication controller.",
				Cell: cellOf(func(rc *corev1.ReplicationController) any { return int64(rc.Status.ReadyReplicas) })},
			ageColumn,
			containersColumn(rcPodSpec),
			imagesColumn(rcPodSpec),
			{Name: "Selector", Type: "string", Priority: 1, Description: "Selector is a label query over pods that should match the Replicas count. If Selector is empty, it is defaulted to the labels present on the Pod template. Label keys and values that must match in order to be controlled by this replication controller, if empty defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
				Cell: cellOf(func(rc *corev1.ReplicationController) any { return formatLabels(rc.Spec.Selector) })},
		}},
}

// rcPodSpec is the pod spec of an RC's template; an RC without a template has no
// containers (kube's printer lists none).
func rcPodSpec(rc *corev1.ReplicationController) *corev1.PodSpec {
	if rc.Spec.Template == nil {
		return &corev1.PodSpec{}
	}
	return &rc.Spec.Template.Spec
}

// AddReplicationControllersToScheme registers core/v1 ReplicationController and its list,
// its resource, its protobuf message and kube's defaults of it. AddToScheme calls it.
func AddReplicationControllersToScheme(s *scheme.Scheme) error {
	s.AddKnownTypes(corev1.SchemeGroupVersion, &corev1.ReplicationController{}, &corev1.ReplicationControllerList{})
	for _, r := range replicationControllerResources {
		if err := s.AddResource(r); err != nil {
			return fmt.Errorf("builtin: %w", err)
		}
	}
	if err := protobuf.RegisterTypes(s, corev1.SchemeGroupVersion, &corev1.ReplicationController{}); err != nil {
		return fmt.Errorf("builtin: %w", err)
	}
	registerReplicationControllerDefaults(s)
	return nil
}
