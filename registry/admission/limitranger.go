package admission

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/apikit-dev/apikit/apierrors"
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/quantity"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
)

// LimitRanger is kube-apiserver's LimitRanger admission plugin
// (plugin/pkg/admission/limitranger), mutating and validating: it reads the
// LimitRanges of the object's namespace (registry.List, a most recent read where kube
// reads an informer backed by a live lookup) and, on a pod's create, gives each
// container and init container the default requests and limits of the Container items
// it lacks (noting what it set in the kubernetes.io/limit-ranger annotation); it then
// refuses with kube's 403 Forbidden a pod (create, and resize) or a
// PersistentVolumeClaim (create and update) outside the min, max and
// maxLimitRequestRatio of the Container, Pod and PersistentVolumeClaim items.
type LimitRanger struct{}

var (
	_ registry.MutatingAdmission   = LimitRanger{}
	_ registry.ValidatingAdmission = LimitRanger{}
)

// limitRangerAnnotation is where kube's plugin says which defaults it set.
const limitRangerAnnotation = "kubernetes.io/limit-ranger"

// supports is DefaultLimitRangerActions.SupportsAttributes: pods on create and on a
// resize, claims on create and update, no other subresource.
func (LimitRanger) supports(a registry.AdmissionAttributes) bool {
	if a.Operation != registry.OperationCreate && a.Operation != registry.OperationUpdate {
		return false
	}
	pod := a.Kind.Group == "" && a.Kind.Kind == "Pod"
	if a.Subresource == "resize" && pod && a.Operation == registry.OperationUpdate {
		return true
	}
	if a.Subresource != "" || pod && a.Operation == registry.OperationUpdate {
		return false
	}
	return pod || a.Kind.Group == "" && a.Kind.Kind == "PersistentVolumeClaim"
}

// limitRanges are the LimitRanges of the write's namespace, nil when the plugin does not
// apply (an unsupported write, or an update of an object being deleted).
func (l LimitRanger) limitRanges(ctx context.Context, a registry.AdmissionAttributes) ([]*corev1.LimitRange, error) {
	if !l.supports(a) {
		return nil, nil
	}
	if a.OldObject != nil && a.OldObject.GetDeletionTimestamp() != nil {
		return nil, nil
	}
	objs, err := registry.List(ctx, corev1.LimitRanges, a.Namespace)
	if err != nil {
		return nil, err
	}
	out := make([]*corev1.LimitRange, 0, len(objs))
	for _, o := range objs {
		if lr, ok := o.(*corev1.LimitRange); ok {
			out = append(out, lr)
		}
	}
	return out, nil
}

// Admit merges the default requests and limits of the namespace's Container items into a
// pod's containers that lack them.
func (l LimitRanger) Admit(ctx context.Context, a registry.AdmissionAttributes, obj scheme.Object) error {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return nil
	}
	items, err := l.limitRanges(ctx, a)
	if err != nil {
		return err
	}
	for _, lr := range items {
		mergePodDefaults(pod, lr)
	}
	return nil
}

// Validate refuses a pod or a claim outside a LimitRange's bounds.
func (l LimitRanger) Validate(ctx context.Context, a registry.AdmissionAttributes, obj scheme.Object) error {
	items, err := l.limitRanges(ctx, a)
	if err != nil || len(items) == 0 {
		return err
	}
	for _, lr := range items {
		var errs []error
		switch o := obj.(type) {
		case *corev1.Pod:
			errs = validatePodLimits(lr, o)
		case *corev1.PersistentVolumeClaim:
			errs = validateClaimLimits(lr, o)
		}
		if len(errs) > 0 {
			return forbidden(a, obj, aggregate(errs))
		}
	}
	return nil
}

// forbidden is admission.NewForbidden: 403 on the request's resource, named by the
// request's name, else the object's name or generateName, else "Unknown".
func forbidden(a registry.AdmissionAttributes, obj scheme.Object, err error) error {
	name := a.Name
	if name == "" {
		name = "Unknown"
		if obj.GetName() != "" {
			name = obj.GetName()
		} else if obj.GetGenerateName() != "" {
			name = obj.GetGenerateName()
		}
	}
	return apierrors.NewForbidden(scheme.GroupResource{Group: a.APIGroup, Resource: a.Resource}, name, err)
}

// aggregate is utilerrors.NewAggregate's message: one error as it is, several in
// brackets, comma-separated.
func aggregate(errs []error) error {
	if len(errs) == 1 {
		return errs[0]
	}
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	return errors.New("[" + strings.Join(msgs, ", ") + "]")
}

// mergePodDefaults is PodMutateLimitFunc: the DefaultRequest and Default of every
// Container item, merged into each container that lacks the resource.
func mergePodDefaults(pod *corev1.Pod, lr *corev1.LimitRange) {
	requests, limits := corev1.ResourceList{}, corev1.ResourceList{}
	for _, item := range lr.Spec.Limits {
		if item.Type == corev1.LimitTypeContainer {
			maps.Copy(requests, item.DefaultRequest)
			maps.Copy(limits, item.Default)
		}
	}
	var notes []string
	for i := range pod.Spec.Containers {
		notes = mergeContainerDefaults(&pod.Spec.Containers[i], requests, limits, "container", notes)
	}
	for i := range pod.Spec.InitContainers {
		notes = mergeContainerDefaults(&pod.Spec.InitContainers[i], requests, limits, "init container", notes)
	}
	if len(notes) > 0 {
		if pod.Annotations == nil {
			pod.Annotations = map[string]string{}
		}
		pod.Annotations[limitRangerAnnotation] = "LimitRanger plugin set: " + strings.Join(notes, "; ")
	}
}

// mergeContainerDefaults is mergeContainerResources, with its notes ("cpu, memory
// request for container web").
func mergeContainerDefaults(c *corev1.Container, requests, limits corev1.ResourceList, what string, notes []string) []string {
	if c.Resources.Limits == nil {
		c.Resources.Limits = corev1.ResourceList{}
	}
	if c.Resources.Requests == nil {
		c.Resources.Requests = corev1.ResourceList{}
	}
	var setRequests, setLimits []string
	for k, v := range limits {
		if _, ok := c.Resources.Limits[k]; !ok {
			c.Resources.Limits[k] = v
			setLimits = append(setLimits, string(k))
		}
	}
	for k, v := range requests {
		if _, ok := c.Resources.Requests[k]; !ok {
			c.Resources.Requests[k] = v
			setRequests = append(setRequests, string(k))
		}
	}
	if len(setRequests) > 0 {
		slices.Sort(setRequests)
		notes = append(notes, strings.Join(setRequests, ", ")+fmt.Sprintf(" request for %s %s", what, c.Name))
	}
	if len(setLimits) > 0 {
		slices.Sort(setLimits)
		notes = append(notes, strings.Join(setLimits, ", ")+fmt.Sprintf(" limit for %s %s", what, c.Name))
	}
	return notes
}

// validatePodLimits is PodValidateLimitFunc: each container and init container against
// the Container items, the pod's summed requests and limits against the Pod items.
// kube walks an item's resources in map order; here they go by name.
func validatePodLimits(lr *corev1.LimitRange, pod *corev1.Pod) []error {
	var errs []error
	check := func(t string, item *corev1.LimitRangeItem, requests, limits corev1.ResourceList) {
		for _, k := range sortedNames(item.Min) {
			errs = appendErr(errs, minConstraint(t, string(k), item.Min[k], requests, limits))
		}
		for _, k := range sortedNames(item.Max) {
			errs = appendErr(errs, maxConstraint(t, string(k), item.Max[k], requests, limits))
		}
		for _, k := range sortedNames(item.MaxLimitRequestRatio) {
			errs = appendErr(errs, ratioConstraint(t, string(k), item.MaxLimitRequestRatio[k], requests, limits))
		}
	}
	for i := range lr.Spec.Limits {
		item := &lr.Spec.Limits[i]
		switch item.Type {
		case corev1.LimitTypeContainer:
			for _, cs := range [][]corev1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
				for j := range cs {
					check(string(item.Type), item, cs[j].Resources.Requests, cs[j].Resources.Limits)
				}
			}
		case corev1.LimitTypePod:
			check(string(item.Type), item, podResources(pod, func(c *corev1.Container) corev1.ResourceList { return c.Resources.Requests },
				func(r *corev1.ResourceRequirements) corev1.ResourceList { return r.Requests }),
				podResources(pod, func(c *corev1.Container) corev1.ResourceList { return c.Resources.Limits },
					func(r *corev1.ResourceRequirements) corev1.ResourceList { return r.Limits }))
		}
	}
	return errs
}

// validateClaimLimits is PersistentVolumeClaimValidateLimitFunc: the claim's requests
// against the min and max of the PersistentVolumeClaim items.
func validateClaimLimits(lr *corev1.LimitRange, pvc *corev1.PersistentVolumeClaim) []error {
	var errs []error
	for i := range lr.Spec.Limits {
		item := &lr.Spec.Limits[i]
		if item.Type != corev1.LimitTypePersistentVolumeClaim {
			continue
		}
		t := string(item.Type)
		for _, k := range sortedNames(item.Min) {
			errs = appendErr(errs, minConstraint(t, string(k), item.Min[k], pvc.Spec.Resources.Requests, corev1.ResourceList{}))
		}
		for _, k := range sortedNames(item.Max) {
			errs = appendErr(errs, maxRequestConstraint(t, string(k), item.Max[k], pvc.Spec.Resources.Requests))
		}
	}
	return errs
}

func appendErr(errs []error, err error) []error {
	if err != nil {
		return append(errs, err)
	}
	return errs
}

func sortedNames(l corev1.ResourceList) []corev1.ResourceName {
	return slices.Sorted(maps.Keys(l))
}

// podResources is the LimitRanger's podRequests and podLimits (PodLevelResources on, as
// in v1.37): containers summed; init containers by the max of each (a restartable one
// runs beside the later ones, so it adds to both); the pod-level cpu and memory, when
// set, instead.
func podResources(pod *corev1.Pod, of func(*corev1.Container) corev1.ResourceList, podLevel func(*corev1.ResourceRequirements) corev1.ResourceList) corev1.ResourceList {
	total := corev1.ResourceList{}
	for i := range pod.Spec.Containers {
		addResources(total, of(&pod.Spec.Containers[i]))
	}
	restartable, init := corev1.ResourceList{}, corev1.ResourceList{}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		l := of(c)
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			addResources(total, l)
			addResources(restartable, l)
			l = restartable
		} else {
			tmp := corev1.ResourceList{}
			addResources(tmp, l)
			addResources(tmp, restartable)
			l = tmp
		}
		maxResources(init, l)
	}
	maxResources(total, init)
	if pod.Spec.Resources != nil {
		for k, v := range podLevel(pod.Spec.Resources) {
			if k == corev1.ResourceCPU || k == corev1.ResourceMemory {
				total[k] = v
			}
		}
	}
	return total
}

func addResources(into, l corev1.ResourceList) {
	for k, v := range l {
		if cur, ok := into[k]; ok {
			cur.Add(v)
			into[k] = cur
		} else {
			into[k] = v
		}
	}
}

func maxResources(into, l corev1.ResourceList) {
	for k, v := range l {
		if cur, ok := into[k]; !ok || v.Cmp(cur) > 0 {
			into[k] = v
		}
	}
}

// maxMilliValue is resource.MaxMilliValue: above it a milli value overflows.
const maxMilliValue = math.MaxInt64 / 1000

// observed is requestLimitEnforcedValues: the three values in milli units unless one
// is too large for them.
func observed(req, lim, enforced quantity.Quantity) (r, l, e int64) {
	r, l, e = req.Value(), lim.Value(), enforced.Value()
	if r <= maxMilliValue && l <= maxMilliValue && e <= maxMilliValue {
		r, l, e = req.MilliValue(), lim.MilliValue(), enforced.MilliValue()
	}
	return r, l, e
}

func minConstraint(t, name string, enforced quantity.Quantity, requests, limits corev1.ResourceList) error {
	req, hasReq := requests[corev1.ResourceName(name)]
	lim, hasLim := limits[corev1.ResourceName(name)]
	r, l, e := observed(req, lim, enforced)
	if !hasReq {
		return fmt.Errorf("minimum %s usage per %s is %s.  No request is specified", name, t, enforced.String())
	}
	if r < e {
		return fmt.Errorf("minimum %s usage per %s is %s, but request is %s", name, t, enforced.String(), req.String())
	}
	if hasLim && l < e {
		return fmt.Errorf("minimum %s usage per %s is %s, but limit is %s", name, t, enforced.String(), lim.String())
	}
	return nil
}

func maxRequestConstraint(t, name string, enforced quantity.Quantity, requests corev1.ResourceList) error {
	req, hasReq := requests[corev1.ResourceName(name)]
	r, _, e := observed(req, quantity.Quantity{}, enforced)
	if !hasReq {
		return fmt.Errorf("maximum %s usage per %s is %s.  No request is specified", name, t, enforced.String())
	}
	if r > e {
		return fmt.Errorf("maximum %s usage per %s is %s, but request is %s", name, t, enforced.String(), req.String())
	}
	return nil
}

func maxConstraint(t, name string, enforced quantity.Quantity, requests, limits corev1.ResourceList) error {
	req, hasReq := requests[corev1.ResourceName(name)]
	lim, hasLim := limits[corev1.ResourceName(name)]
	r, l, e := observed(req, lim, enforced)
	if !hasLim {
		return fmt.Errorf("maximum %s usage per %s is %s.  No limit is specified", name, t, enforced.String())
	}
	if l > e {
		return fmt.Errorf("maximum %s usage per %s is %s, but limit is %s", name, t, enforced.String(), lim.String())
	}
	if hasReq && r > e {
		return fmt.Errorf("maximum %s usage per %s is %s, but request is %s", name, t, enforced.String(), req.String())
	}
	return nil
}

func ratioConstraint(t, name string, enforced quantity.Quantity, requests, limits corev1.ResourceList) error {
	req, hasReq := requests[corev1.ResourceName(name)]
	lim, hasLim := limits[corev1.ResourceName(name)]
	r, l, _ := observed(req, lim, enforced)
	if !hasReq || r == 0 {
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but no request is specified or request is 0", name, t, enforced.String())
	}
	if !hasLim || l == 0 {
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but no limit is specified or limit is 0", name, t, enforced.String())
	}
	ratio := float64(l) / float64(r)
	shown := ratio
	most := float64(enforced.Value())
	if enforced.Value() <= maxMilliValue {
		ratio *= 1000
		most = float64(enforced.MilliValue())
	}
	if ratio > most {
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but provided ratio is %f", name, t, enforced.String(), shown)
	}
	return nil
}
