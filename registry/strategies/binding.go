package strategies

import (
	"context"
	"fmt"
	"net/http"

	"github.com/apikit-dev/apikit/apierrors"
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/validation"
)

// podsBinding is the resource kube names a failed binding by.
var podsBinding = scheme.GroupResource{Resource: "pods/binding"}

// bindingStrategy serves kube-apiserver's top-level bindings: create-only, each create
// binding the pod its body names, as pods/binding does.
func bindingStrategy() registry.StrategyFor[*corev1.Binding] {
	return registry.StrategyFor[*corev1.Binding]{Actions: map[string]registry.Action{"": bindPod}}
}

// bindPod is kube's BindingREST.Create (pkg/registry/core/pod/storage): a Binding
// whose name is the pod's and whose target is a Node sets the pod's spec.nodeName,
// once, with the Binding's uid and resourceVersion as preconditions; the Binding's
// annotations and labels are merged into the pod's and its PodScheduled condition set
// True. Like kube, the write bypasses the pod strategy; an invalid Binding is the plain
// 500 kube answers for it, and a pod that cannot be bound a 409 on pods/binding.
func bindPod(ctx context.Context, s *registry.Store, rq registry.Request, name string, body scheme.Object) (scheme.Kinded, error) {
	b, ok := body.(*corev1.Binding)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a Binding object: %T", body))
	}
	if name != b.Name {
		return nil, apierrors.NewBadRequest("name in URL does not match name in Binding object")
	}
	if errs := validatePodBinding(b); len(errs) > 0 {
		return nil, apierrors.New(http.StatusInternalServerError, scheme.StatusReasonUnknown, errs.Error(), nil)
	}
	if name == "" {
		return nil, apierrors.NewBadRequest("Name parameter required.")
	}
	pods, ok := s.Resource(corev1.Pods)
	if !ok {
		return nil, apierrors.NewNotFound(corev1.Pods, name)
	}
	var pre *storage.Preconditions
	if uid, rv := b.UID, b.ResourceVersion; uid != "" || rv != "" {
		pre = &storage.Preconditions{}
		if uid != "" {
			pre.UID = &uid
		}
		if rv != "" {
			pre.ResourceVersion = &rv
		}
	}
	podRq := registry.Request{Resource: pods, Namespace: rq.Namespace, Version: "v1", DryRun: rq.DryRun, Attributes: rq.Attributes, FieldManager: rq.FieldManager}
	var refused error
	_, err := s.UpdateStored(ctx, podRq, name, pre, func(_ context.Context, old scheme.Object) (scheme.Object, error) {
		pod := old.(*corev1.Pod)
		if refused = bindable(pod); refused != nil {
			return nil, refused
		}
		pod.Spec.NodeName = b.Target.Name
		pod.Status.NominatedNodeName = "" // ClearingNominatedNodeNameAfterBinding, on by default since 1.35
		if pod.Annotations == nil {
			pod.Annotations = map[string]string{}
		}
		for k, v := range b.Annotations {
			pod.Annotations[k] = v
		}
		for _, k := range initContainerAnnotations {
			delete(pod.Annotations, k)
		}
		if len(b.Labels) > 0 { // PodTopologyLabelsAdmission, on by default since 1.35
			if pod.Labels == nil {
				pod.Labels = map[string]string{}
			}
			for k, v := range b.Labels {
				pod.Labels[k] = v
			}
		}
		setPodCondition(&pod.Status, corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue})
		return pod, nil
	})
	if err != nil {
		if refused != nil && err == refused {
			return nil, apierrors.NewConflict(podsBinding, name, refused.Error())
		}
		return nil, err
	}
	return &scheme.Status{Status: scheme.StatusSuccess}, nil
}

// bindable is why kube refuses to bind a pod: being deleted, already bound, or gated.
func bindable(pod *corev1.Pod) error {
	switch {
	case pod.DeletionTimestamp != nil:
		return fmt.Errorf("pod %s is being deleted, cannot be assigned to a host", pod.Name)
	case pod.Spec.NodeName != "":
		return fmt.Errorf("pod %v is already assigned to node %q", pod.Name, pod.Spec.NodeName)
	case len(pod.Spec.SchedulingGates) != 0:
		return fmt.Errorf("pod %v has non-empty .spec.schedulingGates", pod.Name)
	}
	return nil
}

// initContainerAnnotations are the legacy init-container annotations kube drops from
// a pod a Binding writes (podutil.DropInitContainerAnnotations).
var initContainerAnnotations = []string{
	"pod.beta.kubernetes.io/init-containers",
	"pod.alpha.kubernetes.io/init-containers",
	"pod.beta.kubernetes.io/init-container-statuses",
	"pod.alpha.kubernetes.io/init-container-statuses",
}

// validatePodBinding is kube's ValidatePodBinding: the target is a Node (or of no
// kind) named by a DNS subdomain.
func validatePodBinding(b *corev1.Binding) validation.ErrorList {
	var errs validation.ErrorList
	kind := validation.NewPath("target", "kind")
	namePath := validation.NewPath("target", "name")
	if b.Target.Kind != "" && b.Target.Kind != "Node" {
		errs = append(errs, validation.NotSupported(kind, b.Target.Kind, []string{"Node", "<empty>"}))
	}
	if b.Target.Name == "" {
		errs = append(errs, validation.Required(namePath, ""))
	} else if b.Target.Kind == "" || b.Target.Kind == "Node" {
		for _, msg := range validation.NameIsDNSSubdomain(b.Target.Name, false) {
			errs = append(errs, validation.Invalid(namePath, b.Target.Name, msg))
		}
	}
	return errs
}

// setPodCondition is kube's podutil.UpdatePodCondition: the condition of its type is
// added or replaced, its lastTransitionTime now unless its status stays the same.
func setPodCondition(status *corev1.PodStatus, c corev1.PodCondition) {
	c.LastTransitionTime = scheme.Now()
	for i := range status.Conditions {
		old := &status.Conditions[i]
		if old.Type != c.Type {
			continue
		}
		if old.Status == c.Status {
			c.LastTransitionTime = old.LastTransitionTime
		}
		*old = c
		return
	}
	status.Conditions = append(status.Conditions, c)
}

// PodSubresources returns the write rules of the pod subresources kube-apiserver
// v1.37.2 serves beside pods/status, and of the top-level bindings: pods/binding and
// bindings set an unscheduled pod's node; pods/eviction deletes a pod that its
// PodDisruptionBudget lets go (eviction.go); pods/ephemeralcontainers adds ephemeral
// containers and nothing else (pod_ephemeral.go); pods/resize changes containers'
// cpu and memory and nothing else (pod_resize.go); pods/exec, attach, portforward, log
// and proxy answer what kube answers without a reachable kubelet (connect.go). They replace Builtin's pod strategy with one
// that has the subresources' Actions, so wire them after it.
func PodSubresources() map[scheme.GroupResource]registry.Strategy {
	pods := podStrategy()
	pods.Status = podStatusStrategy()
	pods.Subresources = map[string]*registry.StrategyFor[*corev1.Pod]{
		"ephemeralcontainers": podEphemeralContainersStrategy(),
		"resize":              podResizeStrategy(), // pod_resize.go
	}
	pods.Actions = map[string]registry.Action{"binding": bindPod, "eviction": evictPod}
	pods.Connectors = podConnectors() // connect.go
	return map[scheme.GroupResource]registry.Strategy{
		corev1.Pods:     pods,
		corev1.Bindings: bindingStrategy(),
	}
}
