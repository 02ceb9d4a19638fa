package policy

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	apikitcorev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/cel/internal/kubeadmission"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
)

// write is one write as the policies see it: the request for matching, the objects at
// the versions policies ask for, the namespace.
type write struct {
	request
	ctx        context.Context
	s          *scheme.Scheme
	obj, old   scheme.Object // internal versions; nil where the operation has none
	attrs      admission.Attributes
	deniedName string

	versions map[schema.GroupVersionKind]*admission.VersionedAttributes

	nsDone bool
	ns     *corev1.Namespace
	nsErr  error
}

// optionsKinds are the kinds of the options kube's admission attributes carry.
var optionsKinds = map[registry.Operation]string{
	registry.OperationCreate: "CreateOptions",
	registry.OperationUpdate: "UpdateOptions",
	registry.OperationDelete: "DeleteOptions",
}

func newWrite(ctx context.Context, a registry.AdmissionAttributes, obj scheme.Object) (*write, error) {
	w := &write{ctx: ctx, s: a.Scheme, versions: map[schema.GroupVersionKind]*admission.VersionedAttributes{}}
	w.obj, w.old = obj, a.OldObject
	if a.Operation == registry.OperationDelete {
		w.obj = nil
		if w.old == nil {
			w.old = obj
		}
	}
	version := a.APIVersion
	if version == "" {
		version = a.Kind.Version
	}
	w.operation = string(a.Operation)
	w.resource = schema.GroupVersionResource{Group: a.APIGroup, Version: version, Resource: a.Resource}
	w.subresource = a.Subresource
	w.kind = schema.GroupVersionKind{Group: a.Kind.Group, Version: a.Kind.Version, Kind: a.Kind.Kind}
	w.name = a.Name
	if w.name == "" && obj != nil && obj.GetGenerateName() == "" {
		w.name = obj.GetName()
	}
	w.deniedName = a.ObjectName(obj)
	if w.deniedName == "" {
		w.deniedName = "Unknown"
	}
	w.namespace = a.Namespace
	if a.APIGroup == "" && a.Resource == "namespaces" {
		// kube's handlers give a Namespace's writes its own name as namespace.
		w.namespace = w.name
	}
	w.namespaceLabels = w.loadNamespaceLabels
	if res, ok := a.Scheme.Resource(scheme.GroupResource{Group: a.APIGroup, Resource: a.Resource}); ok {
		for _, v := range a.Scheme.ServedVersions(res) {
			if v != version {
				w.equivalents = append(w.equivalents, equivalent{
					resource: schema.GroupVersionResource{Group: a.APIGroup, Version: v, Resource: a.Resource},
					kind:     schema.GroupVersionKind{Group: a.Kind.Group, Version: v, Kind: a.Kind.Kind},
				})
			}
		}
	}
	va, err := w.versioned(w.kind)
	if err != nil {
		return nil, err
	}
	if o, ok := va.VersionedObject.Object().(*unstructured.Unstructured); ok && o != nil {
		w.objectLabels = nonNil(o.GetLabels())
	}
	if o, ok := va.VersionedOldObject.Object().(*unstructured.Unstructured); ok && o != nil {
		w.oldObjectLabels = nonNil(o.GetLabels())
	}
	w.attrs = admission.NewAttributesRecord(va.VersionedObject.Object(), va.VersionedOldObject.Object(), w.kind, w.namespace, w.name, w.resource, w.subresource,
		admission.Operation(a.Operation), optionsObject(a), a.DryRun, kubeadmission.UserInfo(a.User))
	va.Attributes = w.attrs
	return w, nil
}

func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

func optionsObject(a registry.AdmissionAttributes) runtime.Object {
	m := map[string]any{"apiVersion": "meta.k8s.io/v1", "kind": optionsKinds[a.Operation]}
	if a.DryRun {
		m["dryRun"] = []any{"All"}
	}
	return &unstructured.Unstructured{Object: m}
}

// versioned returns the write's attributes with its objects at kind's version.
func (w *write) versioned(kind schema.GroupVersionKind) (*admission.VersionedAttributes, error) {
	if va := w.versions[kind]; va != nil {
		return va, nil
	}
	gv := scheme.GroupVersion{Group: kind.Group, Version: kind.Version}
	obj, err := w.external(w.obj, gv)
	if err != nil {
		return nil, err
	}
	old, err := w.external(w.old, gv)
	if err != nil {
		return nil, err
	}
	va := &admission.VersionedAttributes{Attributes: w.attrs, VersionedKind: kind}
	if obj != nil {
		va.VersionedObject.Set(obj)
	}
	if old != nil {
		va.VersionedOldObject.Set(old)
	}
	w.versions[kind] = va
	return va, nil
}

// external is obj at gv as an unstructured object, nil for nil.
func (w *write) external(obj scheme.Object, gv scheme.GroupVersion) (runtime.Object, error) {
	if obj == nil {
		return nil, nil
	}
	ext, err := conversion.ObjectToVersion(w.s, obj, gv)
	if err != nil {
		return nil, err
	}
	m, err := conversion.ToUnstructured(ext)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: m}
	if u.GetAPIVersion() == "" || u.GetKind() == "" {
		kinds, err := w.s.ObjectKinds(ext)
		if err == nil && len(kinds) > 0 {
			u.SetAPIVersion(gv.String())
			u.SetKind(kinds[0].Kind)
		}
	}
	return u, nil
}

// loadNamespaceLabels returns the labels of the write's namespace.
func (w *write) loadNamespaceLabels() (map[string]string, error) {
	ns, err := w.namespaceObj()
	if err != nil {
		return nil, err
	}
	return ns.Labels, nil
}

// namespaceObj reads the write's namespace once.
func (w *write) namespaceObj() (*corev1.Namespace, error) {
	if !w.nsDone {
		w.nsDone = true
		w.ns, w.nsErr = w.readNamespace(w.namespace)
	}
	return w.ns, w.nsErr
}

func (w *write) readNamespace(name string) (*corev1.Namespace, error) {
	o, err := registry.Get(w.ctx, apikitcorev1.Namespaces, "", name)
	if err != nil {
		return nil, err
	}
	u, err := w.external(o, scheme.GroupVersion{Version: "v1"})
	if err != nil {
		return nil, err
	}
	ns := &corev1.Namespace{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.(*unstructured.Unstructured).Object, ns); err != nil {
		return nil, err
	}
	return ns, nil
}

// namespaceObject is the namespaceObject variable: nil for cluster-scoped writes and
// for a Namespace itself.
func (w *write) namespaceObject(ctx context.Context) (*corev1.Namespace, error) {
	if w.namespace == "" || (w.kind.Group == "" && w.kind.Version == "v1" && w.kind.Kind == "Namespace") {
		return nil, nil
	}
	return w.namespaceObj()
}

// paramKind resolves a policy's paramKind to its kind and resource, as kube's policy
// source does (its error is the policy's configuration error).
func (w *write) paramKind(pk *admissionregistrationv1.ParamKind) (schema.GroupVersionKind, *scheme.Resource, error) {
	if pk == nil {
		return schema.GroupVersionKind{}, nil, nil
	}
	gv, err := schema.ParseGroupVersion(pk.APIVersion)
	if err != nil {
		return schema.GroupVersionKind{}, nil, fmt.Errorf("failed to parse paramKind APIVersion: %w", err)
	}
	gvk := gv.WithKind(pk.Kind)
	res, ok := w.s.ResourceFor(scheme.GroupKind{Group: gvk.Group, Kind: gvk.Kind})
	if ok {
		ok = false
		for _, v := range w.s.ServedVersions(res) {
			ok = ok || v == gvk.Version
		}
	}
	if !ok {
		return gvk, nil, fmt.Errorf("failed to find resource referenced by paramKind: '%v'", gvk)
	}
	return gvk, res, nil
}

// collectParams is kube's CollectParams: the params a binding selects, [nil] when the
// policy or the binding has none.
func (w *write) collectParams(ctx context.Context, pk *admissionregistrationv1.ParamKind, gvk schema.GroupVersionKind, res *scheme.Resource, ref *admissionregistrationv1.ParamRef) ([]runtime.Object, error) {
	if pk == nil || ref == nil {
		return []runtime.Object{nil}, nil
	}
	namespace := ""
	if res.Namespaced {
		namespace = w.namespace
		if ref.Namespace != "" {
			namespace = ref.Namespace
		} else if namespace == "" {
			return nil, errors.New("cannot use namespaced paramRef in policy binding that matches cluster-scoped resources")
		}
	} else if ref.Namespace != "" {
		return nil, errors.New("paramRef.namespace must not be provided for a cluster-scoped `paramKind`")
	}
	gr := scheme.GroupResource{Group: res.Group, Resource: res.Plural}
	gv := scheme.GroupVersion{Group: gvk.Group, Version: gvk.Version}
	var params []runtime.Object
	switch {
	case ref.Name != "":
		if ref.Selector != nil {
			return nil, errors.New("paramRef.name and paramRef.selector are mutually exclusive")
		}
		o, err := registry.Get(ctx, gr, namespace, ref.Name)
		var st *scheme.Status
		switch {
		case err == nil:
			p, err := w.external(o, gv)
			if err != nil {
				return nil, err
			}
			params = []runtime.Object{p}
		case errors.As(err, &st) && st.Reason == scheme.StatusReasonNotFound:
		default:
			return nil, err
		}
	case ref.Selector != nil:
		sel, err := metav1.LabelSelectorAsSelector(ref.Selector)
		if err != nil {
			return nil, err
		}
		objs, err := registry.List(ctx, gr, namespace)
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			if !sel.Matches(labels.Set(o.GetLabels())) {
				continue
			}
			p, err := w.external(o, gv)
			if err != nil {
				return nil, err
			}
			params = append(params, p)
		}
	default:
		return nil, errors.New("one of name or selector must be provided")
	}
	if len(params) == 0 && ref.ParameterNotFoundAction != nil && *ref.ParameterNotFoundAction == admissionregistrationv1.DenyAction {
		return nil, errors.New("no params found for policy binding with `Deny` parameterNotFoundAction")
	}
	return params, nil
}
