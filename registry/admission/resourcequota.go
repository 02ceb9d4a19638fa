package admission

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strings"
	"sync"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/quantity"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
)

// ResourceQuota is kube-apiserver's ResourceQuota admission plugin
// (k8s.io/apiserver/pkg/admission/plugin/resourcequota with the core evaluators of
// pkg/quota/v1/evaluator/core), validating, last of kube's order. It charges each write
// the evaluators charge (a create of any object; a pod's resize and a change of whether
// it terminates; a service's and a claim's updates, by the growth of their usage)
// against every quota of the namespace whose status.hard names a resource the object
// uses and whose scopes match it; past a hard limit it answers kube's 403 "exceeded
// quota"; a quota whose status.used lacks such a resource is "status unknown". The new
// usage is written to each charged quota's status with the quota's resourceVersion as a
// precondition (registry.UpdateStatus), re-read and re-checked on a conflict (a writer
// outside this process, or a user), three times at most, as kube's evaluator retries;
// within the process the checks of one namespace run one at a time, as kube's do. A dry
// run charges nothing.
//
// A quota whose status.hard is empty (none has filled it: the reference control plane
// runs no resourcequota controller, and neither does apikit) constrains nothing, as in
// kube, where a quota matches by its status.hard.
type ResourceQuota struct{}

var _ registry.ValidatingAdmission = ResourceQuota{}

// quotaRetries is how many times kube's evaluator re-reads quotas whose status write
// conflicted.
const quotaRetries = 3

// Validate charges the write against the namespace's quotas.
func (ResourceQuota) Validate(ctx context.Context, a registry.AdmissionAttributes, obj scheme.Object) error {
	ev := evaluatorFor(a)
	if ev == nil || a.Namespace == "" || !ev.handles(a, obj) {
		return nil
	}
	// kube's evaluator checks one namespace's writes at a time (a work queue keyed by
	// namespace): so here, by a lock of the namespace's stripe.
	mu := &namespaceLocks[fnv32(a.Namespace)%uint32(len(namespaceLocks))]
	mu.Lock()
	defer mu.Unlock()
	quotas, err := listQuotas(ctx, a.Namespace, nil)
	if err != nil || len(quotas) == 0 {
		return err
	}
	for try := 0; ; try++ {
		changed, err := checkRequest(quotas, a, obj, ev)
		if err != nil {
			return forbiddenOr(a, obj, err)
		}
		if a.DryRun || len(changed) == 0 {
			return nil
		}
		var conflicted []string
		var lastErr error
		for _, q := range changed {
			if _, err := registry.UpdateStatus(ctx, corev1.ResourceQuotasResource, a.Namespace, q); err != nil {
				conflicted = append(conflicted, q.Name)
				lastErr = err
			}
		}
		if len(conflicted) == 0 {
			return nil
		}
		if try == quotaRetries {
			return lastErr
		}
		if quotas, err = listQuotas(ctx, a.Namespace, conflicted); err != nil {
			return lastErr
		}
	}
}

// namespaceLocks serialize the quota checks of a namespace within the process; a
// fixed number of stripes keeps their memory bounded whatever the namespaces.
var namespaceLocks [64]sync.Mutex

func fnv32(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

// quotaRefusal is a refusal kube words itself (admission.NewForbidden of its text).
type quotaRefusal struct{ msg string }

func (e quotaRefusal) Error() string { return e.msg }

func forbiddenOr(a registry.AdmissionAttributes, obj scheme.Object, err error) error {
	var r quotaRefusal
	if errors.As(err, &r) {
		return forbidden(a, obj, err)
	}
	return err
}

// listQuotas reads the namespace's quotas, only those named when names is not nil.
func listQuotas(ctx context.Context, namespace string, names []string) ([]*corev1.ResourceQuota, error) {
	objs, err := registry.List(ctx, corev1.ResourceQuotasResource, namespace)
	if err != nil {
		return nil, err
	}
	var out []*corev1.ResourceQuota
	for _, o := range objs {
		if q, ok := o.(*corev1.ResourceQuota); ok && (names == nil || slices.Contains(names, q.Name)) {
			out = append(out, q)
		}
	}
	return out, nil
}

// checkRequest is kube's CheckRequest: the quotas whose status.used the write changes,
// with their new usage, or the refusal.
func checkRequest(quotas []*corev1.ResourceQuota, a registry.AdmissionAttributes, obj scheme.Object, ev *evaluator) ([]*corev1.ResourceQuota, error) {
	var interesting []*corev1.ResourceQuota
	for _, q := range quotas {
		if !ev.matches(q, obj) {
			continue
		}
		restricted := ev.matching(slices.Sorted(maps.Keys(q.Status.Hard)))
		if ev.constraints != nil {
			if err := ev.constraints(restricted, obj); err != nil {
				return nil, quotaRefusal{fmt.Sprintf("failed quota: %s: %v", q.Name, err)}
			}
		}
		for _, n := range restricted {
			if _, ok := q.Status.Used[n]; !ok {
				return nil, quotaRefusal{fmt.Sprintf("status unknown for quota: %s, resources: %s", q.Name, joinNames(restricted))}
			}
		}
		interesting = append(interesting, q)
	}
	if len(interesting) == 0 {
		return nil, nil
	}
	delta := ev.usage(obj)
	var negative []corev1.ResourceName
	for n, v := range delta {
		if v.Sign() < 0 {
			negative = append(negative, n)
		}
	}
	if len(negative) > 0 {
		return nil, quotaRefusal{"quota usage is negative for resource(s): " + joinNames(negative)}
	}
	if a.Operation == registry.OperationUpdate && a.OldObject != nil && a.OldObject.GetResourceVersion() != "" {
		// Charge the growth only: SubtractWithNonNegativeResult.
		for n, prev := range ev.usage(a.OldObject) {
			if v, ok := delta[n]; ok {
				v.Sub(prev)
				if v.Sign() < 0 {
					v = quantity.Quantity{}
				}
				delta[n] = v
			}
		}
	}
	for n, v := range delta {
		if v.IsZero() {
			delete(delta, n)
		}
	}
	if len(delta) == 0 {
		return nil, nil
	}
	var changed []*corev1.ResourceQuota
	for _, q := range interesting {
		requested := corev1.ResourceList{}
		for n, v := range delta {
			if _, ok := q.Status.Hard[n]; ok {
				requested[n] = v
			}
		}
		if len(requested) == 0 {
			continue
		}
		used := maps.Clone(q.Status.Used)
		if used == nil {
			used = corev1.ResourceList{}
		}
		var exceeded []corev1.ResourceName
		for n, v := range requested {
			sum := used[n]
			sum.Add(v)
			used[n] = sum
			if hard := q.Status.Hard[n]; sum.Cmp(hard) > 0 {
				exceeded = append(exceeded, n)
			}
		}
		if len(exceeded) > 0 {
			return nil, quotaRefusal{fmt.Sprintf("exceeded quota: %s, requested: %s, used: %s, limited: %s", q.Name,
				prettyPrint(requested, exceeded), prettyPrint(q.Status.Used, exceeded), prettyPrint(q.Status.Hard, exceeded))}
		}
		next := *q
		next.Status = corev1.ResourceQuotaStatus{Hard: q.Status.Hard, Used: used}
		changed = append(changed, &next)
	}
	return changed, nil
}

// prettyPrint is kube's prettyPrint of the masked list: "name=value" by name, joined
// by commas; a resource absent from l is left out.
func prettyPrint(l corev1.ResourceList, names []corev1.ResourceName) string {
	var parts []string
	for _, n := range slices.Sorted(slices.Values(names)) {
		if v, ok := l[n]; ok {
			parts = append(parts, string(n)+"="+v.String())
		}
	}
	return strings.Join(parts, ",")
}

func joinNames(names []corev1.ResourceName) string {
	s := make([]string, len(names))
	for i, n := range names {
		s[i] = string(n)
	}
	slices.Sort(s)
	return strings.Join(s, ",")
}

// evaluator is one of kube's quota evaluators.
type evaluator struct {
	// handles says whether the write is charged.
	handles func(a registry.AdmissionAttributes, obj scheme.Object) bool
	// matching are the quota resources of names the evaluator charges.
	matching func(names []corev1.ResourceName) []corev1.ResourceName
	// scope says whether an object is in a quota's scope; nil is MatchesNoScopeFunc.
	scope func(s corev1.ScopedResourceSelectorRequirement, obj scheme.Object) bool
	// constraints refuses an object that does not say what a quota requires of it.
	constraints func(required []corev1.ResourceName, obj scheme.Object) error
	// usage is what the object uses.
	usage func(obj scheme.Object) corev1.ResourceList
}

// matches is generic.Matches: the quota's status.hard names a resource the evaluator
// charges, and every scope of the quota matches.
func (e *evaluator) matches(q *corev1.ResourceQuota, obj scheme.Object) bool {
	if len(e.matching(slices.Collect(maps.Keys(q.Status.Hard)))) == 0 {
		return false
	}
	for _, s := range quotaScopes(q) {
		if e.scope == nil || !e.scope(s, obj) {
			return false
		}
	}
	return true
}

// quotaScopes is getScopeSelectorsFromQuota: each scope as Exists, then the selector's.
func quotaScopes(q *corev1.ResourceQuota) []corev1.ScopedResourceSelectorRequirement {
	var out []corev1.ScopedResourceSelectorRequirement
	for _, s := range q.Spec.Scopes {
		out = append(out, corev1.ScopedResourceSelectorRequirement{ScopeName: s, Operator: corev1.ScopeSelectorOpExists})
	}
	if q.Spec.ScopeSelector != nil {
		out = append(out, q.Spec.ScopeSelector.MatchExpressions...)
	}
	return out
}

// objectCountName is ObjectCountQuotaResourceNameFor: count/<resource>[.<group>].
func objectCountName(gr scheme.GroupResource) corev1.ResourceName {
	if gr.Group == "" {
		return corev1.ResourceName("count/" + gr.Resource)
	}
	return corev1.ResourceName("count/" + gr.Resource + "." + gr.Group)
}

// legacyCountAliases are the object counts kube also charges under their old names.
var legacyCountAliases = map[string]corev1.ResourceName{
	"configmaps": "configmaps", "resourcequotas": "resourcequotas", "replicationcontrollers": "replicationcontrollers", "secrets": "secrets",
}

func intersect(names, known []corev1.ResourceName) []corev1.ResourceName {
	var out []corev1.ResourceName
	for _, n := range names {
		if slices.Contains(known, n) {
			out = append(out, n)
		}
	}
	return out
}

func one() quantity.Quantity { return quantity.MustParse("1") }

// evaluatorFor is the evaluator kube's registry has for the write's resource: pods,
// services and claims have their own, every other resource an object count.
func evaluatorFor(a registry.AdmissionAttributes) *evaluator {
	gr := scheme.GroupResource{Group: a.APIGroup, Resource: a.Resource}
	switch {
	case gr == corev1.Pods:
		return podEvaluator()
	case gr == corev1.Services:
		return serviceEvaluator()
	case gr == corev1.PersistentVolumeClaims:
		return claimEvaluator()
	}
	names := []corev1.ResourceName{objectCountName(gr)}
	if alias, ok := legacyCountAliases[gr.Resource]; ok && gr.Group == "" {
		names = append(names, alias)
	}
	return &evaluator{
		handles: func(a registry.AdmissionAttributes, _ scheme.Object) bool {
			return a.Subresource == "" && a.Operation == registry.OperationCreate
		},
		matching: func(in []corev1.ResourceName) []corev1.ResourceName { return intersect(in, names) },
		usage: func(scheme.Object) corev1.ResourceList {
			l := corev1.ResourceList{}
			for _, n := range names {
				l[n] = one()
			}
			return l
		},
	}
}

// serviceEvaluator charges services, node ports and load balancers on creates and updates.
func serviceEvaluator() *evaluator {
	names := []corev1.ResourceName{"count/services", "services", "services.nodeports", "services.loadbalancers"}
	return &evaluator{
		handles: func(a registry.AdmissionAttributes, _ scheme.Object) bool {
			return a.Subresource == "" && (a.Operation == registry.OperationCreate || a.Operation == registry.OperationUpdate)
		},
		matching: func(in []corev1.ResourceName) []corev1.ResourceName { return intersect(in, names) },
		usage: func(obj scheme.Object) corev1.ResourceList {
			svc, ok := obj.(*corev1.Service)
			if !ok {
				return corev1.ResourceList{}
			}
			count := func(n int) quantity.Quantity { return *quantity.NewQuantity(int64(n), quantity.DecimalSI) }
			l := corev1.ResourceList{"count/services": one(), "services": one(), "services.loadbalancers": count(0), "services.nodeports": count(0)}
			switch svc.Spec.Type {
			case corev1.ServiceTypeNodePort:
				l["services.nodeports"] = count(len(svc.Spec.Ports))
			case corev1.ServiceTypeLoadBalancer:
				n := len(svc.Spec.Ports)
				if svc.Spec.AllocateLoadBalancerNodePorts != nil && !*svc.Spec.AllocateLoadBalancerNodePorts {
					n = 0
					for _, p := range svc.Spec.Ports {
						if p.NodePort != 0 {
							n++
						}
					}
				}
				l["services.nodeports"] = count(n)
				l["services.loadbalancers"] = one()
			}
			return l
		},
	}
}

// storageClassSuffix joins a storage class and a claim resource in a quota resource name.
const storageClassSuffix = ".storageclass.storage.k8s.io/"

// claimEvaluator charges claims and their requested storage, also per storage class, on
// creates and updates (an expansion charges the growth).
func claimEvaluator() *evaluator {
	return &evaluator{
		handles: func(a registry.AdmissionAttributes, _ scheme.Object) bool {
			return a.Subresource == "" && (a.Operation == registry.OperationCreate || a.Operation == registry.OperationUpdate)
		},
		matching: func(in []corev1.ResourceName) []corev1.ResourceName {
			var out []corev1.ResourceName
			for _, n := range in {
				s := string(n)
				if s == "count/persistentvolumeclaims" || s == "persistentvolumeclaims" || s == "requests.storage" ||
					strings.HasSuffix(s, storageClassSuffix+"persistentvolumeclaims") || strings.HasSuffix(s, storageClassSuffix+"requests.storage") {
					out = append(out, n)
				}
			}
			return out
		},
		usage: func(obj scheme.Object) corev1.ResourceList {
			pvc, ok := obj.(*corev1.PersistentVolumeClaim)
			if !ok {
				return corev1.ResourceList{}
			}
			l := corev1.ResourceList{"persistentvolumeclaims": one(), "count/persistentvolumeclaims": one()}
			class := pvc.Annotations["volume.beta.kubernetes.io/storage-class"]
			if pvc.Spec.StorageClassName != nil {
				class = *pvc.Spec.StorageClassName
			}
			if class != "" {
				l[corev1.ResourceName(class+storageClassSuffix+"persistentvolumeclaims")] = one()
			}
			if req, ok := pvc.Spec.Resources.Requests[corev1.ResourceStorage]; ok {
				req.RoundUp(0)
				if alloc, ok := pvc.Status.AllocatedResources[corev1.ResourceStorage]; ok && alloc.Cmp(req) > 0 {
					req = alloc
					req.RoundUp(0)
				}
				l["requests.storage"] = req
				if class != "" {
					l[corev1.ResourceName(class+storageClassSuffix+"requests.storage")] = req
				}
			}
			return l
		},
	}
}

// podQuotaResources are the pod evaluator's resources besides the hugepages and
// extended ones.
var podQuotaResources = []corev1.ResourceName{"count/pods", "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory",
	"requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods"}

// podEvaluator charges pods: their count, and their requests and limits while they run.
func podEvaluator() *evaluator {
	return &evaluator{
		handles: func(a registry.AdmissionAttributes, obj scheme.Object) bool {
			switch a.Subresource {
			case "":
				if a.Operation == registry.OperationUpdate {
					p, ok1 := obj.(*corev1.Pod)
					old, ok2 := a.OldObject.(*corev1.Pod)
					return ok1 && ok2 && podTerminating(p) != podTerminating(old)
				}
				return a.Operation == registry.OperationCreate
			case "resize":
				return a.Operation == registry.OperationUpdate
			}
			return false
		},
		matching: func(in []corev1.ResourceName) []corev1.ResourceName {
			out := intersect(in, podQuotaResources)
			for _, n := range in {
				s := string(n)
				if strings.HasPrefix(s, "hugepages-") || strings.HasPrefix(s, "requests.hugepages-") {
					out = append(out, n)
				}
				if strings.HasPrefix(s, "requests.") && (strings.Contains(s, "/") && !strings.Contains(s, "kubernetes.io/") ||
					strings.HasPrefix(s, "requests.deviceclass.resource.kubernetes.io/")) {
					out = append(out, n)
				}
			}
			return out
		},
		scope:       podMatchesScope,
		constraints: podConstraints,
		usage:       podUsage,
	}
}

func podTerminating(p *corev1.Pod) bool {
	return p.Spec.ActiveDeadlineSeconds != nil && *p.Spec.ActiveDeadlineSeconds >= 0
}

// podBestEffort is a pod whose containers request and limit no cpu or memory.
func podBestEffort(p *corev1.Pod) bool {
	for _, cs := range [][]corev1.Container{p.Spec.Containers, p.Spec.InitContainers} {
		for _, c := range cs {
			for _, l := range []corev1.ResourceList{c.Resources.Requests, c.Resources.Limits} {
				for n, q := range l {
					if (n == corev1.ResourceCPU || n == corev1.ResourceMemory) && !q.IsZero() {
						return false
					}
				}
			}
		}
	}
	if p.Spec.Resources != nil {
		for _, l := range []corev1.ResourceList{p.Spec.Resources.Requests, p.Spec.Resources.Limits} {
			for n, q := range l {
				if (n == corev1.ResourceCPU || n == corev1.ResourceMemory) && !q.IsZero() {
					return false
				}
			}
		}
	}
	return true
}

// podMatchesScope is podMatchesScopeFunc.
func podMatchesScope(s corev1.ScopedResourceSelectorRequirement, obj scheme.Object) bool {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return false
	}
	switch s.ScopeName {
	case corev1.ResourceQuotaScopeTerminating:
		return podTerminating(p)
	case corev1.ResourceQuotaScopeNotTerminating:
		return !podTerminating(p)
	case corev1.ResourceQuotaScopeBestEffort:
		return podBestEffort(p)
	case corev1.ResourceQuotaScopeNotBestEffort:
		return !podBestEffort(p)
	case corev1.ResourceQuotaScopePriorityClass:
		if s.Operator == corev1.ScopeSelectorOpExists {
			return p.Spec.PriorityClassName != ""
		}
		var set map[string]string
		if p.Spec.PriorityClassName != "" {
			set = map[string]string{"PriorityClass": p.Spec.PriorityClassName}
		}
		return scopeSelectorMatches(s, set)
	case corev1.ResourceQuotaScopeCrossNamespacePodAffinity:
		return crossNamespaceAffinity(p)
	}
	return false
}

// scopeSelectorMatches is ScopedResourceSelectorRequirementsAsSelector's selector
// matching the labels set.
func scopeSelectorMatches(s corev1.ScopedResourceSelectorRequirement, set map[string]string) bool {
	var op storage.Operator
	switch s.Operator {
	case corev1.ScopeSelectorOpIn:
		op = storage.In
	case corev1.ScopeSelectorOpNotIn:
		op = storage.NotIn
	case corev1.ScopeSelectorOpExists:
		op = storage.Exists
	case corev1.ScopeSelectorOpDoesNotExist:
		op = storage.DoesNotExist
	default:
		return false
	}
	return storage.NewLabelSelector(storage.LabelRequirement{Key: string(s.ScopeName), Operator: op, Values: s.Values}).Matches(set)
}

func crossNamespaceAffinity(p *corev1.Pod) bool {
	if p.Spec.Affinity == nil {
		return false
	}
	cross := func(t *corev1.PodAffinityTerm) bool { return len(t.Namespaces) != 0 || t.NamespaceSelector != nil }
	check := func(req []corev1.PodAffinityTerm, pref []corev1.WeightedPodAffinityTerm) bool {
		for i := range req {
			if cross(&req[i]) {
				return true
			}
		}
		for i := range pref {
			if cross(&pref[i].PodAffinityTerm) {
				return true
			}
		}
		return false
	}
	if a := p.Spec.Affinity.PodAffinity; a != nil && check(a.RequiredDuringSchedulingIgnoredDuringExecution, a.PreferredDuringSchedulingIgnoredDuringExecution) {
		return true
	}
	if a := p.Spec.Affinity.PodAntiAffinity; a != nil && check(a.RequiredDuringSchedulingIgnoredDuringExecution, a.PreferredDuringSchedulingIgnoredDuringExecution) {
		return true
	}
	return false
}

// podComputeNames are the compute resources whose quota requires each container to say
// them (kube's validationSet).
var podComputeNames = []corev1.ResourceName{"cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"}

// podConstraints is the pod evaluator's Constraints: a quota on cpu or memory requests
// or limits requires every container to set them, unless the pod sets pod-level
// resources.
func podConstraints(required []corev1.ResourceName, obj scheme.Object) error {
	p, ok := obj.(*corev1.Pod)
	if !ok || p.Spec.Resources != nil && (len(p.Spec.Resources.Requests) > 0 || len(p.Spec.Resources.Limits) > 0) {
		return nil
	}
	req := intersect(required, podComputeNames)
	missing := map[corev1.ResourceName][]string{}
	for _, cs := range [][]corev1.Container{p.Spec.Containers, p.Spec.InitContainers} {
		for _, c := range cs {
			have := computeUsage(c.Resources.Requests, c.Resources.Limits)
			for _, n := range req {
				if _, ok := have[n]; !ok && !slices.Contains(missing[n], c.Name) {
					missing[n] = append(missing[n], c.Name)
				}
			}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	var msgs []string
	for _, n := range slices.Sorted(maps.Keys(missing)) {
		slices.Sort(missing[n])
		msgs = append(msgs, fmt.Sprintf("%s for: %s", n, strings.Join(missing[n], ",")))
	}
	return fmt.Errorf("must specify %s", strings.Join(msgs, "; "))
}

// computeUsage is podComputeUsageHelper.
func computeUsage(requests, limits corev1.ResourceList) corev1.ResourceList {
	l := corev1.ResourceList{"pods": one()}
	for _, n := range []corev1.ResourceName{"cpu", "memory", "ephemeral-storage"} {
		if r, ok := requests[n]; ok {
			l[n] = r
			l["requests."+n] = r
		}
		if v, ok := limits[n]; ok {
			l["limits."+n] = v
		}
	}
	for n, r := range requests {
		if strings.HasPrefix(string(n), "hugepages-") {
			l[n] = r
			l["requests."+n] = r
		}
	}
	return l
}

// podUsage is PodUsageFunc: the count, and while the pod runs its requests and limits
// (containers summed, init containers by their max, pod-level cpu and memory instead,
// plus the overhead).
func podUsage(obj scheme.Object) corev1.ResourceList {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return corev1.ResourceList{}
	}
	l := corev1.ResourceList{"count/pods": one()}
	if p.Status.Phase == corev1.PodFailed || p.Status.Phase == corev1.PodSucceeded {
		return l
	}
	requests := podResources(p, func(c *corev1.Container) corev1.ResourceList { return c.Resources.Requests },
		func(r *corev1.ResourceRequirements) corev1.ResourceList { return r.Requests })
	limits := podResources(p, func(c *corev1.Container) corev1.ResourceList { return c.Resources.Limits },
		func(r *corev1.ResourceRequirements) corev1.ResourceList { return r.Limits })
	addResources(requests, p.Spec.Overhead)
	// The overhead adds to the limits a pod has, not to those it leaves unlimited.
	for n, v := range p.Spec.Overhead {
		if cur, ok := limits[n]; ok && !cur.IsZero() {
			cur.Add(v)
			limits[n] = cur
		}
	}
	maps.Copy(l, computeUsage(requests, limits))
	return l
}
