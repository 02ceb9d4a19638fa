package registry

import (
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/patch"
	"github.com/apikit-dev/apikit/scheme"
)

// fieldManagerKey keys a cached patch.FieldManager in the scheme.
type fieldManagerKey struct {
	gvk         scheme.GroupVersionKind
	subresource string
	reset       string
}

type fieldManagerEntry struct {
	fm  *patch.FieldManager
	err error
}

// fieldManagerFor returns the field manager of the request's kind and subresource.
func (o *op) fieldManagerFor() (*patch.FieldManager, error) {
	sub := o.rq.Subresource
	var reset []string
	switch {
	case sub == "status":
		reset = []string{"spec"}
	case sub == "" && o.res.StatusSubresource:
		reset = []string{"status"}
	}
	key := fieldManagerKey{gvk: o.gvk, subresource: sub}
	if len(reset) > 0 {
		key.reset = reset[0]
	}
	s := o.s.scheme
	e := s.Extension(key, func() any {
		fm, err := patch.NewFieldManager(s, o.gvk, patch.Options{
			Subresource: sub,
			ResetFields: reset,
			Convert: func(obj map[string]any, gv scheme.GroupVersion) (map[string]any, error) {
				in, err := conversion.ObjectFromMap(s, o.gvk, obj)
				if err != nil {
					return nil, err
				}
				out, err := conversion.ToVersion(s, in, gv)
				if err != nil {
					return nil, err
				}
				return conversion.ToUnstructured(out)
			},
			Empty: func() map[string]any {
				m, err := emptyMap(s, o.gvk)
				if err != nil {
					return nil
				}
				return m
			},
		})
		return fieldManagerEntry{fm, err}
	}).(fieldManagerEntry)
	if e.err != nil || o.s.opts.Clock == nil {
		return e.fm, e.err
	}
	// The cached manager is shared by every Handler of the scheme; Options.Clock is
	// this Handler's own.
	clock := o.s.opts.Clock
	return e.fm.WithNow(func() scheme.Time { return scheme.NowFrom(clock) }), nil
}

// externalMap is the unstructured form of an internal object at the Request's version, for
// package patch: metadata.managedFields stays a []scheme.ManagedFieldsEntry, which
// spares converting fieldsV1 to maps and back. obj is the request's own and is left
// as it was.
func (o *op) externalMap(obj scheme.Object) (map[string]any, error) {
	managed := obj.GetManagedFields()
	var m map[string]any
	var err error
	if _, ok := obj.(*scheme.Unstructured); ok {
		// An unstructured object's managedFields are rebuilt as maps when set: convert a copy.
		var ext scheme.Object
		if ext, err = conversion.ObjectToVersion(o.s.scheme, scheme.DeepCopy(obj), o.gvk.GroupVersion()); err == nil {
			ext.SetManagedFields(nil)
			m, err = conversion.ToUnstructured(ext)
		}
	} else {
		// A typed object's managedFields are one field: set aside during the conversion,
		// which reads obj and makes a new object, instead of copying the whole object.
		obj.SetManagedFields(nil)
		var ext scheme.Object
		if ext, err = conversion.ObjectToVersion(o.s.scheme, obj, o.gvk.GroupVersion()); err == nil {
			m, err = conversion.ToUnstructured(ext)
		}
		obj.SetManagedFields(managed)
	}
	if err != nil {
		return nil, err
	}
	if managed != nil {
		md, _ := m["metadata"].(map[string]any)
		if md == nil {
			md = map[string]any{}
			m["metadata"] = md
		}
		md["managedFields"] = managed
	}
	return m, nil
}

// trackManagedFields records, for a create (old nil), update or non-apply patch, the
// fields the Request's FieldManager changed from old to in (both internal) in in's
// metadata.managedFields, as kube's FieldManager.UpdateNoErrors does: on failure the
// live object's managed fields are kept.
func (o *op) trackManagedFields(old, in scheme.Object) {
	keepLive := func() {
		if old != nil {
			in.SetManagedFields(old.GetManagedFields())
		} else {
			in.SetManagedFields(nil)
		}
	}
	fm, err := o.fieldManagerFor()
	if err != nil {
		keepLive()
		return
	}
	var live map[string]any // a create compares with the field manager's zero object
	if old != nil {
		if live, err = o.externalMap(old); err != nil {
			keepLive()
			return
		}
	}
	obj, err := o.externalMap(in)
	if err != nil {
		keepLive()
		return
	}
	managed, err := fm.Update(live, obj, o.rq.FieldManager)
	if err != nil {
		keepLive()
		return
	}
	in.SetManagedFields(managed)
}

// liveMap is the unstructured form, at the Request's version, of the stored object, or for a create
// (old nil) of the kind's zero object, as kube compares a create against a new empty
// object: fields a Go type always serializes ("spec": {}) count as present before.
func (o *op) liveMap(old scheme.Object) (map[string]any, error) {
	if old != nil {
		return o.externalMap(old)
	}
	return emptyMap(o.s.scheme, o.gvk)
}

// emptyMap is the unstructured form of a new object of kind gvk: {} for unstructured
// kinds, the encoded zero value for Go types.
func emptyMap(s *scheme.Scheme, gvk scheme.GroupVersionKind) (map[string]any, error) {
	k, err := s.New(gvk)
	if err != nil {
		return nil, err
	}
	if u, ok := k.(*scheme.Unstructured); ok {
		if u.Object == nil {
			u.Object = map[string]any{}
		}
		return u.Object, nil
	}
	return conversion.ToUnstructured(k)
}

// FieldManager returns the field manager of rq's kind, version and subresource, with
// which server-side apply merges a configuration: one per scheme, built once, on the
// Store's clock.
func (s *Store) FieldManager(rq Request) (*patch.FieldManager, error) {
	return s.op(rq).fieldManagerFor()
}

// LiveObject returns what server-side apply merges a configuration onto: old (an
// internal object, left as it was) at rq's version in its unstructured form, or for a
// create (old nil) the kind's zero object, as kube compares a create against a new
// empty object.
func (s *Store) LiveObject(rq Request, old scheme.Object) (map[string]any, error) {
	return s.op(rq).liveMap(old)
}
