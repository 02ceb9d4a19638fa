package registry

import (
	"context"
	"errors"
	"fmt"

	"github.com/apikit-dev/apikit/apierrors"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
)

// Action is what a create on a subresource of scheme.Resource.OtherSubresources does
// to its parent, the object name of rq.Resource in rq.Namespace (kube's pods/binding
// and pods/eviction): body is the request's object, of the subresource's kind at the
// internal version (its namespace reconciled with the request's), and rq.Subresource
// the subresource. An Action works through s (the parent's and other resources'
// objects, each with its own Request) and answers an object of a registered kind, or a
// *scheme.Status: Success, or a Failure with its own code, which kube-apiserver serves
// in a 201 as a create's result. Its ctx lets it read with Get and List too.
type Action func(ctx context.Context, s *Store, rq Request, name string, body scheme.Object) (scheme.Kinded, error)

// ServesSubresource reports whether the strategy of resource gr serves subresource
// sub, one of scheme.Resource.OtherSubresources: an Action for sub (a create) or a
// strategy of its writes (StrategyFor.Subresources) or a Connector
// (StrategyFor.Connectors).
func (s *Store) ServesSubresource(gr scheme.GroupResource, sub string) bool {
	h := s.hooksOf(gr)
	if _, ok := h.actions[sub]; ok {
		return true
	}
	if _, ok := h.connectors[sub]; ok {
		return true
	}
	_, ok := h.subresources[sub]
	return ok
}

// CreateOnSubresource runs the Action of rq.Subresource on the object name: 404
// NotFound for a subresource whose strategy has none. rq.Subresource "" is a create of
// a create-only resource whose strategy has an Action for "" (kube's bindings), name
// the body's.
func (s *Store) CreateOnSubresource(ctx context.Context, rq Request, name string, body scheme.Object) (scheme.Kinded, error) {
	o := s.op(rq)
	act, ok := o.hooks.actions[rq.Subresource]
	if !ok {
		return nil, apierrors.NewNotFound(scheme.GroupResource{Group: o.gr.Group, Resource: o.gr.Resource + "/" + rq.Subresource}, name)
	}
	return act(withCall(ctx, o, "create", name), s, rq, name, body)
}

// UpdateStored is the read-modify-write kube's subresource storages make with
// Storage.GuaranteedUpdate (pods/binding sets a pod's node so): update changes the
// stored object (the internal version, its own copy) and the result is written as it
// is, without the strategy, admission, validation, generation or managedFields of
// Update. pre, when set, must hold on the stored object (409 Conflict); a missing
// object is 404 NotFound; a dry run computes the result without writing it. An error
// of update is returned as it is. The result is at rq.Version.
func (s *Store) UpdateStored(ctx context.Context, rq Request, name string, pre *storage.Preconditions, update UpdateFunc) (scheme.Object, error) {
	o := s.op(rq)
	key := o.key(name)
	var fnErr error
	try := func(cur scheme.Object) (scheme.Object, error) {
		fnErr = nil
		old, err := conversion.ObjectToInternal(s.scheme, cur, o.gvk)
		if err != nil {
			return nil, err
		}
		in, err := update(ctx, old)
		if err != nil {
			fnErr = err
			return nil, err
		}
		out, err := conversion.ObjectToVersion(s.scheme, in, s.storageGV(o.res))
		if err != nil {
			return nil, err
		}
		obj, ok := out.(scheme.Object)
		if !ok {
			return nil, fmt.Errorf("registry: %s %q: the update of the stored object made a %T", o.gr, name, out)
		}
		return obj, o.checkStored(obj)
	}
	var out scheme.Object
	var err error
	if rq.DryRun {
		var cur scheme.Object
		if cur, err = s.store.Get(ctx, key, storage.GetOptions{}); err == nil {
			if err = checkStoragePreconditions(pre, cur, o.gr); err == nil {
				out, err = try(cur)
			}
		}
	} else {
		out, err = s.store.GuaranteedUpdate(ctx, key, storage.UpdateOptions{Preconditions: pre}, try)
	}
	if err != nil {
		if fnErr != nil && errors.Is(err, fnErr) {
			return nil, fnErr
		}
		var st *scheme.Status
		if errors.As(err, &st) {
			return nil, st
		}
		return nil, s.toStatus(err, o.gr, name)
	}
	return conversion.ObjectToVersion(s.scheme, out, o.gvk.GroupVersion())
}

// checkStoragePreconditions is the check GuaranteedUpdate makes, for a dry run.
func checkStoragePreconditions(p *storage.Preconditions, obj scheme.Object, gr scheme.GroupResource) error {
	if p == nil {
		return nil
	}
	if p.UID != nil && *p.UID != obj.GetUID() {
		return apierrors.NewConflict(gr, obj.GetName(), fmt.Sprintf("Precondition failed: UID in precondition: %v, UID in object meta: %v", *p.UID, obj.GetUID()))
	}
	if p.ResourceVersion != nil && *p.ResourceVersion != obj.GetResourceVersion() {
		return apierrors.NewConflict(gr, obj.GetName(), fmt.Sprintf("Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", *p.ResourceVersion, obj.GetResourceVersion()))
	}
	return nil
}
