package registry

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"sync"

	"github.com/apikit-dev/apikit/apierrors"

	"github.com/apikit-dev/apikit/conversion"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/watch"
)

// Get reads the object name of rq's resource as a GET answers it: pruned and defaulted
// by its schema, at rq.Version. The object is the caller's own.
func (s *Store) Get(ctx context.Context, rq Request, name string, opts storage.GetOptions) (scheme.Object, error) {
	o := s.op(rq)
	obj, err := s.store.Get(ctx, o.key(name), opts)
	if err != nil {
		return nil, s.toStatus(err, o.gr, name)
	}
	return s.ReadGotAs(obj, o.gvk.GroupVersion())
}

// ReadGotAs is ReadAs for the object of a GET. kube-apiserver converts a custom
// resource while decoding it from storage, so a conversion webhook that fails a GET
// is its storage's 500 InternalError ("StorageError: corrupt object ...: object not
// decodable: conversion webhook for ... failed: ..."), while a list, a watch or a
// write that fails to convert is the webhook's plain 500. The message is kube's
// without the storage key and revisions it names.
func (s *Store) ReadGotAs(obj scheme.Object, gv scheme.GroupVersion) (scheme.Object, error) {
	out, err := s.ReadAs(obj, gv)
	var st *scheme.Status
	if err != nil && errors.As(err, &st) && st.Code == http.StatusInternalServerError && st.Reason == "" {
		return nil, apierrors.NewInternalError(fmt.Errorf("StorageError: corrupt object, Code: 7, AdditionalErrorMsg: object not decodable: %s", st.Message))
	}
	return out, err
}

// List reads the objects of rq's resource in rq's namespace (every namespace when it is
// "") as a list answers them, each as Get reads one; the result carries the list's
// resourceVersion and continue token. The objects are the caller's own.
func (s *Store) List(ctx context.Context, rq Request, opts storage.ListOptions) (*storage.ListResult, error) {
	o := s.op(rq)
	lr, err := s.store.List(ctx, storage.Prefix(o.stored, o.namespace()), opts)
	if err != nil {
		return nil, s.toStatus(err, o.gr, "")
	}
	if items, ok, err := s.ReadItemsAs(lr.Items, o.res, o.gvk.GroupVersion(), false); err != nil {
		return nil, err
	} else if ok {
		lr.Items = items
	}
	for i, obj := range lr.Items {
		if lr.Items[i], err = s.ReadAs(obj, o.gvk.GroupVersion()); err != nil {
			return nil, err
		}
	}
	return lr, nil
}

// ReadItemsAs prepares the items of a list of res read at version gv for a kind whose
// conversion converts many objects in one call (a CRD's conversion webhook, which
// kube-apiserver sends one ConversionReview for a list): the items are coerced by the
// schemas of their versions and converted to gv together, and ReadAs then reads each
// of the result without converting it again. ok is false, and nothing is done, for
// the other kinds, which ReadAs converts one by one. shared says the items are
// storage's own (SharedAs's); the result is the caller's own either way, and items is
// not changed.
func (s *Store) ReadItemsAs(items []scheme.Object, res *scheme.Resource, gv scheme.GroupVersion, shared bool) (_ []scheme.Object, ok bool, err error) {
	if len(items) == 0 {
		return nil, false, nil
	}
	first, isU := items[0].(*scheme.Unstructured)
	if !isU || !conversion.HasUnstructuredConverter(s.scheme, first.GroupVersionKind().GroupKind()) {
		return nil, false, nil
	}
	owned := make([]scheme.Object, len(items))
	for i, obj := range items {
		if shared {
			obj = s.Unshared(obj)
		}
		if err := s.coerceRead(obj); err != nil {
			return nil, true, err
		}
		owned[i] = obj
	}
	out, ok, err := conversion.ItemsToVersion(s.scheme, owned, gv, res.ListKind)
	if !ok {
		return nil, false, nil
	}
	return out, true, err
}

// Watch follows the objects of rq's resource in rq's namespace (or the one object
// name, when not ""), each event's object read as Get reads one, at rq.Version; a
// storage error event is its Status. Event objects are the watch's own copies only
// for schema-only kinds, which reading changes; others are shared and read-only, as
// storage's are.
func (s *Store) Watch(ctx context.Context, rq Request, name string, opts storage.WatchOptions) (watch.Interface, error) {
	o := s.op(rq)
	key := storage.Prefix(o.stored, o.namespace())
	opts.Recursive = name == ""
	if name != "" {
		key = o.key(name)
	}
	w, err := s.store.Watch(ctx, key, opts)
	if err != nil {
		return nil, s.toStatus(err, o.gr, name)
	}
	cw := &convertingWatch{in: w, out: make(chan watch.Event), stop: make(chan struct{})}
	go cw.run(func(e watch.Event) watch.Event {
		switch obj := e.Object.(type) {
		case *scheme.Status:
		case scheme.Object:
			if e.Type == watch.Bookmark {
				break
			}
			out, err := s.SharedAs(obj, o.gvk.GroupVersion())
			if err != nil {
				return watch.Event{Type: watch.Error, Object: s.toStatus(err, o.gr, obj.GetName())}
			}
			e.Object = out
		}
		return e
	})
	return cw, nil
}

// convertingWatch passes the events of a storage watch on, each read by the Store.
type convertingWatch struct {
	in       watch.Interface
	out      chan watch.Event
	stop     chan struct{}
	stopOnce sync.Once
}

func (w *convertingWatch) run(read func(watch.Event) watch.Event) {
	defer close(w.out)
	defer w.in.Stop()
	for {
		select {
		case e, ok := <-w.in.ResultChan():
			if !ok {
				return
			}
			select {
			case w.out <- read(e):
			case <-w.stop:
				return
			}
		case <-w.stop:
			return
		}
	}
}

// ResultChan returns the events; it is closed when the watch ends.
func (w *convertingWatch) ResultChan() <-chan watch.Event { return w.out }

// Stop ends the watch; it may be called more than once.
func (w *convertingWatch) Stop() { w.stopOnce.Do(func() { close(w.stop) }) }

// namespace is the Request's namespace, "" for a cluster-scoped resource.
func (o *op) namespace() string {
	if !o.res.Namespaced {
		return ""
	}
	return o.rq.Namespace
}

// ReadAs returns an object read from storage (the caller's own) as a read at version
// gv answers it: coerced, converted to gv, and then coerced by the schema of gv when
// that is another version. An object the schema's defaults would grow past the object
// size limit is a 500 (kube would build and send it; its size is then unbounded).
func (s *Store) ReadAs(obj scheme.Object, gv scheme.GroupVersion) (scheme.Object, error) {
	if err := s.coerceRead(obj); err != nil {
		return nil, err
	}
	if obj.GetObjectKind().GroupVersionKind().GroupVersion() == gv {
		return obj, nil
	}
	out, err := conversion.ObjectToVersion(s.scheme, obj, gv)
	if err != nil {
		return nil, err
	}
	if err := s.coerceRead(out); err != nil { // a new object: conversion copies
		return nil, err
	}
	return out, nil
}

// SharedAs is ReadAs for an object storage shares between readers (a watch event's,
// a shared list's item): it reads Unshared(obj), so the shared object stays as it was
// stored.
func (s *Store) SharedAs(obj scheme.Object, gv scheme.GroupVersion) (scheme.Object, error) {
	return s.ReadAs(s.Unshared(obj), gv)
}

// Unshared returns a shared object as ReadAs may take it: a copy for a kind with a
// compiled schema (ReadAs coerces it in place), the object itself otherwise (ReadAs
// only reads it; a conversion makes a new object).
func (s *Store) Unshared(obj scheme.Object) scheme.Object {
	if _, ks := s.SchemaFor(obj); ks != nil {
		return scheme.DeepCopy(obj)
	}
	return obj
}
