package authz

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"time"

	rbacv1 "github.com/apikit-dev/apikit/builtin/rbac/v1"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/watch"
)

// rbacResources are the resources RBAC follows, with a new object of each kind.
var rbacResources = []struct {
	gr  scheme.GroupResource
	new func() scheme.Object
}{
	{rbacv1.ClusterRoles, func() scheme.Object { return &rbacv1.ClusterRole{} }},
	{rbacv1.ClusterRoleBindings, func() scheme.Object { return &rbacv1.ClusterRoleBinding{} }},
	{rbacv1.Roles, func() scheme.Object { return &rbacv1.Role{} }},
	{rbacv1.RoleBindings, func() scheme.Object { return &rbacv1.RoleBinding{} }},
}

// rewatchDelay is how long WatchStorage waits before listing again after a watch
// ended or a list failed, so that a failing store is not asked in a tight loop.
const rewatchDelay = time.Second

// WatchStorage keeps r in sync with the rbac.authorization.k8s.io/v1 objects stored in
// store (served through rest when builtin.AddRBACToScheme registered them): lists, then
// watches, until ctx ends.
//
// It blocks: run it in a goroutine. It fails at once when s does not serve the four
// RBAC resources or the first list fails; afterwards a watch that ends (a 410 Gone
// after a long disconnection, a store error) is followed by a new list a second
// later, and WatchStorage returns ctx's error when ctx ends. Until the first list has
// been read, r keeps the rules it had (none for a new RBAC): a request is not allowed
// by rules the authorizer has not seen yet.
func (r *RBAC) WatchStorage(ctx context.Context, s *scheme.Scheme, store storage.Interface) error {
	prefixes := make([]string, len(rbacResources))
	for i, rr := range rbacResources {
		res, ok := s.Resource(rr.gr)
		if !ok {
			return fmt.Errorf("authz: the scheme does not serve %s; call builtin.AddRBACToScheme", rr.gr)
		}
		prefixes[i] = storage.Prefix(s.StorageResource(res).GroupResource(), "")
	}
	for first := true; ; first = false {
		objects, rvs, err := listRBAC(ctx, store, prefixes)
		if err == nil {
			err = r.Set(slices.Collect(maps.Values(objects))...)
		}
		if err == nil {
			err = r.follow(ctx, store, prefixes, rvs, objects)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if first && err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(rewatchDelay):
		}
	}
}

// listRBAC reads every RBAC object by storage key, and the version each list was read at.
func listRBAC(ctx context.Context, store storage.Interface, prefixes []string) (map[string]scheme.Object, []string, error) {
	objects := map[string]scheme.Object{}
	rvs := make([]string, len(prefixes))
	for i, prefix := range prefixes {
		opts := storage.ListOptions{}
		for {
			page, err := store.List(ctx, prefix, opts)
			if err != nil {
				return nil, nil, fmt.Errorf("authz: listing %s: %w", rbacResources[i].gr, err)
			}
			for _, item := range page.Items {
				obj, err := rbacObject(i, item)
				if err != nil {
					return nil, nil, err
				}
				objects[prefix+objectKey(obj)] = obj
			}
			rvs[i] = page.ResourceVersion
			if page.Continue == "" {
				break
			}
			opts.Continue = page.Continue
		}
	}
	return objects, rvs, nil
}

// rbacEvent is a watch event of the resource rbacResources[res].
type rbacEvent struct {
	res int
	ev  watch.Event
}

// follow applies the changes of the RBAC resources to objects and r from the versions
// rvs on, until a watch ends (an error) or ctx ends.
func (r *RBAC) follow(ctx context.Context, store storage.Interface, prefixes, rvs []string, objects map[string]scheme.Object) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events := make(chan rbacEvent)
	ended := make(chan error, len(prefixes))
	for i, prefix := range prefixes {
		w, err := store.Watch(ctx, prefix, storage.WatchOptions{ResourceVersion: rvs[i], Recursive: true})
		if err != nil {
			return fmt.Errorf("authz: watching %s: %w", rbacResources[i].gr, err)
		}
		go forward(ctx, i, w, events, ended)
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-ended:
			return err
		case e := <-events:
			if err := applyEvent(objects, prefixes, e); err != nil {
				return err
			}
			// Apply what else is waiting before rebuilding the rules once.
			for drained := false; !drained; {
				select {
				case e := <-events:
					if err := applyEvent(objects, prefixes, e); err != nil {
						return err
					}
				default:
					drained = true
				}
			}
			if err := r.Set(slices.Collect(maps.Values(objects))...); err != nil {
				return err
			}
		}
	}
}

// forward passes the events of w to events until w or ctx ends, then reports the end.
func forward(ctx context.Context, res int, w watch.Interface, events chan<- rbacEvent, ended chan<- error) {
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.ResultChan():
			if !ok {
				ended <- fmt.Errorf("authz: the watch of %s ended", rbacResources[res].gr)
				return
			}
			select {
			case events <- rbacEvent{res, ev}:
			case <-ctx.Done():
				return
			}
		}
	}
}

// applyEvent records one change in objects; an ERROR event ends the watch.
func applyEvent(objects map[string]scheme.Object, prefixes []string, e rbacEvent) error {
	switch e.ev.Type {
	case watch.Added, watch.Modified, watch.Deleted:
	case watch.Error:
		if st, ok := e.ev.Object.(*scheme.Status); ok {
			return fmt.Errorf("authz: the watch of %s failed: %s", rbacResources[e.res].gr, st.Message)
		}
		return fmt.Errorf("authz: the watch of %s failed", rbacResources[e.res].gr)
	default:
		return nil
	}
	obj, ok := e.ev.Object.(scheme.Object)
	if !ok {
		return fmt.Errorf("authz: a %s watch event holds a %T", rbacResources[e.res].gr, e.ev.Object)
	}
	key := prefixes[e.res] + objectKey(obj)
	if e.ev.Type == watch.Deleted {
		delete(objects, key)
		return nil
	}
	typed, err := rbacObject(e.res, obj)
	if err != nil {
		return err
	}
	objects[key] = typed
	return nil
}

func objectKey(obj scheme.Object) string {
	if ns := obj.GetNamespace(); ns != "" {
		return ns + "/" + obj.GetName()
	}
	return obj.GetName()
}

// rbacObject returns obj as the Go type of rbacResources[res]: as it is when it is one
// (Set copies it, so sharing a watch event's object is safe), decoded from its JSON
// when a store hands out unstructured objects.
func rbacObject(res int, obj scheme.Object) (scheme.Object, error) {
	want := rbacResources[res].new()
	if reflect.TypeOf(obj) == reflect.TypeOf(want) {
		return obj, nil
	}
	data, err := json.Marshal(obj)
	if err == nil {
		// The object was validated when it was stored: plain JSON decoding suffices.
		err = json.Unmarshal(data, want)
	}
	if err != nil {
		return nil, fmt.Errorf("authz: reading %s %q: %w", rbacResources[res].gr, obj.GetName(), err)
	}
	return want, nil
}
