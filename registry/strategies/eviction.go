package strategies

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/apikit-dev/apikit/apierrors"
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	metav1 "github.com/apikit-dev/apikit/builtin/meta/v1"
	policyv1 "github.com/apikit-dev/apikit/builtin/policy/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/validation"
)

const (
	// evictionRetries bounds the conflict retries of an eviction, as kube's
	// EvictionsRetry (20 steps) does; apikit retries without sleeping, since each
	// retry reads the newest state from the Store.
	evictionRetries = 20
	// maxDisruptedPods is kube's MaxDisruptedPodSize: past it a PDB refuses evictions.
	maxDisruptedPods = 2000
	// disruptionBudgetCause is policy/v1 DisruptionBudgetCause.
	disruptionBudgetCause scheme.CauseType = "DisruptionBudget"
	// evictionDeniedMsg is the message of kube's 429 for an eviction a PDB forbids.
	evictionDeniedMsg = "Cannot evict pod as it would violate the pod's disruption budget."
)

var (
	evictionKind = scheme.GroupKind{Group: "policy", Kind: "Eviction"}
	// pdbResource is how kube's eviction names a PDB in a 403: singular.
	pdbResource = scheme.GroupResource{Group: "policy", Resource: "poddisruptionbudget"}
	// podKindResource is the resource kube's eviction names a pod by in the 409 of a
	// failed precondition: its kind.
	podKindResource = scheme.GroupResource{Resource: "Pod"}
)

// evictPod is kube's EvictionREST.Create (pkg/registry/core/pod/storage/eviction.go):
// a pod that is terminal, pending or being deleted is deleted at once; otherwise the
// one PodDisruptionBudget of its namespace that selects it must allow a disruption,
// which the eviction takes (status.disruptionsAllowed decremented and the pod
// recorded in status.disruptedPods, with a conflict-checked status update), before
// the pod gets the DisruptionTarget condition and is deleted with the Eviction's
// deleteOptions. No PDB: deleted; more than one: kube's Failure Status with code 500.
func evictPod(ctx context.Context, s *registry.Store, rq registry.Request, name string, body scheme.Object) (scheme.Kinded, error) {
	ev, ok := body.(*policyv1.Eviction)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a Eviction object: %T", body))
	}
	if name != ev.Name {
		return nil, apierrors.NewBadRequest("name in URL does not match name in Eviction object")
	}
	if o := ev.DeleteOptions; o != nil && o.IgnoreStoreReadErrorWithClusterBreakingPotential != nil && *o.IgnoreStoreReadErrorWithClusterBreakingPotential {
		return nil, validation.ErrorList{validation.Invalid(validation.NewPath("deleteOptions", "ignoreStoreReadErrorWithClusterBreakingPotential"), true,
			"can not be set for pod eviction, try after removing the option")}.ToStatus(evictionKind, name)
	}
	opts, err := evictionDeleteOptions(ev, rq.DryRun)
	if err != nil {
		return nil, err
	}
	pods, _ := s.Resource(corev1.Pods)
	pdbs, _ := s.Resource(policyv1.PodDisruptionBudgets)
	podRq := registry.Request{Resource: pods, Namespace: rq.Namespace, Version: "v1", Attributes: rq.Attributes, FieldManager: rq.FieldManager, DryRun: len(opts.DryRun) > 0}
	e := &eviction{s: s, podRq: podRq, pdbRq: registry.Request{Resource: pdbs, Namespace: rq.Namespace, Version: "v1", FieldManager: rq.FieldManager}, name: name}

	var pod *corev1.Pod
	deleted := false
	retry := opts.Preconditions == nil || opts.Preconditions.ResourceVersion == nil
	for try := 0; ; try++ {
		if pod, err = e.getPod(ctx); err != nil {
			return nil, err
		}
		if !canIgnorePDB(pod) {
			break
		}
		o := opts
		if enforceResourceVersion(pod) && rvUnset(opts) {
			o = withResourceVersion(opts, pod.ResourceVersion)
		}
		err = e.markAndDelete(ctx, o)
		if err == nil {
			deleted = true
			break
		}
		if !retry || !isConflict(err) || try+1 >= evictionRetries {
			return nil, err
		}
	}
	if deleted {
		return &scheme.Status{Status: scheme.StatusSuccess}, nil
	}

	budgets, err := e.budgetsOf(ctx, pod)
	if err != nil {
		return nil, err
	}
	if len(budgets) > 1 {
		return &scheme.Status{Status: scheme.StatusFailure, Code: http.StatusInternalServerError,
			Message: "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."}, nil
	}
	pinRV := false
	var pdbName string
	if len(budgets) == 1 {
		pdb := budgets[0]
		pdbName = pdb.Name
		decrement := true
		if !podReady(pod) {
			if p := pdb.Spec.UnhealthyPodEvictionPolicy; p != nil && *p == policyv1.AlwaysAllow {
				pinRV, decrement = true, false
			} else if pdb.Status.CurrentHealthy >= pdb.Status.DesiredHealthy && pdb.Status.DesiredHealthy > 0 {
				pinRV, decrement = true, false
			}
		}
		if decrement {
			if err := e.takeDisruption(ctx, pod, pdb, len(opts.DryRun) > 0); err != nil {
				return nil, err
			}
		}
	}
	o := opts
	if pinRV {
		o = withResourceVersion(opts, pod.ResourceVersion)
	}
	if err := e.markAndDelete(ctx, o); err != nil {
		if isConflict(err) && pinRV && rvUnset(opts) {
			return nil, tooManyRequests(pdbName)
		}
		return nil, err
	}
	return &scheme.Status{Status: scheme.StatusSuccess}, nil
}

// eviction is one eviction's view of the Store: the pod's and the PDBs' requests.
type eviction struct {
	s            *registry.Store
	podRq, pdbRq registry.Request
	name         string
}

func (e *eviction) getPod(ctx context.Context) (*corev1.Pod, error) {
	obj, err := e.s.Get(ctx, e.podRq, e.name, storage.GetOptions{})
	if err != nil {
		return nil, err
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return nil, apierrors.NewInternalError(fmt.Errorf("unexpected object: %T", obj))
	}
	return pod, nil
}

// evictionDeleteOptions is kube's propagateDryRun: the Eviction's deleteOptions with
// the request's dryRun, which must not contradict theirs.
func evictionDeleteOptions(ev *policyv1.Eviction, dryRun bool) (*metav1.DeleteOptions, error) {
	var req []string
	if dryRun {
		req = []string{"All"}
	}
	if ev.DeleteOptions == nil {
		return &metav1.DeleteOptions{DryRun: req}, nil
	}
	o := ev.DeleteOptions
	switch {
	case len(o.DryRun) == 0:
		o.DryRun = req
	case len(req) == 0:
	case !slices.Equal(req, o.DryRun):
		return nil, apierrors.New(http.StatusInternalServerError, scheme.StatusReasonUnknown,
			fmt.Sprintf("Non-matching dry-run options in request and content: %v and %v", req, o.DryRun), nil)
	}
	return o, nil
}

// canIgnorePDB is kube's: a terminal, pending or deleting pod is deleted without a PDB check.
func canIgnorePDB(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed ||
		pod.Status.Phase == corev1.PodPending || pod.DeletionTimestamp != nil
}

// enforceResourceVersion is kube's shouldEnforceResourceVersion: a pod that may
// become ready is deleted only at the resourceVersion the eviction saw.
func enforceResourceVersion(pod *corev1.Pod) bool {
	return !(pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed || pod.DeletionTimestamp != nil)
}

func rvUnset(o *metav1.DeleteOptions) bool {
	return o.Preconditions == nil || o.Preconditions.ResourceVersion == nil
}

// withResourceVersion is a copy of o whose preconditions pin the resourceVersion.
func withResourceVersion(o *metav1.DeleteOptions, rv string) *metav1.DeleteOptions {
	c := *o
	p := metav1.Preconditions{}
	if o.Preconditions != nil {
		p = *o.Preconditions
	}
	p.ResourceVersion = &rv
	c.Preconditions = &p
	return &c
}

func isConflict(err error) bool {
	var st *scheme.Status
	return errors.As(err, &st) && st.Code == http.StatusConflict
}

func podReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// markAndDelete is kube's addConditionAndDeletePod: unless a dry run, the pod gets the
// DisruptionTarget condition through pods/status (the deleteOptions' preconditions
// checked against it first), and is then deleted with the options, a pinned
// resourceVersion moved to the one the condition's write made.
func (e *eviction) markAndDelete(ctx context.Context, o *metav1.DeleteOptions) error {
	if len(o.DryRun) == 0 {
		statusRq := e.podRq
		statusRq.Subresource = "status"
		out, _, err := e.s.Update(ctx, statusRq, e.name, false, func(_ context.Context, old scheme.Object) (scheme.Object, error) {
			if old == nil {
				return nil, apierrors.NewNotFound(corev1.Pods, e.name)
			}
			pod := old.(*corev1.Pod)
			if p := o.Preconditions; p != nil {
				if p.UID != nil && *p.UID != "" && *p.UID != pod.UID {
					return nil, apierrors.NewConflict(podKindResource, pod.Name, fmt.Sprintf("the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", *p.UID, pod.UID))
				}
				if p.ResourceVersion != nil && *p.ResourceVersion != "" && *p.ResourceVersion != pod.ResourceVersion {
					return nil, apierrors.NewConflict(podKindResource, pod.Name, fmt.Sprintf("the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified", *p.ResourceVersion, pod.ResourceVersion))
				}
			}
			setPodCondition(&pod.Status, corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
				Reason: "EvictionByEvictionAPI", Message: "Eviction API: evicting"})
			return pod, nil
		})
		if err != nil {
			return err
		}
		if !rvUnset(o) {
			o = withResourceVersion(o, out.GetResourceVersion())
		}
	}
	_, _, err := e.s.Delete(ctx, e.podRq, e.name, o)
	return err
}

// budgetsOf is kube's getPodDisruptionBudgets: the PDBs of the pod's namespace whose
// selector converts and matches the pod's labels (a nil selector matches nothing).
func (e *eviction) budgetsOf(ctx context.Context, pod *corev1.Pod) ([]*policyv1.PodDisruptionBudget, error) {
	lr, err := e.s.List(ctx, e.pdbRq, storage.ListOptions{})
	if err != nil {
		return nil, err
	}
	var out []*policyv1.PodDisruptionBudget
	for _, obj := range lr.Items {
		pdb, ok := obj.(*policyv1.PodDisruptionBudget)
		if !ok || pdb.Namespace != pod.Namespace || pdb.Spec.Selector == nil || !labelSelectorConverts(pdb.Spec.Selector) {
			continue
		}
		if selectorMatches(pdb.Spec.Selector, pod.Labels) {
			out = append(out, pdb)
		}
	}
	return out, nil
}

// takeDisruption is kube's verify-and-decrement with its conflict retries: the PDB,
// read afresh after a conflict, must allow a disruption; the eviction decrements
// status.disruptionsAllowed and records the pod in status.disruptedPods through the
// PDB's /status at the resourceVersion it read (a dry run checks only).
func (e *eviction) takeDisruption(ctx context.Context, pod *corev1.Pod, pdb *policyv1.PodDisruptionBudget, dryRun bool) error {
	for try := 0; ; try++ {
		err := e.checkAndDecrement(ctx, pod.Name, pdb, dryRun)
		if err == nil {
			return nil
		}
		if !isConflict(err) {
			return err
		}
		if try+1 >= evictionRetries {
			return apierrors.New(http.StatusGatewayTimeout, scheme.StatusReasonTimeout,
				fmt.Sprintf("couldn't update PodDisruptionBudget %q due to conflicts", pdb.Name), &scheme.StatusDetails{RetryAfterSeconds: 10})
		}
		obj, err := e.s.Get(ctx, e.pdbRq, pdb.Name, storage.GetOptions{})
		if err != nil {
			return err
		}
		pdb = obj.(*policyv1.PodDisruptionBudget)
	}
}

// tooManyRequests is kube's createTooManyRequestsError: the PDB's status is behind its spec.
func tooManyRequests(pdb string) error {
	st := apierrors.New(http.StatusTooManyRequests, scheme.StatusReasonTooManyRequests, evictionDeniedMsg, &scheme.StatusDetails{RetryAfterSeconds: 10})
	st.Details.Causes = []scheme.StatusCause{{Type: disruptionBudgetCause, Message: fmt.Sprintf("The disruption budget %s is still being processed by the server.", pdb)}}
	return st
}

func (e *eviction) checkAndDecrement(ctx context.Context, podName string, pdb *policyv1.PodDisruptionBudget, dryRun bool) error {
	st := &pdb.Status
	forbidden := func(why, cause string) error {
		f := apierrors.NewForbidden(pdbResource, pdb.Name, errors.New(why))
		f.Details.Causes = []scheme.StatusCause{{Type: disruptionBudgetCause, Message: fmt.Sprintf("The disruption budget %s does not allow evicting pods currently: %s", pdb.Name, cause)}}
		return f
	}
	switch {
	case st.ObservedGeneration < pdb.Generation:
		return tooManyRequests(pdb.Name)
	case st.DisruptionsAllowed < 0:
		return forbidden("pdb disruptions allowed is negative", "pdb disruptions allowed is negative")
	case len(st.DisruptedPods) > maxDisruptedPods:
		return forbidden("DisruptedPods map too big - too many evictions not confirmed by PDB controller", "too many pending evictions not confirmed by PDB controller")
	case st.DisruptionsAllowed == 0:
		denied := apierrors.New(http.StatusTooManyRequests, scheme.StatusReasonTooManyRequests, evictionDeniedMsg, &scheme.StatusDetails{})
		denied.Details.Causes = []scheme.StatusCause{{Type: disruptionBudgetCause, Message: disruptionDeniedCause(pdb)}}
		return denied
	}
	st.DisruptionsAllowed--
	if st.DisruptionsAllowed == 0 {
		setDisruptionAllowedCondition(pdb)
	}
	if dryRun {
		return nil
	}
	if st.DisruptedPods == nil {
		st.DisruptedPods = map[string]scheme.Time{}
	}
	st.DisruptedPods[podName] = scheme.Time{Time: time.Now()}
	statusRq := e.pdbRq
	statusRq.Subresource = "status"
	_, _, err := e.s.Update(ctx, statusRq, pdb.Name, false, func(_ context.Context, old scheme.Object) (scheme.Object, error) {
		if old == nil {
			return nil, apierrors.NewNotFound(policyv1.PodDisruptionBudgets, pdb.Name)
		}
		return scheme.DeepCopy(pdb), nil
	})
	return err
}

// disruptionDeniedCause is the cause kube gives when a PDB allows no disruption.
func disruptionDeniedCause(pdb *policyv1.PodDisruptionBudget) string {
	st := &pdb.Status
	var c *scheme.Condition
	for i := range st.Conditions {
		if st.Conditions[i].Type == "DisruptionAllowed" {
			c = &st.Conditions[i]
		}
	}
	switch {
	case c != nil && c.Status == scheme.ConditionFalse && c.Message != "" && c.Reason == "SyncFailed":
		return fmt.Sprintf("The disruption budget %s does not allow evicting pods currently because it failed sync: %s", pdb.Name, c.Message)
	case st.CurrentHealthy <= st.DesiredHealthy:
		return fmt.Sprintf("The disruption budget %s needs %d healthy pods and has %d currently", pdb.Name, st.DesiredHealthy, st.CurrentHealthy)
	case c != nil && c.Status == scheme.ConditionFalse && c.Message != "":
		return fmt.Sprintf("The disruption budget %s does not allow evicting pods currently (%s): %s", pdb.Name, c.Reason, c.Message)
	}
	return fmt.Sprintf("The disruption budget %s does not allow evicting pods currently", pdb.Name)
}

// setDisruptionAllowedCondition is component-helpers' UpdateDisruptionAllowedCondition
// with apimachinery's SetStatusCondition.
func setDisruptionAllowedCondition(pdb *policyv1.PodDisruptionBudget) {
	c := scheme.Condition{Type: "DisruptionAllowed", Reason: "InsufficientPods", Status: scheme.ConditionFalse, ObservedGeneration: pdb.Status.ObservedGeneration}
	if pdb.Status.DisruptionsAllowed > 0 {
		c.Reason, c.Status = "SufficientPods", scheme.ConditionTrue
	}
	conds := &pdb.Status.Conditions
	if *conds == nil {
		*conds = []scheme.Condition{}
	}
	for i := range *conds {
		old := &(*conds)[i]
		if old.Type != c.Type {
			continue
		}
		if old.Status != c.Status {
			old.Status = c.Status
			old.LastTransitionTime = scheme.Now()
		}
		old.Reason, old.Message, old.ObservedGeneration = c.Reason, c.Message, c.ObservedGeneration
		return
	}
	c.LastTransitionTime = scheme.Now()
	*conds = append(*conds, c)
}
