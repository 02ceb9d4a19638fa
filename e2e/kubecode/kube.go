package kubecode

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/admission"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/apps"
	_ "k8s.io/kubernetes/pkg/apis/apps/install" // apps/v1 conversion, defaulting, declarative validation
	api "k8s.io/kubernetes/pkg/apis/core"
	_ "k8s.io/kubernetes/pkg/apis/core/install" // core/v1 likewise
	"k8s.io/kubernetes/pkg/capabilities"
	"k8s.io/kubernetes/pkg/registry/apps/controllerrevision"
	"k8s.io/kubernetes/pkg/registry/apps/daemonset"
	"k8s.io/kubernetes/pkg/registry/apps/deployment"
	"k8s.io/kubernetes/pkg/registry/apps/replicaset"
	"k8s.io/kubernetes/pkg/registry/apps/statefulset"
	"k8s.io/kubernetes/pkg/registry/core/pod"
	"k8s.io/kubernetes/pkg/registry/core/podtemplate"
	"k8s.io/kubernetes/plugin/pkg/admission/defaulttolerationseconds"
)

// optimisticLockErrorMsg is k8s.io/apiserver's registry.OptimisticLockErrorMsg (that
// package is not imported: it pulls in the etcd storage).
const optimisticLockErrorMsg = "the object has been modified; please apply your changes to the latest version and try again"

// Strategy is what kube's generic registry store calls on a create and an update: the
// kind's registry strategy (pkg/registry/<group>/<kind>.Strategy).
type Strategy interface {
	rest.RESTCreateStrategy
	rest.RESTUpdateStrategy
}

// Kind is one built-in kind as kube-apiserver serves it: its served version, its resource
// and the registry strategy its store runs. Adding a kind is one entry of Kinds.
type Kind struct {
	// GVK is the served (and, for these kinds, storage) version of the kind.
	GVK schema.GroupVersionKind
	// Resource is the plural resource name, as in the request's RequestInfo.
	Resource string
	// Strategy is the kind's registry strategy.
	Strategy Strategy
	// Admission are the mutating admission plugins of kube-apiserver's default set that
	// change objects of the kind without reading other objects (the handler runs them
	// before the store's create and update). Those that read other objects (Priority,
	// LimitRanger, ...) are not run: see the intended differences of the tests.
	Admission []admission.MutationInterface
}

// kube-apiserver's --allow-privileged, which envtest sets (controller-runtime's
// envtest starts kube-apiserver with --allow-privileged=true): without it, a
// privileged container is "Forbidden: disallowed by cluster policy".
func init() {
	capabilities.Setup(true, 0)
}

// Kinds are the kinds this package covers, by Kind name: apps/v1 and the core/v1 pod
// kinds.
var Kinds = map[string]Kind{
	"Deployment":         {schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, "deployments", deployment.Strategy, nil},
	"StatefulSet":        {schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "StatefulSet"}, "statefulsets", statefulset.Strategy, nil},
	"DaemonSet":          {schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "DaemonSet"}, "daemonsets", daemonset.Strategy, nil},
	"ReplicaSet":         {schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "ReplicaSet"}, "replicasets", replicaset.Strategy, nil},
	"ControllerRevision": {schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "ControllerRevision"}, "controllerrevisions", controllerrevision.Strategy, nil},
	"Pod":                {schema.GroupVersionKind{Group: "", Version: "v1", Kind: "Pod"}, "pods", pod.Strategy, []admission.MutationInterface{defaultTolerationSeconds()}},
	"PodTemplate":        {schema.GroupVersionKind{Group: "", Version: "v1", Kind: "PodTemplate"}, "podtemplates", podtemplate.Strategy, nil},
	// PodResize is a Pod whose updates go through pods/resize (UpdateSubresource): its
	// creates are the Pod's (ResizeStrategy embeds the pod strategy).
	"PodResize": {schema.GroupVersionKind{Group: "", Version: "v1", Kind: "Pod"}, "pods", pod.ResizeStrategy, []admission.MutationInterface{defaultTolerationSeconds()}},
}

// UpdateSubresource names the subresource a kind's updates are sent to, for the kinds
// of Kinds that stand for a subresource's writes.
var UpdateSubresource = map[string]string{"PodResize": "resize"}

// defaultTolerationSeconds is kube's DefaultTolerationSeconds admission plugin with its
// default 300 s tolerations of not-ready and unreachable nodes.
func defaultTolerationSeconds() admission.MutationInterface {
	p := defaulttolerationseconds.NewDefaultTolerationSeconds()
	p.InspectFeatureGates(utilfeature.DefaultFeatureGate)
	if err := p.ValidateInitialization(); err != nil {
		panic(err)
	}
	return p
}

// admit runs the kind's mutating admission on obj (old is nil on a create).
func admit(ctx context.Context, k Kind, obj, old runtime.Object, m metav1.Object, op admission.Operation, opts runtime.Object) error {
	if len(k.Admission) == 0 {
		return nil
	}
	gvr := k.GVK.GroupVersion().WithResource(k.Resource)
	a := admission.NewAttributesRecord(obj, old, k.GVK, m.GetNamespace(), m.GetName(), gvr, "", op, opts, false, nil)
	for _, p := range k.Admission {
		if !p.Handles(op) {
			continue
		}
		if err := p.Admit(ctx, a, nil); err != nil {
			return err
		}
	}
	return nil
}

// The internal types are named so that a build without one of the install packages fails
// here rather than at run time.
var (
	_ = apps.Deployment{}
	_ = api.Pod{}
)

// Cause is one cause of a 422 Invalid Status, with the field.Error it came from.
type Cause struct {
	// Type, Field and Message are the StatusCause kube-apiserver sends
	// (metav1.StatusCause; Message is field.Error.ErrorBody()).
	Type    string `json:"reason"`
	Field   string `json:"field"`
	Message string `json:"message"`
	// Detail is field.Error.Detail, the part of Message after the value.
	Detail string `json:"-"`
}

// Result is what the apiserver answers: the stored object, or the refusal.
type Result struct {
	// Object is the stored object encoded as v1 JSON (nil when refused).
	Object []byte
	// Code is the HTTP status: 201 for a create, 200 for an update, 422 for Invalid,
	// 400 for a body that does not decode, 500 for anything else.
	Code int
	// Reason and Message are the Status's reason and message when refused.
	Reason  metav1.StatusReason
	Message string
	// Causes are the 422's causes in the order kube reports them.
	Causes []Cause
}

// SortedCauses returns the causes sorted by field, type and message, for comparisons that
// do not depend on the order validators ran in.
func (r Result) SortedCauses() []Cause {
	c := append([]Cause(nil), r.Causes...)
	sort.Slice(c, func(i, j int) bool {
		if c[i].Field != c[j].Field {
			return c[i].Field < c[j].Field
		}
		if c[i].Type != c[j].Type {
			return c[i].Type < c[j].Type
		}
		return c[i].Message < c[j].Message
	})
	return c
}

// Server holds the state a create needs from the store: the clock, the uid and
// resourceVersion counters. Its zero value is ready; a fixed Now makes results
// reproducible.
type Server struct {
	// Now is the creationTimestamp of created objects (time.Now when zero).
	Now time.Time
	rv  atomic.Uint64
	uid atomic.Uint64
}

func (s *Server) now() metav1.Time {
	if s.Now.IsZero() {
		return metav1.Now()
	}
	return metav1.NewTime(s.Now)
}

func lookup(kind string) (Kind, error) {
	k, ok := Kinds[kind]
	if !ok {
		return Kind{}, fmt.Errorf("kubecode: kind %q is not covered", kind)
	}
	return k, nil
}

// requestContext is the context the apiserver's handler chain gives the store: the
// request's namespace and RequestInfo (declarative validation reads the version from it).
func requestContext(k Kind, namespace, name, verb string) context.Context {
	ctx := genericapirequest.WithNamespace(context.Background(), namespace)
	return genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{
		IsResourceRequest: true,
		Verb:              verb,
		APIPrefix:         apiPrefix(k.GVK.Group),
		APIGroup:          k.GVK.Group,
		APIVersion:        k.GVK.Version,
		Namespace:         namespace,
		Resource:          k.Resource,
		Name:              name,
	})
}

func apiPrefix(group string) string {
	if group == "" {
		return "api"
	}
	return "apis"
}

// decode decodes a v1 JSON body to the internal version with kube's legacy codec, which
// defaults the versioned object before converting it (as the apiserver's decoder does).
// Field validation is not run (the request's fieldValidation is not part of this).
//
// A body that does not decode is the handler's 400 BadRequest, worded as its
// transformDecodeError words it: "<kind> in version "<v>" cannot be handled as a <kind>:
// <the decoder's error>" when the body names its kind.
func decode(k Kind, body []byte) (runtime.Object, error) {
	internal := schema.GroupVersion{Group: k.GVK.Group, Version: runtime.APIVersionInternal}
	dec := legacyscheme.Codecs.UniversalDecoder(internal)
	def := k.GVK
	obj, gvk, err := dec.Decode(body, &def, nil)
	if err != nil {
		if gvk != nil && gvk.Kind != "" {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", gvk.Kind, gvk.Version, k.GVK.Kind, err))
		}
		return nil, apierrors.NewBadRequest(err.Error())
	}
	return obj, nil
}

// encode encodes an internal object as the v1 JSON kube stores and returns.
func encode(k Kind, obj runtime.Object) ([]byte, error) {
	return runtime.Encode(legacyscheme.Codecs.LegacyCodec(k.GVK.GroupVersion()), obj)
}

// refusal turns an error of the create or update into a Result the way the apiserver's
// handler writes it: a StatusError as its Status, a decode error as 400 BadRequest.
func refusal(err error, errs field.ErrorList) Result {
	var status metav1.Status
	if se, ok := err.(apierrors.APIStatus); ok {
		status = se.Status()
	} else {
		status = apierrors.NewInternalError(err).Status()
	}
	r := Result{Code: int(status.Code), Reason: status.Reason, Message: status.Message}
	if status.Details != nil {
		for i, c := range status.Details.Causes {
			cause := Cause{Type: string(c.Type), Field: c.Field, Message: c.Message}
			if i < len(errs) && errs[i].Field == c.Field {
				cause.Detail = errs[i].Detail
			}
			r.Causes = append(r.Causes, cause)
		}
	}
	return r
}

func badRequest(err error) Result {
	return refusal(err, nil)
}

// Create runs kube-apiserver's create of body (v1 JSON of kind) in namespace ("" for a
// cluster-scoped kind): decode and default, fill the system metadata (uid,
// creationTimestamp), then what rest.BeforeCreate does: the namespace check,
// PrepareForCreate, rest.ValidateCreate (strategy.Validate, metadata validation,
// declarative validation), Canonicalize; then the stored object gets its
// resourceVersion.
func (s *Server) Create(kind, namespace string, body []byte) (Result, error) {
	k, err := lookup(kind)
	if err != nil {
		return Result{}, err
	}
	obj, err := decode(k, body)
	if err != nil {
		return badRequest(err), nil
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return Result{}, err
	}
	ctx := requestContext(k, namespace, m.GetName(), "create")
	// The create handler's mutating admission, before the store.
	if err := admit(ctx, k, obj, nil, m, admission.Create, &metav1.CreateOptions{}); err != nil {
		return refusal(err, nil), nil
	}
	// The store's Create: system fields, then a generated name.
	rest.FillObjectMetaSystemFields(m)
	m.SetUID(types.UID(fmt.Sprintf("kube-uid-%d", s.uid.Add(1))))
	m.SetCreationTimestamp(s.now())
	if m.GetGenerateName() != "" && m.GetName() == "" {
		m.SetName(k.Strategy.GenerateName(m.GetGenerateName()))
	}
	// rest.BeforeCreate, step by step so that the field.ErrorList is at hand.
	if err := rest.EnsureObjectNamespaceMatchesRequestNamespace(rest.ExpectedNamespaceForScope(namespace, k.Strategy.NamespaceScoped()), m); err != nil {
		return refusal(err, nil), nil
	}
	k.Strategy.PrepareForCreate(ctx, obj)
	if errs := rest.ValidateCreate(ctx, obj, k.Strategy); len(errs) > 0 {
		return refusal(apierrors.NewInvalid(k.GVK.GroupKind(), m.GetName(), errs), errs), nil
	}
	k.Strategy.Canonicalize(obj)
	m.SetResourceVersion(strconv.FormatUint(s.rv.Add(1), 10))
	out, err := encode(k, obj)
	if err != nil {
		return Result{}, err
	}
	return Result{Object: out, Code: 201}, nil
}

// Update runs kube-apiserver's update of the stored object old (v1 JSON, as Create
// returned it) to body (v1 JSON): decode and default both, then what the store's Update
// and rest.BeforeUpdate do: the namespace check, generation kept from old,
// PrepareForUpdate, uid and creationTimestamp kept from old, rest.ValidateUpdate
// (metadata update validation, strategy.ValidateUpdate, declarative validation),
// Canonicalize; the stored object gets a new resourceVersion. A body without a
// resourceVersion is an unconditional update (all these kinds allow it).
func (s *Server) Update(kind, namespace string, old, body []byte) (Result, error) {
	k, err := lookup(kind)
	if err != nil {
		return Result{}, err
	}
	oldObj, err := decode(k, old)
	if err != nil {
		return Result{}, fmt.Errorf("kubecode: the stored object does not decode: %w", err)
	}
	obj, err := decode(k, body)
	if err != nil {
		return badRequest(err), nil
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return Result{}, err
	}
	oldMeta, err := meta.Accessor(oldObj)
	if err != nil {
		return Result{}, err
	}
	// The update handler puts the object in the request's namespace, or refuses
	// another one, before its checkName (whose namespace branch that leaves unreachable).
	if err := rest.EnsureObjectNamespaceMatchesRequestNamespace(rest.ExpectedNamespaceForScope(namespace, k.Strategy.NamespaceScoped()), m); err != nil {
		return refusal(err, nil), nil
	}
	// The update handler's checkName: the URL names the stored object.
	name := oldMeta.GetName()
	if m.GetName() != name {
		return refusal(apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", m.GetName(), name)), nil), nil
	}
	if namespace != "" && m.GetNamespace() != "" && m.GetNamespace() != namespace {
		return refusal(apierrors.NewBadRequest(fmt.Sprintf("the namespace of the object (%s) does not match the namespace on the request (%s)", m.GetNamespace(), namespace)), nil), nil
	}
	ctx := requestContext(k, namespace, name, "update")
	gr := schema.GroupResource{Group: k.GVK.Group, Resource: k.Resource}
	// The body's uid is a precondition (rest.DefaultUpdatedObjectInfo), checked by
	// GuaranteedUpdate against the stored object; its failure is a storage error the
	// store turns into 409 Conflict.
	if uid := m.GetUID(); uid != "" && uid != oldMeta.GetUID() {
		key := "/registry/" + k.Resource + "/" + namespace + "/" + name
		return refusal(apierrors.NewConflict(gr, name, storage.NewInvalidObjError(key,
			fmt.Sprintf("Precondition failed: UID in precondition: %v, UID in object meta: %v", uid, oldMeta.GetUID()))), nil), nil
	}
	// The store's Update: a body without a resourceVersion is an unconditional update
	// where the strategy allows one (it then gets the stored one), else 422; one with
	// another resourceVersion is a conflict.
	switch rv := m.GetResourceVersion(); {
	case rv == "" && k.Strategy.AllowUnconditionalUpdate(ctx):
		m.SetResourceVersion(oldMeta.GetResourceVersion())
	case rv == "":
		errs := field.ErrorList{field.Invalid(field.NewPath("metadata").Child("resourceVersion"), int64(0), "must be specified for an update")}
		return refusal(apierrors.NewInvalid(schema.GroupKind{Group: gr.Group, Kind: gr.Resource}, name, errs), errs), nil
	case rv != oldMeta.GetResourceVersion():
		return refusal(apierrors.NewConflict(gr, name, errors.New(optimisticLockErrorMsg)), nil), nil
	}
	// The update's mutating admission, in the store's read-modify-write before
	// rest.BeforeUpdate.
	if err := admit(ctx, k, obj, oldObj, m, admission.Update, &metav1.UpdateOptions{}); err != nil {
		return refusal(err, nil), nil
	}
	m.SetGeneration(oldMeta.GetGeneration())
	k.Strategy.PrepareForUpdate(ctx, obj, oldObj)
	if m.GetUID() == "" {
		m.SetUID(oldMeta.GetUID())
	}
	if t := oldMeta.GetCreationTimestamp(); !t.IsZero() {
		m.SetCreationTimestamp(t)
	}
	if errs := rest.ValidateUpdate(ctx, obj, oldObj, k.Strategy); len(errs) > 0 {
		return refusal(apierrors.NewInvalid(k.GVK.GroupKind(), m.GetName(), errs), errs), nil
	}
	k.Strategy.Canonicalize(obj)
	m.SetResourceVersion(strconv.FormatUint(s.rv.Add(1), 10))
	out, err := encode(k, obj)
	if err != nil {
		return Result{}, err
	}
	return Result{Object: out, Code: 200}, nil
}

// DefaultValidate is the work of a create without storage or metadata bookkeeping:
// decode with defaulting, PrepareForCreate, validation. It is the kube side of
// BenchmarkPodDefaultValidate.
func DefaultValidate(kind, namespace string, body []byte) (field.ErrorList, error) {
	k, err := lookup(kind)
	if err != nil {
		return nil, err
	}
	obj, err := decode(k, body)
	if err != nil {
		return nil, err
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	ctx := requestContext(k, namespace, m.GetName(), "create")
	k.Strategy.PrepareForCreate(ctx, obj)
	return rest.ValidateCreate(ctx, obj, k.Strategy), nil
}
