package registry

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/apikit-dev/apikit/apierrors"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
)

// namespacesGR is core/v1 namespaces.
var namespacesGR = scheme.GroupResource{Resource: "namespaces"}

// The namespace lifecycle of a server whose scheme has a core/v1 namespaces resource, as
// kube-apiserver's namespace registry and NamespaceLifecycle admission plugin enforce it.
// The Namespace kind may be any Go type or a schema-only kind: its spec.finalizers,
// status.phase and status.conditions are read and written through its JSON form.
const (
	// FinalizerKubernetes is the spec.finalizers entry of a new Namespace; the namespace
	// controller removes it once the namespace's content is gone.
	FinalizerKubernetes = "kubernetes"
	// NamespacePhaseActive and NamespacePhaseTerminating are the status.phase values.
	NamespacePhaseActive      = "Active"
	NamespacePhaseTerminating = "Terminating"
	// NamespaceTerminatingCause is core/v1 NamespaceTerminatingCause, the cause of a
	// create refused in a namespace being deleted.
	NamespaceTerminatingCause scheme.CauseType = "NamespaceTerminating"
)

// NamespacesGroupResource is core/v1 namespaces.
func NamespacesGroupResource() scheme.GroupResource { return namespacesGR }

// NamespaceStatus is what the lifecycle reads of a Namespace: spec.finalizers,
// status.phase and status.conditions (kept as JSON values).
type NamespaceStatus struct {
	Finalizers []string
	Phase      string
	Conditions []any
}

// namespaceJSON returns the JSON form of obj: the map of an Unstructured itself, or a
// converted copy of a Go type.
func namespaceJSON(obj scheme.Object) (map[string]any, error) {
	if u, ok := obj.(*scheme.Unstructured); ok {
		return u.Object, nil
	}
	m, err := conversion.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("namespace %s: %w", obj.GetName(), err)
	}
	return m, nil
}

// NamespaceFields reads the lifecycle fields of a Namespace of any type.
func NamespaceFields(obj scheme.Object) (NamespaceStatus, error) {
	m, err := namespaceJSON(obj)
	if err != nil {
		return NamespaceStatus{}, err
	}
	var out NamespaceStatus
	spec, _ := m["spec"].(map[string]any)
	fins, _ := spec["finalizers"].([]any)
	for _, f := range fins {
		if s, ok := f.(string); ok {
			out.Finalizers = append(out.Finalizers, s)
		}
	}
	status, _ := m["status"].(map[string]any)
	out.Phase, _ = status["phase"].(string)
	out.Conditions, _ = status["conditions"].([]any)
	return out, nil
}

// UpdateNamespace changes the JSON form of a Namespace of any type with edit and
// writes the result back into obj.
func UpdateNamespace(obj scheme.Object, edit func(spec, status map[string]any)) error {
	m, err := namespaceJSON(obj)
	if err != nil {
		return err
	}
	spec, _ := m["spec"].(map[string]any)
	if spec == nil {
		spec = map[string]any{}
	}
	status, _ := m["status"].(map[string]any)
	if status == nil {
		status = map[string]any{}
	}
	edit(spec, status)
	m["spec"], m["status"] = spec, status
	if _, ok := obj.(*scheme.Unstructured); ok {
		return nil
	}
	if err := conversion.FromUnstructured(m, obj); err != nil {
		return fmt.Errorf("namespace %s: %w", obj.GetName(), err)
	}
	return nil
}

// stringsJSON is a []string as a JSON value.
func stringsJSON(list []string) []any {
	out := make([]any, len(list))
	for i, s := range list {
		out[i] = s
	}
	return out
}

// prepareNamespaceCreate gives a new Namespace the "kubernetes" finalizer and phase
// Active, as kube's namespace strategy does.
func prepareNamespaceCreate(in scheme.Object) error {
	fields, err := NamespaceFields(in)
	if err != nil {
		return err
	}
	fins := fields.Finalizers
	if !slices.Contains(fins, FinalizerKubernetes) {
		fins = append(fins, FinalizerKubernetes)
	}
	return UpdateNamespace(in, func(spec, status map[string]any) {
		spec["finalizers"] = stringsJSON(fins)
		clear(status)
		status["phase"] = NamespacePhaseActive
	})
}

// prepareNamespaceUpdate keeps what an update of a Namespace may not change, per
// subresource ("", "status" or "finalize"), as kube's namespace strategies: the main
// resource keeps spec.finalizers and status, status keeps spec, finalize keeps status.
func prepareNamespaceUpdate(in, old scheme.Object, subresource string) error {
	prev, err := NamespaceFields(old)
	if err != nil {
		return err
	}
	oldJSON, err := namespaceJSON(old)
	if err != nil {
		return err
	}
	oldSpec, _ := scheme.DeepCopyJSONValue(oldJSON["spec"]).(map[string]any)
	oldStatus, _ := scheme.DeepCopyJSONValue(oldJSON["status"]).(map[string]any)
	return UpdateNamespace(in, func(spec, status map[string]any) {
		switch subresource {
		case "status":
			clear(spec)
			maps.Copy(spec, oldSpec)
		case "finalize":
			clear(status)
			maps.Copy(status, oldStatus)
		default:
			delete(spec, "finalizers")
			if prev.Finalizers != nil {
				spec["finalizers"] = stringsJSON(prev.Finalizers)
			}
			clear(status)
			maps.Copy(status, oldStatus)
		}
	})
}

// markNamespaceTerminating sets status.phase Terminating on a Namespace being deleted.
func markNamespaceTerminating(obj scheme.Object) error {
	return UpdateNamespace(obj, func(_, status map[string]any) { status["phase"] = NamespacePhaseTerminating })
}

// immortalNamespaces may not be deleted, as kube-apiserver's lifecycle admission says.
var immortalNamespaces = []string{"default", "kube-system", "kube-public"}

// isNamespaces reports whether the call is on the namespaces resource.
func (o *op) isNamespaces() bool { return o.gr == namespacesGR }

// LabelNamespaceName is the label kube-apiserver gives every Namespace, its name
// (k8s.io/api core/v1 LabelMetadataName), which namespaceSelectors select on.
const LabelNamespaceName = "kubernetes.io/metadata.name"

// labelWithName sets a named Namespace's kubernetes.io/metadata.name label to its name,
// as kube's Namespace defaulting does when it is decoded (before admission) and its
// strategy's Canonicalize after (for a generated name, and a label admission changed).
func labelWithName(in scheme.Object) {
	name := in.GetName()
	if name == "" || in.GetLabels()[LabelNamespaceName] == name {
		return
	}
	labels := make(map[string]string, len(in.GetLabels())+1)
	for k, v := range in.GetLabels() {
		labels[k] = v
	}
	labels[LabelNamespaceName] = name
	in.SetLabels(labels)
}

// admitNamespaceDelete refuses to delete the namespaces kube-apiserver keeps forever.
func (o *op) admitNamespaceDelete(name string) error {
	if o.isNamespaces() && slices.Contains(immortalNamespaces, name) {
		return apierrors.NewForbidden(o.gr, name, errors.New("this namespace may not be deleted"))
	}
	return nil
}

// PendingFinalizers reports whether an object of resource gr being deleted must stay:
// it has finalizers, or it is a Namespace with spec.finalizers.
func PendingFinalizers(gr scheme.GroupResource, obj scheme.Object) (bool, error) {
	if len(obj.GetFinalizers()) > 0 {
		return true, nil
	}
	if gr != namespacesGR {
		return false, nil
	}
	fields, err := NamespaceFields(obj)
	return len(fields.Finalizers) > 0, err
}

// errNamespaceFinalizing is kube's answer to a delete of a Terminating namespace that
// still has spec.finalizers.
const errNamespaceFinalizing = "The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system."

// servesNamespaces reports whether namespaces are objects of their own (the scheme has
// the namespaces resource) rather than implicit.
func (s *Store) servesNamespaces() bool {
	_, ok := s.scheme.Resource(namespacesGR)
	return ok
}

// admitNamespacedCreate refuses a create in a namespace that does not exist (404
// namespaces "x" not found) or is being terminated (403, with kube's cause), like
// NamespaceLifecycle admission. Without a namespaces resource every namespace exists.
func (o *op) admitNamespacedCreate(ctx context.Context, obj scheme.Object) error {
	ns := obj.GetNamespace()
	if !o.res.Namespaced || ns == "" || !o.s.servesNamespaces() {
		return nil
	}
	cur, err := o.s.store.Get(ctx, storage.Key(namespacesGR, "", ns), storage.GetOptions{})
	if errors.Is(err, storage.ErrNotFound) {
		return apierrors.NewNotFound(namespacesGR, ns)
	}
	if err != nil {
		return o.s.toStatus(err, namespacesGR, ns)
	}
	fields, err := NamespaceFields(cur)
	if err != nil {
		return err
	}
	if fields.Phase != NamespacePhaseTerminating {
		return nil
	}
	st := apierrors.NewForbidden(o.gr, obj.GetName(), fmt.Errorf("unable to create new content in namespace %s because it is being terminated", ns))
	st.Details.Causes = append(st.Details.Causes, scheme.StatusCause{
		Type:    NamespaceTerminatingCause,
		Message: fmt.Sprintf("namespace %s is being terminated", ns),
		Field:   "metadata.namespace",
	})
	return st
}

// EnsureNamespaceMatches reconciles obj's metadata.namespace with the request's, as
// kube-apiserver does on every write before admission and again before validation
// (EnsureObjectNamespaceMatchesRequestNamespace, BeforeCreate, BeforeUpdate): a
// cluster-scoped object keeps no namespace, a namespaced one without a namespace takes
// the request's, and a namespaced one with a different namespace is 400 BadRequest.
// Validation's Forbidden "not allowed on this type" stays for callers of validation
// that skip this step.
func EnsureNamespaceMatches(requestNamespace string, namespaced bool, obj scheme.MetaAccessor) error {
	if !namespaced {
		requestNamespace = ""
	}
	switch got := obj.GetNamespace(); {
	case got == requestNamespace && got != "":
	case got == "" || requestNamespace == "":
		// Also when both are empty: a schema-only object may carry "namespace": "",
		// which kube's decoding of metadata drops.
		obj.SetNamespace(requestNamespace)
	default:
		return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	return nil
}

// ensureNamespace is EnsureNamespaceMatches for the Request's namespace and resource.
func (o *op) ensureNamespace(obj scheme.MetaAccessor) error {
	return EnsureNamespaceMatches(o.rq.Namespace, o.res.Namespaced, obj)
}
