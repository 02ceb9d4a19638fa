package admission

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/apikit-dev/apikit/apierrors"
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
)

// PriorityClasses is the resource of scheduling.k8s.io's PriorityClasses, which the
// Priority plugin reads.
var PriorityClasses = scheme.GroupResource{Group: "scheduling.k8s.io", Resource: "priorityclasses"}

// The system priority classes kube-apiserver creates at start (scheduling's
// SystemPriorityClasses), with the preemptionPolicy their defaulting gives them.
const (
	SystemNodeCritical    = "system-node-critical"
	SystemClusterCritical = "system-cluster-critical"
	// systemCriticalPriority is kube's SystemCriticalPriority (2 * 10^9).
	systemCriticalPriority int32 = 2000000000
)

// priorityClass is what the Priority plugin reads of a PriorityClass.
type priorityClass struct {
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Value            int32                    `json:"value"`
	GlobalDefault    bool                     `json:"globalDefault"`
	PreemptionPolicy *corev1.PreemptionPolicy `json:"preemptionPolicy"`
}

// systemPriorityClasses are kube's two system classes as its storage keeps them.
func systemPriorityClasses() []priorityClass {
	preempt := corev1.PreemptLowerPriority
	classes := []priorityClass{
		{Value: systemCriticalPriority + 1000, PreemptionPolicy: &preempt},
		{Value: systemCriticalPriority, PreemptionPolicy: &preempt},
	}
	classes[0].Metadata.Name, classes[1].Metadata.Name = SystemNodeCritical, SystemClusterCritical
	return classes
}

// Priority is kube-apiserver's Priority admission plugin (plugin/pkg/admission/priority,
// on by default): a new pod's spec.priority and spec.preemptionPolicy come from the
// PriorityClass its spec.priorityClassName names (403 `no PriorityClass with name x was
// found` for an unknown one), or from the global default class, or are 0 and
// PreemptLowerPriority without one; a priority or preemptionPolicy the pod sets that
// differs is refused; an update keeps the stored pod's two fields when it drops them.
// The system classes (system-node-critical, system-cluster-critical) are built in, as
// kube-apiserver creates them at start, and allowed in every namespace, as kube 1.37
// allows them; other classes are read with registry.List of scheduling.k8s.io
// priorityclasses (a server that does not serve them has none). On a PriorityClass
// create or update, a second global default is refused.
type Priority struct{}

var (
	_ registry.MutatingAdmission   = Priority{}
	_ registry.ValidatingAdmission = Priority{}
)

// Admit sets a pod's priority from its class.
func (Priority) Admit(ctx context.Context, a registry.AdmissionAttributes, obj scheme.Object) error {
	if a.Subresource != "" || (scheme.GroupResource{Group: a.APIGroup, Resource: a.Resource}) != corev1.Pods {
		return nil
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return nil
	}
	switch a.Operation {
	case registry.OperationUpdate:
		old, ok := a.OldObject.(*corev1.Pod)
		if !ok {
			return apierrors.NewBadRequest("resource was marked with kind Pod but was unable to be converted")
		}
		if pod.Spec.Priority == nil && old.Spec.Priority != nil {
			pod.Spec.Priority = old.Spec.Priority
		}
		if pod.Spec.PreemptionPolicy == nil && old.Spec.PreemptionPolicy != nil {
			pod.Spec.PreemptionPolicy = old.Spec.PreemptionPolicy
		}
		return nil
	case registry.OperationCreate:
		return admitPodPriority(ctx, a.ObjectName(pod), pod)
	}
	return nil
}

// admitPodPriority is Admit of a new pod.
func admitPodPriority(ctx context.Context, name string, pod *corev1.Pod) error {
	pc, err := establishPriority(ctx, name, pod.Spec.PriorityClassName)
	if err != nil {
		return err
	}
	pod.Spec.PriorityClassName = pc.Metadata.Name
	if p := pod.Spec.Priority; p != nil && *p != pc.Value {
		return apierrors.NewForbidden(corev1.Pods, name, fmt.Errorf("the integer value of priority (%d) must not be provided in pod spec; priority admission controller computed %d from the given PriorityClass name", *p, pc.Value))
	}
	value := pc.Value
	pod.Spec.Priority = &value
	if pc.PreemptionPolicy != nil {
		policy := *pc.PreemptionPolicy
		if p := pod.Spec.PreemptionPolicy; p != nil && *p != policy {
			return apierrors.NewForbidden(corev1.Pods, name, fmt.Errorf("the string value of PreemptionPolicy (%s) must not be provided in pod spec; priority admission controller computed %s from the given PriorityClass name", *p, policy))
		}
		pod.Spec.PreemptionPolicy = &policy
	}
	return nil
}

// establishPriority is the class of a pod that names className: that class, or the
// global default, or kube's priority 0 with PreemptLowerPriority when there is none
// (the class's name then "").
func establishPriority(ctx context.Context, podName, className string) (priorityClass, error) {
	classes, err := listPriorityClasses(ctx)
	if err != nil {
		return priorityClass{}, err
	}
	if className == "" {
		if d := defaultPriorityClass(classes); d != nil {
			return *d, nil
		}
		preempt := corev1.PreemptLowerPriority
		return priorityClass{PreemptionPolicy: &preempt}, nil
	}
	for _, pc := range classes {
		if pc.Metadata.Name == className {
			return pc, nil
		}
	}
	return priorityClass{}, apierrors.NewForbidden(corev1.Pods, podName, fmt.Errorf("no PriorityClass with name %v was found", className))
}

// defaultPriorityClass is the global default class with the lowest value, nil when no
// class is the default.
func defaultPriorityClass(classes []priorityClass) *priorityClass {
	var d *priorityClass
	for i := range classes {
		if pc := &classes[i]; pc.GlobalDefault && (d == nil || d.Value > pc.Value) {
			d = pc
		}
	}
	return d
}

// listPriorityClasses are the stored PriorityClasses and the system classes, unless
// stored ones of the same names replace them.
func listPriorityClasses(ctx context.Context) ([]priorityClass, error) {
	objs, err := registry.List(ctx, PriorityClasses, "")
	if err != nil {
		return nil, err
	}
	classes := make([]priorityClass, 0, len(objs)+2)
	stored := make(map[string]bool, len(objs))
	for _, o := range objs {
		pc, err := priorityClassOf(o)
		if err != nil {
			return nil, err
		}
		stored[pc.Metadata.Name] = true
		classes = append(classes, pc)
	}
	for _, pc := range systemPriorityClasses() {
		if !stored[pc.Metadata.Name] {
			classes = append(classes, pc)
		}
	}
	return classes, nil
}

// priorityClassOf reads a PriorityClass, typed or unstructured, through its JSON.
func priorityClassOf(obj scheme.Object) (priorityClass, error) {
	var pc priorityClass
	b, err := json.Marshal(obj)
	if err == nil {
		err = json.Unmarshal(b, &pc)
	}
	if err != nil {
		return pc, apierrors.NewInternalError(fmt.Errorf("failed to resolve PriorityClass with name %s", obj.GetName()))
	}
	return pc, nil
}

// Validate refuses a second global default PriorityClass, as kube's plugin does.
func (Priority) Validate(ctx context.Context, a registry.AdmissionAttributes, obj scheme.Object) error {
	if a.Subresource != "" || (scheme.GroupResource{Group: a.APIGroup, Resource: a.Resource}) != PriorityClasses ||
		(a.Operation != registry.OperationCreate && a.Operation != registry.OperationUpdate) {
		return nil
	}
	pc, err := priorityClassOf(obj)
	if err != nil || !pc.GlobalDefault {
		return err
	}
	classes, err := listPriorityClasses(ctx)
	if err != nil {
		return apierrors.NewInternalError(fmt.Errorf("failed to get default priority class: %v", err))
	}
	if d := defaultPriorityClass(classes); d != nil && (a.Operation == registry.OperationCreate || d.Metadata.Name != pc.Metadata.Name) {
		return apierrors.NewForbidden(PriorityClasses, a.ObjectName(obj), fmt.Errorf("PriorityClass %v is already marked as default. Only one default can exist", d.Metadata.Name))
	}
	return nil
}
