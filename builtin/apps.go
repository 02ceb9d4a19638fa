package builtin

import (
	"fmt"
	"slices"
	"strings"
	"time"

	appsv1 "github.com/apikit-dev/apikit/builtin/apps/v1"
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	metav1 "github.com/apikit-dev/apikit/builtin/meta/v1"
	"github.com/apikit-dev/apikit/codec/protobuf"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/scheme/openapi"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/validation"
)

// appsResources are the apps/v1 resources as kube-apiserver v1.37.2 serves them: short
// names, the "all" category, the status and scale subresources, and the columns of kube's
// table printers (pkg/printers/internalversion), wide ones at priority 1.
var appsResources = []scheme.Resource{
	{Group: appsv1.SchemeGroupVersion.Group, Kind: "Deployment", Plural: "deployments", ShortNames: []string{"deploy"}, Categories: []string{"all"},
		Namespaced: true, StatusSubresource: true, Scale: workloadScale,
		PrinterColumns: []scheme.PrinterColumn{
			{Name: "Ready", Type: "string", Description: "Number of the pod with ready state", Cell: cellOf(func(d *appsv1.Deployment) any {
				return fmt.Sprintf("%d/%d", d.Status.ReadyReplicas, replicas(d.Spec.Replicas))
			})},
			{Name: "Up-to-date", Type: "string", Description: "Total number of non-terminating pods targeted by this deployment that have the desired template spec.",
				Cell: cellOf(func(d *appsv1.Deployment) any { return int64(d.Status.UpdatedReplicas) })},
			{Name: "Available", Type: "string", Description: "Total number of available non-terminating pods (ready for at least minReadySeconds) targeted by this deployment.",
				Cell: cellOf(func(d *appsv1.Deployment) any { return int64(d.Status.AvailableReplicas) })},
			ageColumn,
			containersColumn(func(d *appsv1.Deployment) *corev1.PodSpec { return &d.Spec.Template.Spec }),
			imagesColumn(func(d *appsv1.Deployment) *corev1.PodSpec { return &d.Spec.Template.Spec }),
			{Name: "Selector", Type: "string", Priority: 1, Description: "Label selector for pods.", Cell: cellOf(func(d *appsv1.Deployment) any {
				sel, err := LabelSelectorAsSelector(d.Spec.Selector)
				if err != nil {
					return "<invalid>"
				}
				return sel.String()
			})},
		}},
	{Group: appsv1.SchemeGroupVersion.Group, Kind: "StatefulSet", Plural: "statefulsets", ShortNames: []string{"sts"}, Categories: []string{"all"},
		Namespaced: true, StatusSubresource: true, Scale: workloadScale,
		// A StatefulSet names its pods and their hostnames after itself: kube requires a DNS label.
		NameValidation: validation.NameIsDNSLabel,
		PrinterColumns: []scheme.PrinterColumn{
			{Name: "Ready", Type: "string", Description: "Number of the pod with ready state", Cell: cellOf(func(s *appsv1.StatefulSet) any {
				return fmt.Sprintf("%d/%d", s.Status.ReadyReplicas, replicas(s.Spec.Replicas))
			})},
			ageColumn,
			containersColumn(func(s *appsv1.StatefulSet) *corev1.PodSpec { return &s.Spec.Template.Spec }),
			imagesColumn(func(s *appsv1.StatefulSet) *corev1.PodSpec { return &s.Spec.Template.Spec }),
		}},
	{Group: appsv1.SchemeGroupVersion.Group, Kind: "DaemonSet", Plural: "daemonsets", ShortNames: []string{"ds"}, Categories: []string{"all"},
		Namespaced: true, StatusSubresource: true,
		PrinterColumns: []scheme.PrinterColumn{
			{Name: "Desired", Type: "integer", Description: "The total number of nodes that should be running the daemon pod.",
				Cell: cellOf(func(d *appsv1.DaemonSet) any { return int64(d.Status.DesiredNumberScheduled) })},
			{Name: "Current", Type: "integer", Description: "The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.",
				Cell: cellOf(func(d *appsv1.DaemonSet) any { return int64(d.Status.CurrentNumberScheduled) })},
			{Name: "Ready", Type: "integer", Description: "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running with a Ready Condition.",
				Cell: cellOf(func(d *appsv1.DaemonSet) any { return int64(d.Status.NumberReady) })},
			{Name: "Up-to-date", Type: "integer", Description: "The total number of nodes that are running updated daemon pod",
				Cell: cellOf(func(d *appsv1.DaemonSet) any { return int64(d.Status.UpdatedNumberScheduled) })},
			{Name: "Available", Type: "integer", Description: "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)",
				Cell: cellOf(func(d *appsv1.DaemonSet) any { return int64(d.Status.NumberAvailable) })},
			{Name: "Node Selector", Type: "string", Description: "NodeSelector is a selector which must be true for the pod to fit on a node.",
				Cell: cellOf(func(d *appsv1.DaemonSet) any { return formatLabels(d.Spec.Template.Spec.NodeSelector) })},
			ageColumn,
			containersColumn(func(d *appsv1.DaemonSet) *corev1.PodSpec { return &d.Spec.Template.Spec }),
			imagesColumn(func(d *appsv1.DaemonSet) *corev1.PodSpec { return &d.Spec.Template.Spec }),
			{Name: "Selector", Type: "string", Priority: 1, Description: "A label query over pods that are managed by the daemon set.",
				Cell: cellOf(func(d *appsv1.DaemonSet) any { return formatLabelSelector(d.Spec.Selector) })},
		}},
	{Group: appsv1.SchemeGroupVersion.Group, Kind: "ReplicaSet", Plural: "replicasets", ShortNames: []string{"rs"}, Categories: []string{"all"},
		Namespaced: true, StatusSubresource: true, Scale: workloadScale, SelectableFields: []string{"status.replicas"},
		PrinterColumns: []scheme.PrinterColumn{
			{Name: "Desired", Type: "integer", Description: "Replicas is the number of desired pods.",
				Cell: cellOf(func(r *appsv1.ReplicaSet) any { return int64(replicas(r.Spec.Replicas)) })},
			{Name: "Current", Type: "integer", Description: "Replicas is the most recently observed number of non-terminating pods.",
				Cell: cellOf(func(r *appsv1.ReplicaSet) any { return int64(r.Status.Replicas) })},
			{Name: "Ready", Type: "integer", Description: "The number of non-terminating pods targeted by this ReplicaSet with a Ready Condition.",
				Cell: cellOf(func(r *appsv1.ReplicaSet) any { return int64(r.Status.ReadyReplicas) })},
			ageColumn,
			containersColumn(func(r *appsv1.ReplicaSet) *corev1.PodSpec { return &r.Spec.Template.Spec }),
			imagesColumn(func(r *appsv1.ReplicaSet) *corev1.PodSpec { return &r.Spec.Template.Spec }),
			{Name: "Selector", Type: "string", Priority: 1, Description: "Selector is a label query over pods that should match the replica count.",
				Cell: cellOf(func(r *appsv1.ReplicaSet) any { return formatLabelSelector(r.Spec.Selector) })},
		}},
	{Group: appsv1.SchemeGroupVersion.Group, Kind: "ControllerRevision", Plural: "controllerrevisions", Namespaced: true,
		PrinterColumns: []scheme.PrinterColumn{
			{Name: "Controller", Type: "string", Description: "Controller of the object", Cell: cellOf(func(c *appsv1.ControllerRevision) any {
				for _, ref := range c.OwnerReferences {
					if ref.Controller != nil && *ref.Controller {
						group, _, _ := strings.Cut(ref.APIVersion, "/")
						if !strings.Contains(ref.APIVersion, "/") {
							group = ""
						}
						return strings.ToLower(scheme.GroupKind{Group: group, Kind: ref.Kind}.String()) + "/" + ref.Name
					}
				}
				return "<none>"
			})},
			{Name: "Revision", Type: "string", Description: "Revision indicates the revision of the state represented by Data.",
				Cell: cellOf(func(c *appsv1.ControllerRevision) any { return c.Revision })},
			ageColumn,
		}},
}

// workloadScale is the scale subresource of Deployments, StatefulSets and ReplicaSets:
// spec.replicas, status.replicas, and spec.selector in its string form.
var workloadScale = &scheme.ScaleSubresource{
	SpecReplicasPath:   ".spec.replicas",
	StatusReplicasPath: ".status.replicas",
	LabelSelectorPath:  ".spec.selector",
}

// ageColumn is kube's Age of a built-in kind, where its printer puts it: a string in
// apimachinery's HumanDuration form ("3m20s"), which is not the form of a custom
// resource's date column ("3m").
var ageColumn = scheme.PrinterColumn{Name: "Age", Type: "string",
	Description: "CreationTimestamp is a timestamp representing the server time when this object was created.",
	Cell: func(obj scheme.Object) any {
		ts := obj.GetCreationTimestamp()
		if ts.IsZero() {
			return "<unknown>"
		}
		return humanDuration(time.Since(ts.Time))
	}}

// cellOf adapts a cell function on a kind's Go type to scheme.PrinterColumn.Cell.
func cellOf[T scheme.Object](f func(T) any) func(scheme.Object) any {
	return func(obj scheme.Object) any {
		t, ok := obj.(T)
		if !ok {
			return nil
		}
		return f(t)
	}
}

// containersColumn and imagesColumn are kube's wide columns of a pod template: the
// containers' names and images, comma-separated (layoutContainerCells).
func containersColumn[T scheme.Object](spec func(T) *corev1.PodSpec) scheme.PrinterColumn {
	return scheme.PrinterColumn{Name: "Containers", Type: "string", Priority: 1, Description: "Names of each container in the template.",
		Cell: cellOf(func(obj T) any {
			return joinContainers(spec(obj).Containers, func(c *corev1.Container) string { return c.Name })
		})}
}

func imagesColumn[T scheme.Object](spec func(T) *corev1.PodSpec) scheme.PrinterColumn {
	return scheme.PrinterColumn{Name: "Images", Type: "string", Priority: 1, Description: "Images referenced by each container in the template.",
		Cell: cellOf(func(obj T) any {
			return joinContainers(spec(obj).Containers, func(c *corev1.Container) string { return c.Image })
		})}
}

func joinContainers(cs []corev1.Container, f func(*corev1.Container) string) string {
	parts := make([]string, len(cs))
	for i := range cs {
		parts[i] = f(&cs[i])
	}
	return strings.Join(parts, ",")
}

func replicas(n *int32) int32 {
	if n == nil {
		return 0
	}
	return *n
}

// formatLabels is kube's labels.FormatLabels: sorted key=value pairs, "<none>" when empty.
func formatLabels(m map[string]string) string {
	if len(m) == 0 {
		return "<none>"
	}
	return storage.LabelSelectorFromSet(m).String()
}

// formatLabelSelector is meta/v1 FormatLabelSelector: the selector's string form, "<none>"
// when it selects everything or nothing, "<error>" when it cannot be converted.
func formatLabelSelector(ls *metav1.LabelSelector) string {
	sel, err := LabelSelectorAsSelector(ls)
	if err != nil {
		return "<error>"
	}
	if s := sel.String(); s != "" {
		return s
	}
	return "<none>"
}

// LabelSelectorAsSelector is meta/v1 LabelSelectorAsSelector: the storage selector of a
// meta/v1 LabelSelector (matchLabels as key=value terms, matchExpressions In, NotIn,
// Exists and DoesNotExist), with kube's error for any other operator. A nil selector
// selects nothing and an empty one everything; both render as "".
func LabelSelectorAsSelector(ls *metav1.LabelSelector) (storage.LabelSelector, error) {
	if ls == nil {
		return storage.LabelSelector{}, nil
	}
	reqs := make([]storage.LabelRequirement, 0, len(ls.MatchLabels)+len(ls.MatchExpressions))
	for k, v := range ls.MatchLabels {
		reqs = append(reqs, storage.LabelRequirement{Key: k, Operator: storage.Equals, Values: []string{v}})
	}
	for _, e := range ls.MatchExpressions {
		op, err := storage.MetaOperator(e.Operator)
		if err != nil {
			return storage.LabelSelector{}, err
		}
		reqs = append(reqs, storage.LabelRequirement{Key: e.Key, Operator: op, Values: slices.Clone(e.Values)})
	}
	return storage.NewLabelSelector(reqs...), nil
}

// AddAppsToScheme registers the apps/v1 kinds (Deployment, StatefulSet, DaemonSet,
// ReplicaSet, ControllerRevision and their lists), their resources and their protobuf
// messages. AddToScheme calls it.
func AddAppsToScheme(s *scheme.Scheme) error {
	s.AddKnownTypes(appsv1.SchemeGroupVersion,
		&appsv1.Deployment{}, &appsv1.DeploymentList{}, &appsv1.StatefulSet{}, &appsv1.StatefulSetList{},
		&appsv1.DaemonSet{}, &appsv1.DaemonSetList{}, &appsv1.ReplicaSet{}, &appsv1.ReplicaSetList{},
		&appsv1.ControllerRevision{}, &appsv1.ControllerRevisionList{})
	for _, r := range appsResources {
		if err := s.AddResource(r); err != nil {
			return fmt.Errorf("builtin: %w", err)
		}
	}
	if err := protobuf.RegisterTypes(s, appsv1.SchemeGroupVersion, &appsv1.Deployment{}, &appsv1.StatefulSet{}, &appsv1.DaemonSet{},
		&appsv1.ReplicaSet{}, &appsv1.ControllerRevision{}); err != nil {
		return fmt.Errorf("builtin: %w", err)
	}
	registerAppsDefaults(s)
	return nil
}

// atomicStruct makes a definition atomic for server-side apply, as kube's
// +structType=atomic marker does.
func atomicStruct(s *openapi.Schema) { s.MapType = "atomic" }
