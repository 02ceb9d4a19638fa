package registry

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/apikit-dev/apikit/authn"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// Strategy holds the optional per-resource hooks of one resource, in one of two forms:
//
//   - a [StrategyFor] value, whose hooks take the kind's own Go type so that the
//     compiler checks their signatures (the form to prefer);
//   - any other value with any subset of the methods below, found by type assertion.
//     New refuses a value with a method of a hook's name but another signature
//     (Validate(ctx, *Gadget) instead of Validate(ctx, scheme.Object)), which would
//     otherwise be ignored, and a value with none of them.
//
// Objects handed to a strategy are the INTERNAL (hub) version of the kind when the
// group has one, and are the request's own copies: a hook may change them.
//
//   - PrepareForCreate(ctx context.Context, obj scheme.Object) ([CreatePreparer]): after
//     the server has set uid, creationTimestamp, generation and namespace on a create.
//   - PrepareForUpdate(ctx context.Context, obj, old scheme.Object) ([UpdatePreparer]):
//     after the server has carried the stored fields over on an update.
//   - Validate(ctx context.Context, obj scheme.Object) validation.ErrorList
//     ([CreateValidator]): kind-specific checks of a new object; errors become a 422
//     Invalid Status together with the generic metadata checks.
//   - ValidateUpdate(ctx context.Context, obj, old scheme.Object) validation.ErrorList
//     ([UpdateValidator]): the same for an update.
//   - WarningsOnCreate(ctx context.Context, obj scheme.Object) []string and
//     WarningsOnUpdate(ctx context.Context, obj, old scheme.Object) []string
//     ([CreateWarner], [UpdateWarner]): messages returned as Warning headers.
//   - RespondToCreate(ctx context.Context, user *authn.User, obj scheme.Object) (scheme.Object, error)
//     ([CreateResponder]): the resource is create-only and answered without storage.
//   - AuthorizeCreate(ctx context.Context, obj scheme.Object) error and
//     AuthorizeUpdate(ctx context.Context, obj, old scheme.Object) error
//     ([CreateAuthorizer], [UpdateAuthorizer]): whether the requesting user may write
//     this object, beyond the verb the Handler's Authorizer allowed (kube's RBAC
//     escalation checks). They run after mutating admission and before validation, as
//     kube-apiserver runs its RBAC storage's checks, on every create and update,
//     including patch, server-side apply and dry runs. An error that is a
//     *scheme.Status is the answer as it is; any other is 403 Forbidden naming the
//     object, its text the reason. The hooks find the user with [authn.UserFrom], ask the
//     Handler's Authorizer with [authz.Authorize] and read stored objects with [Get] and [List].
//
// Whether a PUT may create a missing object is scheme.Resource.AllowCreateOnUpdate.
type Strategy interface{}

// StrategyFor is a Strategy whose hooks take T, the Go type of the objects the
// resource's hooks receive: the internal (hub) type when the group has one, else the
// kind's one version's type (*scheme.Unstructured for a schema-only kind). New refuses
// any other T. A nil field is a hook the resource does not use; the hooks mean what the
// methods of [Strategy] mean.
//
//	registry.StrategyFor[*hub.Gadget]{
//		Validate: func(ctx context.Context, g *hub.Gadget) validation.ErrorList { ... },
//	}
type StrategyFor[T scheme.Object] struct {
	PrepareForCreate func(ctx context.Context, obj T)
	PrepareForUpdate func(ctx context.Context, obj, old T)
	Validate         func(ctx context.Context, obj T) validation.ErrorList
	ValidateUpdate   func(ctx context.Context, obj, old T) validation.ErrorList
	WarningsOnCreate func(ctx context.Context, obj T) []string
	WarningsOnUpdate func(ctx context.Context, obj, old T) []string
	AuthorizeCreate  func(ctx context.Context, obj T) error
	AuthorizeUpdate  func(ctx context.Context, obj, old T) error
	// MetadataAfterValidate runs the generic metadata checks of a create only when
	// Validate finds nothing, as kube's rest.BeforeCreate does for a kind whose
	// validation leaves metadata out (PodDisruptionBudget): a 422 then lists the
	// kind's errors alone.
	MetadataAfterValidate bool
	// RequireResourceVersion refuses an update without metadata.resourceVersion (422
	// "must be specified for an update") instead of writing it unconditionally, as
	// kube's store does for a strategy whose AllowUnconditionalUpdate is false.
	RequireResourceVersion bool
	// AfterDelete runs once obj is removed from storage (a delete without pending
	// finalizers, or the update that removed the last one), not on a dry run: it
	// releases what the object reserved (Release), as kube's service storage releases
	// a deleted Service's cluster IPs and node ports in its AfterDelete.
	AfterDelete func(ctx context.Context, obj T)
	// DefaultGarbageCollectionPolicy, when set, returns for the version of a delete's
	// request what the delete does to the object's dependents when it names neither
	// propagationPolicy nor orphanDependents and the object has neither the orphan
	// nor the foregroundDeletion finalizer (kube's strategies'
	// DefaultGarbageCollectionPolicy: batch/v1 Jobs orphan theirs); "" or an unset hook
	// is DeleteDependents. GarbageCollectionUnsupported makes every delete ignore those
	// options (kube's Events).
	DefaultGarbageCollectionPolicy func(version string) GarbageCollectionPolicy
	// WarningsOnDelete returns the warnings of a delete or a deletecollection with
	// opts, once a request, before it runs (so that they come with its failure too),
	// as kube's Job storage warns that a delete without propagationPolicy keeps the
	// Job's pods. Dry runs warn alike.
	WarningsOnDelete func(ctx context.Context, opts *DeleteOptions) []string
	// Status, when set, is the strategy of writes to /status, as a kind in kube-apiserver
	// has a status strategy beside its own: such a write runs its PrepareForUpdate,
	// ValidateUpdate and WarningsOnUpdate instead of the ones above (its other hooks are
	// not used). Its PrepareForUpdate receives the request's object whole, before the
	// server carries the stored uid, timestamps, generation and status rules over, and
	// keeps of the stored object what the kind's status strategy keeps (kube's Deployment
	// keeps its spec and labels, and takes the request's annotations). Without it, a
	// write to /status keeps all of the stored object but its status and runs the hooks
	// above.
	Status *StrategyFor[T]
	// KeepStatusOnCreate keeps the status a create carries, as kube's Node strategy
	// does for the status a kubelet registers with; without it a kind with a status
	// subresource starts with none.
	KeepStatusOnCreate bool
	// Subresources are the strategies of writes to the parts of the object that the
	// resource's scheme.Resource.OtherSubresources serve with update (pods/resize): one
	// means for its subresource what Status means for /status. Such a subresource
	// without one here is not served (404).
	Subresources map[string]*StrategyFor[T]
	// Actions perform the creates on the subresources of
	// scheme.Resource.OtherSubresources served with create (pods/binding): a
	// subresource without one here is not served (404). An Action for "" makes the
	// resource create-only, each POST on its collection running it on the body's name
	// (kube's top-level bindings).
	Actions map[string]Action
	// Connectors answer the requests on the connect subresources of
	// scheme.Resource.OtherSubresources (those with ConnectMethods: pods/exec,
	// pods/log, nodes/proxy): a subresource without one here is not served (404).
	Connectors map[string]Connector
}

// typedStrategy is what every StrategyFor is, whatever its T.
type typedStrategy interface {
	objectType() reflect.Type
	hooks() hooks
}

func (s StrategyFor[T]) objectType() reflect.Type { return reflect.TypeFor[T]() }

// hooks wraps each hook in a function on scheme.Object; New has checked that the
// objects are of type T, so the assertions cannot fail.
func (s StrategyFor[T]) hooks() hooks {
	h := hooks{keepStatusOnCreate: s.KeepStatusOnCreate}
	if f := s.PrepareForCreate; f != nil {
		h.PrepareForCreate = func(ctx context.Context, obj scheme.Object) { f(ctx, obj.(T)) }
	}
	if f := s.PrepareForUpdate; f != nil {
		h.PrepareForUpdate = func(ctx context.Context, obj, old scheme.Object) { f(ctx, obj.(T), old.(T)) }
	}
	if f := s.Validate; f != nil {
		h.Validate = func(ctx context.Context, obj scheme.Object) validation.ErrorList { return f(ctx, obj.(T)) }
	}
	if f := s.ValidateUpdate; f != nil {
		h.ValidateUpdate = func(ctx context.Context, obj, old scheme.Object) validation.ErrorList {
			return f(ctx, obj.(T), old.(T))
		}
	}
	if f := s.WarningsOnCreate; f != nil {
		h.WarningsOnCreate = func(ctx context.Context, obj scheme.Object) []string { return f(ctx, obj.(T)) }
	}
	if f := s.WarningsOnUpdate; f != nil {
		h.WarningsOnUpdate = func(ctx context.Context, obj, old scheme.Object) []string { return f(ctx, obj.(T), old.(T)) }
	}
	if f := s.AuthorizeCreate; f != nil {
		h.AuthorizeCreate = func(ctx context.Context, obj scheme.Object) error { return f(ctx, obj.(T)) }
	}
	if f := s.AuthorizeUpdate; f != nil {
		h.AuthorizeUpdate = func(ctx context.Context, obj, old scheme.Object) error { return f(ctx, obj.(T), old.(T)) }
	}
	h.metadataAfterValidate, h.requireResourceVersion = s.MetadataAfterValidate, s.RequireResourceVersion
	h.defaultGarbageCollectionPolicy, h.warningsOnDelete = s.DefaultGarbageCollectionPolicy, s.WarningsOnDelete
	if f := s.AfterDelete; f != nil {
		h.AfterDelete = func(ctx context.Context, obj scheme.Object) { f(ctx, obj.(T)) }
	}
	if s.Status != nil {
		st := s.Status.hooks()
		h.status = &st
	}
	for name, sub := range s.Subresources {
		if sub == nil {
			continue
		}
		if h.subresources == nil {
			h.subresources = make(map[string]*hooks, len(s.Subresources))
		}
		sh := sub.hooks()
		h.subresources[name] = &sh
	}
	for name, a := range s.Actions {
		if a == nil {
			continue
		}
		if h.actions == nil {
			h.actions = make(map[string]Action, len(s.Actions))
		}
		h.actions[name] = a
	}
	for name, c := range s.Connectors {
		if c == nil {
			continue
		}
		if h.connectors == nil {
			h.connectors = make(map[string]Connector, len(s.Connectors))
		}
		h.connectors[name] = c
	}
	return h
}

// hooks are the hooks of one resource, resolved once by resolveStrategy from either
// form of Strategy; a nil hook is not used. Each means what the method of the same name
// of [Strategy] means.
type hooks struct {
	PrepareForCreate func(ctx context.Context, obj scheme.Object)
	PrepareForUpdate func(ctx context.Context, obj, old scheme.Object)
	Validate         func(ctx context.Context, obj scheme.Object) validation.ErrorList
	ValidateUpdate   func(ctx context.Context, obj, old scheme.Object) validation.ErrorList
	WarningsOnCreate func(ctx context.Context, obj scheme.Object) []string
	WarningsOnUpdate func(ctx context.Context, obj, old scheme.Object) []string
	AuthorizeCreate  func(ctx context.Context, obj scheme.Object) error
	AuthorizeUpdate  func(ctx context.Context, obj, old scheme.Object) error
	AfterDelete      func(ctx context.Context, obj scheme.Object)
	// respondToCreate makes the resource create-only and storage-free (virtual.go).
	RespondToCreate func(ctx context.Context, user *authn.User, obj scheme.Object) (scheme.Object, error)
	// status are the hooks of writes to /status (StrategyFor.Status); nil means these.
	status *hooks
	// keepStatusOnCreate is StrategyFor.KeepStatusOnCreate.
	keepStatusOnCreate bool
	// subresources are those of writes to the other subresources (StrategyFor.Subresources).
	subresources map[string]*hooks
	// actions are the creates on subresources (StrategyFor.Actions).
	actions map[string]Action
	// connectors answer the connect subresources (StrategyFor.Connectors).
	connectors map[string]Connector
	// metadataAfterValidate and requireResourceVersion are StrategyFor's.
	metadataAfterValidate, requireResourceVersion bool
	// defaultGarbageCollectionPolicy is StrategyFor.DefaultGarbageCollectionPolicy.
	defaultGarbageCollectionPolicy func(version string) GarbageCollectionPolicy
	// warningsOnDelete is StrategyFor.WarningsOnDelete.
	warningsOnDelete func(ctx context.Context, opts *DeleteOptions) []string
}

// forUpdate returns the hooks an update of the subresource runs: those of the status
// strategy on /status when there is one, else h.
func (h *hooks) forUpdate(subresource string) *hooks {
	if subresource == "status" && h.status != nil {
		return h.status
	}
	if sh, ok := h.subresources[subresource]; ok {
		return sh
	}
	return h
}

// hookMethods are the method names a Strategy value is searched for, with the
// interface that gives each its signature.
var hookMethods = []struct {
	name  string
	iface reflect.Type
}{
	{"PrepareForCreate", reflect.TypeFor[CreatePreparer]()},
	{"PrepareForUpdate", reflect.TypeFor[UpdatePreparer]()},
	{"Validate", reflect.TypeFor[CreateValidator]()},
	{"ValidateUpdate", reflect.TypeFor[UpdateValidator]()},
	{"WarningsOnCreate", reflect.TypeFor[CreateWarner]()},
	{"WarningsOnUpdate", reflect.TypeFor[UpdateWarner]()},
	{"RespondToCreate", reflect.TypeFor[CreateResponder]()},
	{"AuthorizeCreate", reflect.TypeFor[CreateAuthorizer]()},
	{"AuthorizeUpdate", reflect.TypeFor[UpdateAuthorizer]()},
}

// resolveStrategy returns the hooks of the strategy of resource res, refusing the
// mistakes that would otherwise leave a hook silently unused.
func resolveStrategy(s *scheme.Scheme, res *scheme.Resource, st Strategy) (hooks, error) {
	gr := res.GroupResource()
	if ts, ok := st.(typedStrategy); ok {
		want := hookObjectTypes(s, res)
		got := ts.objectType()
		for _, w := range want {
			if w != got && (got.Kind() != reflect.Interface || !w.Implements(got)) {
				return hooks{}, fmt.Errorf("registry: the strategy of %s is a StrategyFor[%s], but its hooks receive %s objects: use StrategyFor[%s]", gr, got, w, w)
			}
		}
		return ts.hooks(), nil
	}
	t := reflect.TypeOf(st)
	if t == nil {
		return hooks{}, fmt.Errorf("registry: the strategy of %s is nil", gr)
	}
	found := false
	for _, m := range hookMethods {
		method, ok := t.MethodByName(m.name)
		if !ok {
			continue
		}
		if !t.Implements(m.iface) {
			want, _ := m.iface.MethodByName(m.name)
			return hooks{}, fmt.Errorf("registry: the strategy of %s (%s) has %s, which is not the hook %s: it would never be called; use registry.StrategyFor[%s] for hooks that take the kind's own type",
				gr, t, signature(m.name, method.Type, 1), signature(m.name, want.Type, 0), typeNames(hookObjectTypes(s, res)))
		}
		found = true
	}
	if !found {
		why := ""
		for _, m := range hookMethods {
			if _, ok := reflect.PointerTo(t).MethodByName(m.name); ok && t.Kind() != reflect.Pointer {
				why = fmt.Sprintf(" (its %s has a pointer receiver: pass a *%s)", m.name, t)
				break
			}
		}
		return hooks{}, fmt.Errorf("registry: the strategy of %s (%s) has none of the hook methods PrepareForCreate, PrepareForUpdate, Validate, ValidateUpdate, WarningsOnCreate, WarningsOnUpdate, RespondToCreate, AuthorizeCreate, AuthorizeUpdate%s", gr, t, why)
	}
	var h hooks
	if p, ok := st.(CreatePreparer); ok {
		h.PrepareForCreate = p.PrepareForCreate
	}
	if p, ok := st.(UpdatePreparer); ok {
		h.PrepareForUpdate = p.PrepareForUpdate
	}
	if v, ok := st.(CreateValidator); ok {
		h.Validate = v.Validate
	}
	if v, ok := st.(UpdateValidator); ok {
		h.ValidateUpdate = v.ValidateUpdate
	}
	if w, ok := st.(CreateWarner); ok {
		h.WarningsOnCreate = w.WarningsOnCreate
	}
	if w, ok := st.(UpdateWarner); ok {
		h.WarningsOnUpdate = w.WarningsOnUpdate
	}
	if c, ok := st.(CreateResponder); ok {
		h.RespondToCreate = c.RespondToCreate
	}
	if a, ok := st.(CreateAuthorizer); ok {
		h.AuthorizeCreate = a.AuthorizeCreate
	}
	if a, ok := st.(UpdateAuthorizer); ok {
		h.AuthorizeUpdate = a.AuthorizeUpdate
	}
	return h, nil
}

// hookObjectTypes returns the Go types of the objects a resource's hooks receive: the
// internal (hub) type when the group has one, else the type of each served version.
func hookObjectTypes(s *scheme.Scheme, res *scheme.Resource) []reflect.Type {
	typeOf := func(gvk scheme.GroupVersionKind) reflect.Type {
		if t, ok := s.TypeFor(gvk); ok {
			return reflect.PointerTo(t)
		}
		return reflect.TypeFor[*scheme.Unstructured]()
	}
	hub := res.GroupKind().WithVersion(scheme.InternalVersion)
	if s.Recognizes(hub) {
		return []reflect.Type{typeOf(hub)}
	}
	var out []reflect.Type
	for _, v := range s.ServedVersions(res) {
		if t := typeOf(res.GroupKind().WithVersion(v)); !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// signature formats a method type as "Name(context.Context, *v1.Gadget) validation.ErrorList",
// skipping the first skip parameters (the receiver of a method expression).
func signature(name string, t reflect.Type, skip int) string {
	var b strings.Builder
	b.WriteString(name + "(")
	for i := skip; i < t.NumIn(); i++ {
		if i > skip {
			b.WriteString(", ")
		}
		b.WriteString(t.In(i).String())
	}
	b.WriteString(")")
	for i := range t.NumOut() {
		b.WriteString(" " + t.Out(i).String())
	}
	return b.String()
}

// typeNames joins type names with " or ".
func typeNames(ts []reflect.Type) string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.String()
	}
	return strings.Join(names, " or ")
}

// CreatePreparer is the optional Strategy method that adjusts a new object.
type CreatePreparer interface {
	PrepareForCreate(ctx context.Context, obj scheme.Object)
}

// UpdatePreparer is the optional Strategy method that adjusts an updated object.
type UpdatePreparer interface {
	PrepareForUpdate(ctx context.Context, obj, old scheme.Object)
}

// CreateValidator is the optional Strategy method that validates a new object.
type CreateValidator interface {
	Validate(ctx context.Context, obj scheme.Object) validation.ErrorList
}

// UpdateValidator is the optional Strategy method that validates an update.
type UpdateValidator interface {
	ValidateUpdate(ctx context.Context, obj, old scheme.Object) validation.ErrorList
}

// CreateWarner is the optional Strategy method that returns warnings for a new object.
type CreateWarner interface {
	WarningsOnCreate(ctx context.Context, obj scheme.Object) []string
}

// UpdateWarner is the optional Strategy method that returns warnings for an update.
type UpdateWarner interface {
	WarningsOnUpdate(ctx context.Context, obj, old scheme.Object) []string
}

// CreateAuthorizer is the optional Strategy method that decides whether the requesting
// user may create an object (see [Strategy]).
type CreateAuthorizer interface {
	AuthorizeCreate(ctx context.Context, obj scheme.Object) error
}

// UpdateAuthorizer is the optional Strategy method that decides whether the requesting
// user may make an update (see [Strategy]).
type UpdateAuthorizer interface {
	AuthorizeUpdate(ctx context.Context, obj, old scheme.Object) error
}

// CreateResponder is the optional Strategy method of a create-only resource that is
// answered without storage, like kube-apiserver's SelfSubjectReview, TokenReview and
// SubjectAccessReview: a POST to the collection decodes the body, calls
// RespondToCreate with the authenticated user, and answers 201 Created with the object
// it returns (converted to the request's version); nothing is stored, and a returned
// error is the response (a *scheme.Status keeps its code). As in kube-apiserver, the
// collection answers other methods with 405 MethodNotAllowed and items do not exist
// (404).
type CreateResponder interface {
	RespondToCreate(ctx context.Context, user *authn.User, obj scheme.Object) (scheme.Object, error)
}
