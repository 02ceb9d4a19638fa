package registry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"time"

	"github.com/apikit-dev/apikit/conversion"

	"github.com/apikit-dev/apikit/apierrors"
	"github.com/apikit-dev/apikit/authn"
	"github.com/apikit-dev/apikit/authz"
	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/codec/standard"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/validation/structural"
)

// Options configure a Store. Scheme and Storage are required; every other field has a
// useful zero value.
type Options struct {
	// Scheme holds the kinds and resources whose objects the Store keeps.
	Scheme *scheme.Scheme
	// Storage is the one store of every resource; keys come from
	// storage.Key(groupResource, namespace, name).
	Storage storage.Interface
	// Strategies are optional per-resource hooks; see Strategy for the methods looked for.
	Strategies map[scheme.GroupResource]Strategy
	// MutatingAdmission run, in order, on every create, update and delete after the
	// Store has set its fields and before validation.
	MutatingAdmission []MutatingAdmission
	// ValidatingAdmission run, in order, after validation and before storage.
	ValidatingAdmission []ValidatingAdmission
	// GarbageCollection says a garbage collector (package controllers) runs over
	// Storage: a delete then sets the finalizers of propagationPolicy as kube-apiserver
	// does (orphan, foregroundDeletion) and leaves dependents to the collector. Without
	// it the Store orphans dependents itself and Foreground behaves like Background.
	GarbageCollection bool
	// Clock returns the time the Store records (creationTimestamp, deletionTimestamp);
	// nil means the real time.
	Clock func() time.Time
	// Rules compiles the CEL validation rules (x-kubernetes-validations) of the schemas
	// registered with openapi.Register for schema-only kinds; with Rules nil, New
	// refuses a schema that has rules rather than ignore them.
	Rules structural.RuleCompiler
	// MaxObjectBytes bounds the JSON size of a stored object, as etcd's request limit
	// bounds kube-apiserver's: an object over it is stored without its managedFields if
	// that makes it fit, and refused otherwise with kube's answer (500, "etcdserver:
	// request is too large"). It also bounds what a schema's defaults may add to one
	// object. 0 or less means no bound.
	MaxObjectBytes int64
	// JSON encodes objects as they are measured against MaxObjectBytes and the depth a
	// list or Table of them can carry; nil means the JSON serializer of
	// codec/standard.Serializers(Scheme).
	JSON codec.Serializer
	// Logger receives the storage failures that are not the client's fault; nil
	// discards them.
	Logger *slog.Logger
}

// Store is the lifecycle of the objects of a scheme over one storage.Interface, without
// HTTP: every call takes a context (carrying the user, authn.WithUser) and a Request
// naming the resource, and fails with a *scheme.Status, as kube's registry fails with
// StatusErrors. It holds nothing to release.
type Store struct {
	opts   Options
	scheme *scheme.Scheme
	store  storage.Interface
	log    *slog.Logger
	// hooks are the resolved Strategies by resource.
	hooks map[scheme.GroupResource]*hooks
	// schemas are the compiled schemas of schema-only kinds registered with
	// openapi.Register, by kind and version.
	schemas map[scheme.GroupVersionKind]*Schema
	// json measures stored objects (Options.JSON).
	json codec.Serializer
}

// New returns the Store of opts. It fails when Scheme or Storage is missing, when a
// Strategy names a resource the scheme lacks or would not be called as its author
// meant (see Strategy and StrategyFor), and when the schema registered for a
// schema-only kind (openapi.Register) is not structural or has CEL rules without
// Options.Rules.
func New(opts Options) (*Store, error) {
	if opts.Scheme == nil {
		return nil, errors.New("registry: Options.Scheme is required")
	}
	if opts.Storage == nil {
		return nil, errors.New("registry: Options.Storage is required")
	}
	s := &Store{opts: opts, scheme: opts.Scheme, store: opts.Storage, log: opts.Logger, json: opts.JSON}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.json == nil {
		s.json, _ = codec.CodecsOf(standard.Serializers(opts.Scheme)...).ForMediaType(codec.MediaTypeJSON)
	}
	for gr := range opts.Strategies {
		if _, ok := opts.Scheme.Resource(gr); !ok {
			return nil, fmt.Errorf("registry: strategy for unknown resource %s", gr)
		}
	}
	s.hooks = make(map[scheme.GroupResource]*hooks, len(opts.Strategies))
	for _, res := range opts.Scheme.Resources() {
		st, ok := opts.Strategies[res.GroupResource()]
		if !ok {
			continue
		}
		h, err := resolveStrategy(opts.Scheme, res, st)
		if err != nil {
			return nil, err
		}
		s.hooks[res.GroupResource()] = &h
	}
	schemas, err := compileSchemas(opts.Scheme, opts.Rules)
	if err != nil {
		return nil, err
	}
	s.schemas = schemas
	return s, nil
}

// Resource returns the resource gr of the Store's scheme, for a Request.
func (s *Store) Resource(gr scheme.GroupResource) (*scheme.Resource, bool) {
	return s.scheme.Resource(gr)
}

// WithStorage returns a Store like s over store, a decorator of s's storage (one that
// records metrics, say), with s's strategies and schemas.
func (s *Store) WithStorage(store storage.Interface) *Store {
	c := *s
	c.store = store
	return &c
}

// noHooks are the hooks of a resource without a Strategy.
var noHooks hooks

// hooksOf returns the resolved strategy hooks of a resource, never nil.
func (s *Store) hooksOf(gr scheme.GroupResource) *hooks {
	if h, ok := s.hooks[gr]; ok {
		return h
	}
	return &noHooks
}

// RespondsToCreate reports whether resource gr is create-only and answered without
// storage: its Strategy is a CreateResponder (see Store.RespondToCreate).
func (s *Store) RespondsToCreate(gr scheme.GroupResource) bool {
	return s.hooksOf(gr).RespondToCreate != nil
}

// Request is what one call of the lifecycle is about besides its object: the resource
// and the request's namespace, version and subresource, as the HTTP layer parsed them,
// and the options of a write.
type Request struct {
	// Resource is the resource of the objects. A resource the Store's scheme does not
	// hold (a custom resource the garbage collector found) is kept at its own storage
	// keys, its objects left unconverted.
	Resource *scheme.Resource
	// Namespace is the request's namespace; ignored for a cluster-scoped resource.
	Namespace string
	// Version is the request's version, the kind admission is told of; "" means the
	// version objects are stored at.
	Version string
	// Subresource is "" or the subresource written ("status", "scale", "finalize").
	Subresource string
	// DryRun runs every step of a write but the write itself (dryRun=All).
	DryRun bool
	// Attributes are the request's attributes as authorization saw them, which
	// admission is given (with the name of each object); nil means those of a
	// request of the context's user on the resource.
	Attributes *authz.Attributes
	// FieldManager is the manager a create or update records in the object's
	// metadata.managedFields (the fieldManager parameter, or the User-Agent's prefix).
	FieldManager string
	// ServerSideApply says the write is a server-side apply, whose managedFields the
	// apply computed: an object over Options.MaxObjectBytes is then refused rather than
	// stored without them.
	ServerSideApply bool
	// Warnings collects the warnings of strategies (WarningsOnCreate,
	// WarningsOnUpdate); nil drops them. A retried update drops those of its earlier
	// tries, as well as those its update function added.
	Warnings *[]string
}

// op is one call on its way through the lifecycle: the Request resolved against the
// scheme.
type op struct {
	s   *Store
	rq  Request
	res *scheme.Resource
	gr  scheme.GroupResource
	// stored is the resource whose storage keys the objects have: gr's own, or those of
	// the resource it shares storage with.
	stored scheme.GroupResource
	gvk    scheme.GroupVersionKind
	hooks  *hooks
}

func (s *Store) op(rq Request) *op {
	res := rq.Resource
	o := &op{s: s, rq: rq, res: res, gr: res.GroupResource(), stored: s.scheme.StorageResource(res).GroupResource(), hooks: s.hooksOf(res.GroupResource())}
	version := rq.Version
	if version == "" {
		version = s.scheme.StorageVersion(res)
	}
	o.gvk = res.GroupKind().WithVersion(version)
	return o
}

// key is the storage key of the object name.
func (o *op) key(name string) string {
	if !o.res.Namespaced {
		return storage.Key(o.stored, "", name)
	}
	return storage.Key(o.stored, o.rq.Namespace, name)
}

// attributes are the admission attributes of an operation on the object name.
func (o *op) attributes(ctx context.Context, verb, name string) authz.Attributes {
	var a authz.Attributes
	if o.rq.Attributes != nil {
		a = *o.rq.Attributes
	} else {
		user, _ := authn.UserFrom(ctx)
		a = authz.Attributes{User: user, Verb: verb, Namespace: o.rq.Namespace, APIGroup: o.gr.Group, APIVersion: o.gvk.Version,
			Resource: o.gr.Resource, Subresource: o.rq.Subresource, ResourceRequest: true}
		if !o.res.Namespaced {
			a.Namespace = ""
		}
	}
	a.Name = name
	return a
}

// DefaultsBudget is how many bytes a schema's defaults may add to one object:
// Options.MaxObjectBytes, since an object they grow by more cannot be stored, and
// building it is the memory and time the limit is there to bound.
func (s *Store) DefaultsBudget() int64 {
	if s.opts.MaxObjectBytes <= 0 {
		return math.MaxInt64
	}
	return s.opts.MaxObjectBytes
}

// Create runs the create lifecycle on obj, the internal version of a new object (as
// decoded and defaulted, its namespace the request's): managedFields for
// rq.FieldManager, the server's fields (uid,
// creationTimestamp, generation, a generated name), the namespace rules, the
// strategy's PrepareForCreate, mutating admission, the strategy's AuthorizeCreate,
// validation (422 Invalid), the strategy's warnings and validating admission; then the
// object is stored at the storage version, unless rq.DryRun. It returns the stored
// object at rq.Version.
func (s *Store) Create(ctx context.Context, rq Request, obj scheme.Object) (scheme.Object, error) {
	o := s.op(rq)
	return o.createObject(withCall(ctx, o, "create", ""), obj)
}

// UpdateFunc computes the new internal object of an update from old, the stored one
// at the internal version (pruned and defaulted as a read gives it, the function's own
// copy), or nil when there is none. It may run more than once, when the stored object
// changed under it.
type UpdateFunc func(ctx context.Context, old scheme.Object) (scheme.Object, error)

// Update is the read-modify-write of every update, like k8s.io/apiserver's
// UpdatedObjectInfo: update computes the new object, whose changes are recorded in its
// managedFields for rq.FieldManager (unless rq.ServerSideApply, which records them
// itself), and which runs through the update
// lifecycle (the stored fields carried over, the status rules of the subresource, the
// generation, the strategy, admission, validation) or, when nothing is stored and
// allowCreate is set, through Create's, and is stored unless rq.DryRun. An update that
// removes the last finalizer of an object being deleted deletes it. It returns the
// result at rq.Version and whether it was created.
func (s *Store) Update(ctx context.Context, rq Request, name string, allowCreate bool, update UpdateFunc) (obj scheme.Object, created bool, err error) {
	o := s.op(rq)
	return o.updateObject(withCall(ctx, o, "update", name), name, allowCreate, update)
}

// RespondToCreate answers a create of a resource whose Strategy is a CreateResponder,
// which nothing is stored for: the hook's answer at rq's version. A resource without
// one is 405 MethodNotSupported.
func (s *Store) RespondToCreate(ctx context.Context, rq Request, user *authn.User, obj scheme.Object) (scheme.Object, error) {
	o := s.op(rq)
	if o.hooks.RespondToCreate == nil {
		return nil, apierrors.NewMethodNotSupported(o.gr, "create")
	}
	answer, err := o.hooks.RespondToCreate(withCall(ctx, o, "create", ""), user, obj)
	if err != nil {
		return nil, err
	}
	return conversion.ObjectToVersion(s.scheme, answer, o.gvk.GroupVersion())
}
