package rest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/codec/cbor"
	"github.com/apikit-dev/apikit/codec/protobuf"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/validation"
)

// DefaultMaxRequestBodyBytes is the request body limit when Options.MaxRequestBodyBytes
// is zero: 3 MiB, like kube-apiserver.
const DefaultMaxRequestBodyBytes = 3 << 20

// Options configure a Handler. Scheme and Storage are required; every other field has a
// useful zero value.
type Options struct {
	// Scheme holds the kinds and resources to serve.
	Scheme *scheme.Scheme
	// Storage is the one store of every resource; keys come from
	// storage.Key(groupResource, namespace, name).
	Storage storage.Interface
	// Strategies are optional per-resource hooks; see Strategy for the methods looked for.
	Strategies map[scheme.GroupResource]Strategy
	// Authenticator tells who sent a request; nil treats everyone as "system:anonymous"
	// (group "system:unauthenticated").
	Authenticator Authenticator
	// Authorizer decides whether a request may proceed; nil allows everything.
	Authorizer Authorizer
	// MutatingAdmission run, in order, on every create, update and delete after the
	// server has set its fields and before validation.
	MutatingAdmission []MutatingAdmission
	// ValidatingAdmission run, in order, after validation and before storage.
	ValidatingAdmission []ValidatingAdmission
	// MaxRequestBodyBytes limits request bodies (413 RequestEntityTooLarge beyond it);
	// 0 means DefaultMaxRequestBodyBytes.
	MaxRequestBodyBytes int64
	// Logger receives errors that are not the client's fault (500s, recovered panics);
	// nil discards them.
	Logger *slog.Logger
	// DisableCBOR turns off application/cbor request and response bodies (and
	// application/cbor-seq watches), like kube-apiserver without its
	// CBORServingAndStorage feature: CBOR bodies are then 415 and CBOR-only Accept
	// headers 406. CBOR is served by default.
	DisableCBOR bool
	// Discovery serves /api, /apis, /apis/GROUP, /apis/GROUP/VERSION, /version and
	// /openapi/...; package rest/discovery builds it. nil answers those paths with 404.
	Discovery http.Handler
}

// Strategy holds the optional per-resource hooks of one resource. The Handler looks for
// the methods below by type assertion; a strategy implements any subset of them. Objects
// handed to a strategy are the INTERNAL (hub) version of the kind when the group has
// one, and are the request's own copies: a hook may change them.
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
//
// Whether a PUT may create a missing object is scheme.Resource.AllowCreateOnUpdate.
type Strategy interface{}

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

// User is who sent a request, as an Authenticator established it.
type User struct {
	Name   string
	UID    string
	Groups []string
	Extra  map[string][]string
}

// Anonymous is the user of requests when no Authenticator is configured.
var Anonymous = User{Name: "system:anonymous", Groups: []string{"system:unauthenticated"}}

// Authenticator establishes who sent a request. It returns ok=false when the request
// carries no acceptable credentials (401 Unauthorized) and an error when it cannot tell
// (also 401, the error is logged).
type Authenticator interface {
	Authenticate(r *http.Request) (user *User, ok bool, err error)
}

// Attributes describe a request to an Authorizer, like kube's authorizer.Attributes.
type Attributes struct {
	User *User
	// Verb is the API verb (get, list, watch, create, update, patch, delete,
	// deletecollection) for resource requests, the lowercased HTTP method otherwise.
	Verb        string
	Namespace   string
	APIGroup    string
	APIVersion  string
	Resource    string
	Subresource string
	Name        string
	// Path is the URL path.
	Path string
	// ResourceRequest is false for non-resource paths (/healthz, /version, /apis, ...).
	ResourceRequest bool
}

// Authorizer decides whether a request may proceed. Deny answers 403 Forbidden with
// kube's message, reason appended; an error answers 500... unless allowed is true.
type Authorizer interface {
	Authorize(ctx context.Context, a Attributes) (allowed bool, reason string, err error)
}

// Operation is what an admission plugin is asked about.
type Operation string

// The operations admission sees.
const (
	OperationCreate Operation = "CREATE"
	OperationUpdate Operation = "UPDATE"
	OperationDelete Operation = "DELETE"
)

// AdmissionAttributes describe one write to admission plugins.
type AdmissionAttributes struct {
	Attributes
	// Kind is the kind of the object at the request's version.
	Kind scheme.GroupVersionKind
	// Operation is CREATE, UPDATE (also for patch and subresource writes) or DELETE.
	Operation Operation
	// OldObject is the stored object (internal version) for UPDATE and DELETE, else nil.
	OldObject scheme.Object
	// DryRun is true when nothing will be stored (dryRun=All): plugins with side effects
	// must not perform them.
	DryRun bool
}

// MutatingAdmission may change an object before it is validated and stored. obj is the
// internal version (nil for DELETE). A returned *scheme.Status is sent as is; any other
// error becomes 403 Forbidden.
type MutatingAdmission interface {
	Admit(ctx context.Context, a AdmissionAttributes, obj scheme.Object) error
}

// ValidatingAdmission accepts or rejects a validated object before it is stored, without
// changing it. obj is the internal version (for DELETE, the stored object). A returned
// *scheme.Status is sent as is; any other error becomes 403 Forbidden.
type ValidatingAdmission interface {
	Validate(ctx context.Context, a AdmissionAttributes, obj scheme.Object) error
}

// Handler serves the Kubernetes-style REST API of a scheme over a storage.Interface. It
// implements http.Handler.
type Handler struct {
	opts    Options
	scheme  *scheme.Scheme
	store   storage.Interface
	codecs  *codec.Codecs
	log     *slog.Logger
	maxBody int64
}

// New returns the Handler of opts. It fails when Scheme or Storage is missing.
func New(opts Options) (*Handler, error) {
	if opts.Scheme == nil {
		return nil, errors.New("rest: Options.Scheme is required")
	}
	if opts.Storage == nil {
		return nil, errors.New("rest: Options.Storage is required")
	}
	h := &Handler{
		opts:    opts,
		scheme:  opts.Scheme,
		store:   opts.Storage,
		codecs:  newCodecs(opts),
		log:     opts.Logger,
		maxBody: opts.MaxRequestBodyBytes,
	}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	if h.maxBody <= 0 {
		h.maxBody = DefaultMaxRequestBodyBytes
	}
	for gr := range opts.Strategies {
		if _, ok := opts.Scheme.Resource(gr); !ok {
			return nil, fmt.Errorf("rest: strategy for unknown resource %s", gr)
		}
	}
	return h, nil
}

// newCodecs returns the serializers a Handler speaks, in kube-apiserver's order of
// preference: JSON, YAML, protobuf, CBOR (unless disabled).
func newCodecs(opts Options) *codec.Codecs {
	extra := []codec.Serializer{protobuf.New(opts.Scheme)}
	if !opts.DisableCBOR {
		extra = append(extra, cbor.New(opts.Scheme))
	}
	return codec.NewCodecs(opts.Scheme, extra...)
}

// ServeHTTP serves one request.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.serve(w, r)
}

type ctxKey int

const (
	requestInfoKey ctxKey = iota
	userKey
)

// RequestInfo is what the Handler parsed from a request's method, path and query.
type RequestInfo struct {
	// IsResourceRequest is true for paths under /api/v1 and /apis/GROUP/VERSION that name
	// a resource.
	IsResourceRequest bool
	// Path is the URL path.
	Path string
	// Verb is get, list, watch, create, update, patch, delete or deletecollection for
	// resource requests, the lowercased HTTP method otherwise.
	Verb string
	// APIPrefix is "api" or "apis" for resource requests.
	APIPrefix   string
	APIGroup    string
	APIVersion  string
	Namespace   string
	Resource    string
	Subresource string
	Name        string
	// Parts are the path segments after the group version (without a "watch" prefix).
	Parts []string
}

// WithRequestInfo returns a context carrying info.
func WithRequestInfo(ctx context.Context, info *RequestInfo) context.Context {
	return context.WithValue(ctx, requestInfoKey, info)
}

// RequestInfoFrom returns the RequestInfo the Handler put in a request's context.
func RequestInfoFrom(ctx context.Context) (*RequestInfo, bool) {
	info, ok := ctx.Value(requestInfoKey).(*RequestInfo)
	return info, ok
}

// WithUser returns a context carrying user.
func WithUser(ctx context.Context, user *User) context.Context {
	return context.WithValue(ctx, userKey, user)
}

// UserFrom returns the authenticated user the Handler put in a request's context.
func UserFrom(ctx context.Context) (*User, bool) {
	u, ok := ctx.Value(userKey).(*User)
	return u, ok
}
