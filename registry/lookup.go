package registry

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/apikit-dev/apikit/authz"

	"github.com/apikit-dev/apikit/conversion"

	"github.com/apikit-dev/apikit/apierrors"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/validation"
)

// callKey is the context key of the call of a Store that runs a strategy hook.
type callKey struct{}

// call is what a strategy hook may ask of the call that runs it: the Store, for Get
// and List, and the request's attributes, for AttributesFrom.
type call struct {
	store *Store
	attrs authz.Attributes
	warn  func(texts ...string) // the Request's warnings (AddWarning)
}

// errNoStore is what Get and List answer outside a call of a Store.
var errNoStore = errors.New("registry: no Store in the context: Get and List read only within the strategy hooks a Store calls")

// withCall is ctx for the strategy hooks of o, a verb on the object name ("" for a
// create by POST and a deletecollection, as the request's URL names none): they may
// read with Get and List and ask AttributesFrom.
func withCall(ctx context.Context, o *op, verb, name string) context.Context {
	c := &call{store: o.s, warn: o.warn}
	if o.rq.Attributes != nil {
		c.attrs = *o.rq.Attributes
	} else {
		c.attrs = o.attributes(ctx, verb, name)
	}
	return context.WithValue(ctx, callKey{}, c)
}

// AttributesFrom returns, to a strategy hook, the attributes of the request whose write
// runs it, as authorization saw them (those the Store was given in Request.Attributes,
// else those of the context's user on the Request's resource): RBAC's escalation check
// asks whether the user may escalate the role the request's URL names, as kube's reads
// the RequestInfo. Outside a Store's call it answers false.
func AttributesFrom(ctx context.Context) (authz.Attributes, bool) {
	c, ok := ctx.Value(callKey{}).(*call)
	if !ok || c == nil {
		return authz.Attributes{}, false
	}
	return c.attrs, true
}

// Get reads the stored object name of resource gr in namespace ("" for a cluster-scoped
// resource) for a strategy hook, from the storage of the Store whose call runs the hook:
// a most recent read, as a GET without resourceVersion makes it, so a hook sees every
// write completed before it (kube's RBAC storage reads its roles so, not through an
// informer that may lag). The object is the caller's own, as the Store's hooks
// receive objects: the internal (hub) version when the group has one, else the version
// it is stored at. A missing object, or one of a resource the Store does not keep,
// is kube's 404 NotFound Status (`roles.rbac.authorization.k8s.io "x" not found`); no
// namespace for a namespaced resource, no name or a name that is not one path segment
// is kube's 400 ("Namespace parameter required."). Outside a call of a Store, Get
// fails.
func Get(ctx context.Context, gr scheme.GroupResource, namespace, name string) (scheme.Object, error) {
	st, res, err := storeFor(ctx, gr)
	if err != nil {
		return nil, err
	}
	if res == nil {
		return nil, apierrors.NewNotFound(gr, name)
	}
	// As kube-apiserver's registry builds a storage key: a namespace, a name, one path
	// segment (a name cannot reach another object's key).
	if !res.Namespaced {
		namespace = ""
	} else if namespace == "" {
		return nil, apierrors.NewBadRequest("Namespace parameter required.")
	}
	if name == "" {
		return nil, apierrors.NewBadRequest("Name parameter required.")
	}
	if msgs := validation.IsPathSegmentName(name); len(msgs) > 0 {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("Name parameter invalid: %q: %s", name, strings.Join(msgs, ";")))
	}
	obj, err := st.store.Get(ctx, storage.Key(st.scheme.StorageResource(res).GroupResource(), namespace, name), storage.GetOptions{})
	if err != nil {
		return nil, st.toStatus(err, gr, name)
	}
	return st.forHooks(obj, res)
}

// List reads every stored object of resource gr in namespace ("" for all namespaces,
// or a cluster-scoped resource) for a strategy hook, as Get reads one: a most recent
// read, the objects the caller's own, in key order. A resource the Store does not keep
// has none.
func List(ctx context.Context, gr scheme.GroupResource, namespace string) ([]scheme.Object, error) {
	st, res, err := storeFor(ctx, gr)
	if err != nil || res == nil {
		return nil, err
	}
	if !res.Namespaced {
		namespace = ""
	}
	prefix := storage.Prefix(st.scheme.StorageResource(res).GroupResource(), namespace)
	var out []scheme.Object
	opts := storage.ListOptions{}
	for {
		page, err := st.store.List(ctx, prefix, opts)
		if err != nil {
			return nil, st.toStatus(err, gr, "")
		}
		for _, item := range page.Items {
			obj, err := st.forHooks(item, res)
			if err != nil {
				return nil, err
			}
			out = append(out, obj)
		}
		if page.Continue == "" {
			return out, nil
		}
		opts.Continue = page.Continue
	}
}

// storeFor returns the Store of ctx's call and its resource gr (nil when it keeps no
// such resource).
func storeFor(ctx context.Context, gr scheme.GroupResource) (*Store, *scheme.Resource, error) {
	c, ok := ctx.Value(callKey{}).(*call)
	if !ok || c == nil {
		return nil, nil, errNoStore
	}
	st := c.store
	res, ok := st.scheme.Resource(gr)
	if !ok {
		return st, nil, nil
	}
	return st, res, nil
}

// forHooks returns a stored object (the caller's own) as strategy hooks receive the
// objects of res: coerced by its schema, as a read gives it, in res's own group (when
// it shares storage with another) and converted to the internal version when there is
// one.
func (st *Store) forHooks(obj scheme.Object, res *scheme.Resource) (scheme.Object, error) {
	if err := st.coerceRead(obj); err != nil {
		return nil, err
	}
	version := st.scheme.StorageVersion(res)
	if served := st.scheme.ServedVersions(res); len(served) > 0 && st.scheme.StorageResource(res) != res {
		version = served[0]
	}
	out, err := conversion.ObjectToInternal(st.scheme, obj, res.GroupKind().WithVersion(version))
	if err != nil {
		return nil, st.toStatus(err, res.GroupResource(), obj.GetName())
	}
	return out, nil
}

// UpdateStatus writes, for a hook, the status of the stored object name of resource gr
// in namespace through the Store whose call runs the hook, as a PUT to its status
// subresource: obj is the new object (internal version, with the status to store) and
// its resourceVersion a precondition, so that a write over a changed object is kube's
// 409 Conflict, which the caller answers by reading again. kube's ResourceQuota
// admission writes a quota's status.used so. Outside a call of a Store, it fails.
func UpdateStatus(ctx context.Context, gr scheme.GroupResource, namespace string, obj scheme.Object) (scheme.Object, error) {
	st, res, err := storeFor(ctx, gr)
	if err != nil {
		return nil, err
	}
	if res == nil || !res.StatusSubresource {
		return nil, apierrors.NewNotFound(gr, obj.GetName())
	}
	out, _, err := st.Update(ctx, Request{Resource: res, Namespace: namespace, Subresource: "status", FieldManager: "kube-apiserver"}, obj.GetName(), false,
		func(context.Context, scheme.Object) (scheme.Object, error) { return obj, nil })
	return out, err
}
