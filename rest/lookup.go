package rest

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/apikit-dev/apikit/apierrors"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/validation"
)

// handlerKey is the context key of the Handler serving a request, for Get and List.
type handlerKey struct{}

// errNoHandler is what Get and List answer outside a request a Handler serves.
var errNoHandler = errors.New("rest: no Handler in the context: Get and List read only within a request a Handler serves")

// Get reads the stored object name of resource gr in namespace ("" for a cluster-scoped
// resource) for a strategy hook, from the storage of the Handler serving ctx's request:
// a most recent read, as a GET without resourceVersion makes it, so a hook sees every
// write completed before it (kube's RBAC storage reads its roles so, not through an
// informer that may lag). The object is the caller's own, as the Handler's hooks
// receive objects: the internal (hub) version when the group has one, else the version
// it is stored at. A missing object, or one of a resource the Handler does not serve,
// is kube's 404 NotFound Status (`roles.rbac.authorization.k8s.io "x" not found`); no
// namespace for a namespaced resource, no name or a name that is not one path segment
// is kube's 400 ("Namespace parameter required."). Outside a request the Handler
// serves, Get fails.
func Get(ctx context.Context, gr scheme.GroupResource, namespace, name string) (scheme.Object, error) {
	h, res, err := handlerFor(ctx, gr)
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
	obj, err := h.store.Get(ctx, storage.Key(h.scheme.StorageResource(res).GroupResource(), namespace, name), storage.GetOptions{})
	if err != nil {
		return nil, h.toStatus(err, gr, name)
	}
	return h.forHooks(obj, res)
}

// List reads every stored object of resource gr in namespace ("" for all namespaces,
// or a cluster-scoped resource) for a strategy hook, as Get reads one: a most recent
// read, the objects the caller's own, in key order. A resource the Handler does not
// serve has none.
func List(ctx context.Context, gr scheme.GroupResource, namespace string) ([]scheme.Object, error) {
	h, res, err := handlerFor(ctx, gr)
	if err != nil || res == nil {
		return nil, err
	}
	if !res.Namespaced {
		namespace = ""
	}
	prefix := storage.Prefix(h.scheme.StorageResource(res).GroupResource(), namespace)
	var out []scheme.Object
	opts := storage.ListOptions{}
	for {
		page, err := h.store.List(ctx, prefix, opts)
		if err != nil {
			return nil, h.toStatus(err, gr, "")
		}
		for _, item := range page.Items {
			obj, err := h.forHooks(item, res)
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

// handlerFor returns the Handler serving ctx's request and its resource gr (nil when it
// serves no such resource).
func handlerFor(ctx context.Context, gr scheme.GroupResource) (*Handler, *scheme.Resource, error) {
	h, ok := ctx.Value(handlerKey{}).(*Handler)
	if !ok || h == nil {
		return nil, nil, errNoHandler
	}
	res, ok := h.scheme.Resource(gr)
	if !ok {
		return h, nil, nil
	}
	return h, res, nil
}

// forHooks returns a stored object (the caller's own) as strategy hooks receive the
// objects of res: coerced by its schema, as a read gives it, in res's own group (when
// it shares storage with another) and converted to the internal version when there is
// one.
func (h *Handler) forHooks(obj scheme.Object, res *scheme.Resource) (scheme.Object, error) {
	if err := h.coerce(obj); err != nil {
		return nil, h.defaultsTooLargeOnRead(obj)
	}
	version := h.scheme.StorageVersion(res)
	if served := h.scheme.ServedVersions(res); len(served) > 0 && h.scheme.StorageResource(res) != res {
		version = served[0]
	}
	out, err := h.toInternal(obj, res.GroupKind().WithVersion(version))
	if err != nil {
		return nil, h.toStatus(err, res.GroupResource(), obj.GetName())
	}
	return out, nil
}
