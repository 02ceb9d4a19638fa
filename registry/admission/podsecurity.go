package admission

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/apikit-dev/apikit/apierrors"
	appsv1 "github.com/apikit-dev/apikit/builtin/apps/v1"
	batchv1 "github.com/apikit-dev/apikit/builtin/batch/v1"
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
)

// PodSecurity is kube-apiserver's PodSecurity admission plugin (k8s.io/pod-security-admission
// v0.37.2 as plugin/pkg/admission/security/podsecurity runs it) with kube-apiserver's
// defaults when no admission configuration file is given: every mode privileged:latest,
// no exemptions. A namespace's labels pod-security.kubernetes.io/{enforce,audit,warn}
// and their -version labels choose the levels (privileged, baseline, restricted) and
// versions ("latest", "v1.x") its pods are held to:
//   - a pod that the enforce level forbids is refused with kube's 403 (`pods "x" is
//     forbidden: violates PodSecurity "restricted:latest": ...`) on create, and on an
//     update that changes a container's image or adds an ephemeral container; its
//     status, binding, eviction and the other read-like subresources are not checked;
//   - a pod the warn level forbids gets kube's Warning (`would violate PodSecurity
//     ...`), and so do the pod templates of Deployments, ReplicaSets, StatefulSets,
//     DaemonSets, ReplicationControllers, Jobs, CronJobs and PodTemplates, which are
//     warned and never refused;
//   - a namespace with an invalid label value is refused with kube's 422 (on an update
//     unless the stored namespace had the same errors), and an update that tightens the
//     enforce level warns of the existing pods that violate it, checking at most
//     3000 pods within at most a second, as kube does.
//
// The audit mode's annotations (pod-security.kubernetes.io/audit-violations, ...) are
// not recorded: apikit's audit annotations live in package rest, above the registry.
type PodSecurity struct{}

var _ registry.ValidatingAdmission = PodSecurity{}

// kube's limits of the check of existing pods when a namespace's enforce level changes.
const (
	psMaxPodsToCheck  = 3000
	psPodCheckTimeout = time.Second
)

// psIgnoredPodSubresources are the pod subresources PodSecurity lets through.
var psIgnoredPodSubresources = map[string]bool{
	"exec": true, "attach": true, "binding": true, "eviction": true, "log": true, "portforward": true, "proxy": true, "status": true,
}

// psTemplateResources are the resources whose pod templates PodSecurity warns of.
var psTemplateResources = map[scheme.GroupResource]bool{
	corev1.ReplicationControllers: true, corev1.PodTemplates: true,
	appsv1.ReplicaSets: true, appsv1.Deployments: true, appsv1.StatefulSets: true, appsv1.DaemonSets: true,
	batchv1.Jobs: true, batchv1.CronJobs: true,
}

// Validate implements registry.ValidatingAdmission.
func (PodSecurity) Validate(ctx context.Context, a registry.AdmissionAttributes, obj scheme.Object) error {
	if a.Operation != registry.OperationCreate && a.Operation != registry.OperationUpdate {
		return nil
	}
	switch gr := (scheme.GroupResource{Group: a.APIGroup, Resource: a.Resource}); {
	case gr == corev1.Namespaces:
		return validateNamespacePolicy(ctx, a, obj)
	case gr == corev1.Pods:
		return validatePodSecurity(ctx, a, obj)
	case psTemplateResources[gr]:
		return warnPodTemplate(ctx, a, obj)
	}
	return nil
}

// validateNamespacePolicy checks a namespace's labels and, when its enforce level
// tightens, warns of the existing pods that violate the new one.
func validateNamespacePolicy(ctx context.Context, a registry.AdmissionAttributes, obj scheme.Object) error {
	ns, ok := obj.(*corev1.Namespace)
	if a.Subresource != "" || !ok {
		return nil
	}
	policy, errs := policyOf(ns.Labels)
	invalid := func() error {
		return errs.ToStatus(scheme.GroupKind{Kind: "Namespace"}, a.ObjectName(ns))
	}
	if a.Operation == registry.OperationCreate {
		if len(errs) > 0 {
			return invalid()
		}
		return nil
	}
	old, ok := a.OldObject.(*corev1.Namespace)
	if !ok {
		return nil
	}
	oldPolicy, oldErrs := policyOf(old.Labels)
	if len(errs) > 0 && (len(oldErrs) == 0 || !sameErrors(errs.Causes(), oldErrs.Causes())) {
		return invalid()
	}
	switch {
	case policy.enforce == oldPolicy.enforce, policy.enforce.level == psPrivileged:
		return nil
	case policy.enforce.version == oldPolicy.enforce.version && policy.enforce.level.rank() <= oldPolicy.enforce.level.rank():
		return nil
	}
	registry.AddWarning(ctx, existingPodsWarnings(ctx, ns.Name, policy.enforce)...)
	return nil
}

// sameErrors says whether two lists of causes are equal.
func sameErrors(a, b []scheme.StatusCause) bool {
	return slices.Equal(a, b)
}

// existingPodsWarnings are kube's warnings of the pods of namespace that the enforce
// level enforce forbids: at most psMaxPodsToCheck of them, checked for at most
// psPodCheckTimeout (or half of what remains of ctx's deadline), one pod of each
// controller first.
func existingPodsWarnings(ctx context.Context, namespace string, enforce psLevelVersion) []string {
	timeout := psPodCheckTimeout
	if deadline, ok := ctx.Deadline(); ok {
		if half := time.Until(deadline) / 2; half < timeout {
			timeout = half
		}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	objs, err := registry.List(ctx, corev1.Pods, namespace)
	if err != nil {
		return []string{"failed to list pods while checking new PodSecurity enforce level"}
	}
	pods := make([]*corev1.Pod, 0, len(objs))
	for _, o := range objs {
		if p, ok := o.(*corev1.Pod); ok {
			pods = append(pods, p)
		}
	}
	return podsWarnings(ctx, namespace, enforce, pods, psMaxPodsToCheck)
}

// podsWarnings checks pods (at most maxPods of them, until ctx is done) against enforce.
func podsWarnings(ctx context.Context, namespace string, enforce psLevelVersion, pods []*corev1.Pod, maxPods int) []string {
	type seen struct {
		pod   string
		count int
	}
	pods = controllersFirst(pods)
	total := len(pods)
	if len(pods) > maxPods {
		pods = pods[:maxPods]
	}
	checked := len(pods)
	var reasons []string
	byReason := map[string]*seen{}
	for i, p := range pods {
		if e := evaluatePod(enforce, &p.ObjectMeta, &p.Spec); !e.allowed() {
			r := e.reason()
			if s, ok := byReason[r]; !ok {
				byReason[r] = &seen{pod: p.Name, count: 1}
				reasons = append(reasons, r)
			} else {
				s.count++
				if p.Name < s.pod {
					s.pod = p.Name
				}
			}
		}
		if ctx.Err() != nil {
			checked = i + 1
			break
		}
	}
	var warnings []string
	if checked < total {
		warnings = append(warnings, fmt.Sprintf("new PodSecurity enforce level only checked against the first %d of %d existing pods", checked, total))
	}
	if len(reasons) > 0 {
		warnings = append(warnings, fmt.Sprintf("existing pods in namespace %q violate the new PodSecurity enforce level %q", namespace, enforce.String()))
	}
	for i, r := range reasons {
		switch s := byReason[r]; s.count {
		case 1:
			reasons[i] = fmt.Sprintf("%s: %s", s.pod, r)
		case 2:
			reasons[i] = fmt.Sprintf("%s (and 1 other pod): %s", s.pod, r)
		default:
			reasons[i] = fmt.Sprintf("%s (and %d other pods): %s", s.pod, s.count-1, r)
		}
	}
	slices.Sort(reasons)
	return append(warnings, reasons...)
}

// controllersFirst orders pods as kube's prioritizePods: each pod without a controller
// and the first pod of each controller, in order, then the other pods of controllers.
func controllersFirst(pods []*corev1.Pod) []*corev1.Pod {
	first := make([]*corev1.Pod, 0, len(pods))
	var rest []*corev1.Pod
	controllers := map[scheme.UID]bool{}
	for _, p := range pods {
		uid, ok := controllerUID(p)
		switch {
		case !ok:
			first = append(first, p)
		case controllers[uid]:
			rest = append(rest, p)
		default:
			controllers[uid] = true
			first = append(first, p)
		}
	}
	return append(first, rest...)
}

// controllerUID is the uid of a pod's controller, if it has one.
func controllerUID(p *corev1.Pod) (scheme.UID, bool) {
	for _, r := range p.OwnerReferences {
		if r.Controller != nil && *r.Controller {
			return r.UID, true
		}
	}
	return "", false
}

// namespacePolicy reads the policy of namespace.
func namespacePolicy(ctx context.Context, namespace string) (psPolicy, bool, error) {
	obj, err := registry.Get(ctx, corev1.Namespaces, "", namespace)
	if err != nil {
		return psPolicy{}, false, err
	}
	ns, ok := obj.(*corev1.Namespace)
	if !ok {
		return psPolicy{}, false, fmt.Errorf("namespace %q is a %T", namespace, obj)
	}
	p, errs := policyOf(ns.Labels)
	return p, len(errs) == 0, nil
}

// validatePodSecurity enforces (and warns of) a pod's namespace policy.
func validatePodSecurity(ctx context.Context, a registry.AdmissionAttributes, obj scheme.Object) error {
	if psIgnoredPodSubresources[a.Subresource] {
		return nil
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return nil
	}
	policy, valid, err := namespacePolicy(ctx, a.Namespace)
	if err != nil {
		return apierrors.NewInternalError(fmt.Errorf("failed to lookup namespace %q", a.Namespace))
	}
	if valid && policy.fullyPrivileged() {
		return nil
	}
	if a.Operation == registry.OperationUpdate {
		if old, ok := a.OldObject.(*corev1.Pod); ok && !significantPodUpdate(pod, old) {
			return nil
		}
	}
	enforced := evaluatePod(policy.enforce, &pod.ObjectMeta, &pod.Spec)
	if !enforced.allowed() {
		return apierrors.NewForbidden(corev1.Pods, a.Name, fmt.Errorf("%s", violation("violates", policy.enforce, enforced)))
	}
	warnPolicy(ctx, policy, &pod.ObjectMeta, &pod.Spec, &enforced)
	return nil
}

// warnPolicy adds the warning of the warn level, reusing the enforce level's
// evaluation (enforced, nil when not enforced) when the two are the same.
func warnPolicy(ctx context.Context, policy psPolicy, meta *scheme.ObjectMeta, spec *corev1.PodSpec, enforced *psEvaluation) {
	var e psEvaluation
	if enforced != nil && policy.warn == policy.enforce {
		e = *enforced
	} else {
		e = evaluatePod(policy.warn, meta, spec)
	}
	if !e.allowed() {
		registry.AddWarning(ctx, violation("would violate", policy.warn, e))
	}
}

// significantPodUpdate is kube's isSignificantPodUpdate: a container added or removed,
// an image changed, an ephemeral container added or its image changed.
func significantPodUpdate(pod, old *corev1.Pod) bool {
	if len(pod.Spec.Containers) != len(old.Spec.Containers) || len(pod.Spec.InitContainers) != len(old.Spec.InitContainers) {
		return true
	}
	for i := range pod.Spec.Containers {
		if pod.Spec.Containers[i].Image != old.Spec.Containers[i].Image {
			return true
		}
	}
	for i := range pod.Spec.InitContainers {
		if pod.Spec.InitContainers[i].Image != old.Spec.InitContainers[i].Image {
			return true
		}
	}
	for _, c := range pod.Spec.EphemeralContainers {
		i := slices.IndexFunc(old.Spec.EphemeralContainers, func(o corev1.EphemeralContainer) bool { return o.Name == c.Name })
		if i < 0 || old.Spec.EphemeralContainers[i].Image != c.Image {
			return true
		}
	}
	return false
}

// warnPodTemplate warns of a workload's pod template by its namespace's warn level.
func warnPodTemplate(ctx context.Context, a registry.AdmissionAttributes, obj scheme.Object) error {
	if a.Subresource != "" {
		return nil
	}
	meta, spec := podTemplateOf(obj)
	if spec == nil {
		return nil
	}
	policy, valid, err := namespacePolicy(ctx, a.Namespace)
	if err != nil || (valid && policy.warn.level == psPrivileged && policy.audit.level == psPrivileged) {
		return nil // kube lets the write through when it cannot read the namespace
	}
	warnPolicy(ctx, policy, meta, spec, nil)
	return nil
}

// podTemplateOf is the pod template of a workload (nil when it has none).
func podTemplateOf(obj scheme.Object) (*scheme.ObjectMeta, *corev1.PodSpec) {
	var t *corev1.PodTemplateSpec
	switch o := obj.(type) {
	case *corev1.PodTemplate:
		t = &o.Template
	case *corev1.ReplicationController:
		t = o.Spec.Template
	case *appsv1.ReplicaSet:
		t = &o.Spec.Template
	case *appsv1.Deployment:
		t = &o.Spec.Template
	case *appsv1.DaemonSet:
		t = &o.Spec.Template
	case *appsv1.StatefulSet:
		t = &o.Spec.Template
	case *batchv1.Job:
		t = &o.Spec.Template
	case *batchv1.CronJob:
		t = &o.Spec.JobTemplate.Spec.Template
	}
	if t == nil {
		return nil, nil
	}
	return &t.ObjectMeta, &t.Spec
}
