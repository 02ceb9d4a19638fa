package registry

import (
	"fmt"
	"net/http"

	"github.com/apikit-dev/apikit/apierrors"
	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/internal/jsonwire"
	"github.com/apikit-dev/apikit/scheme"
)

// maxStoredDepth is how deep a stored object may nest: what the decoders read
// (codec.MaxDepth, the limit of encoding/json and so of client-go and kubectl too) less
// the levels the deepest response wraps an object in, a Table's (the Table, its rows,
// a row), whose rows carry the object's metadata, managedFields included.
const maxStoredDepth = codec.MaxDepth - 3

// checkStored refuses an object about to be written that could not be read back:
// nested deeper than maxStoredDepth, which its managedFields can make it, as they nest
// a few levels deeper than the fields they record. It is checked on dry runs as well,
// so that they answer what the write would. On writes it then applies the object size
// limit, where kube-apiserver meets etcd's: an object over Options.MaxObjectBytes is
// written without its managedFields (kube's retry for creates, updates and patches
// other than apply), and refused with kube's 500 if it is still too large.
func (o *op) checkStored(obj scheme.Object) error {
	m, err := o.s.measureJSON(obj, false)
	if err != nil {
		return err
	}
	if m.Deepest > maxStoredDepth {
		return o.errTooDeep(obj, m.Deepest)
	}
	limit := max(o.s.opts.MaxObjectBytes, 0)
	if o.rq.DryRun || limit == 0 || m.N <= limit {
		return nil
	}
	if o.rq.ServerSideApply || obj.GetManagedFields() == nil {
		return apierrors.NewObjectTooLarge()
	}
	if n, err := o.s.JSONSize(obj, true); err != nil || n > limit {
		return apierrors.NewObjectTooLarge()
	}
	obj.SetManagedFields(nil)
	return nil
}

// errTooDeep is the 400 of an object whose stored form would nest depth levels, with
// the decoder's words for a body as deep, and whether its managedFields are the cause.
func (o *op) errTooDeep(obj scheme.Object, depth int) *scheme.Status {
	why := ""
	if obj.GetManagedFields() != nil {
		if m, err := o.s.measureJSON(obj, true); err == nil && m.Deepest <= maxStoredDepth {
			why = " with the metadata.managedFields that record its fields"
		}
	}
	msg := fmt.Sprintf("%s %q would be stored %d levels deep%s, over the %d that a list or Table of it can carry: exceeded max depth of %d", o.gvk.Kind, obj.GetName(), depth, why, maxStoredDepth, codec.MaxDepth)
	return apierrors.New(http.StatusBadRequest, scheme.StatusReasonBadRequest, msg, nil)
}

// measureJSON measures obj's JSON encoding, without its managedFields when
// withoutManaged is set (they are put back).
func (s *Store) measureJSON(obj scheme.Object, withoutManaged bool) (jsonwire.Meter, error) {
	if withoutManaged {
		if managed := obj.GetManagedFields(); managed != nil {
			obj.SetManagedFields(nil)
			defer obj.SetManagedFields(managed)
		}
	}
	var m jsonwire.Meter
	err := s.json.Encode(&m, obj)
	return m, err
}

// JSONSize is the length of obj's JSON encoding, without its managedFields when
// withoutManaged is set: what the stored-size limit (Options.MaxObjectBytes) measures,
// for a caller that refuses a large object before the lifecycle does.
func (s *Store) JSONSize(obj scheme.Object, withoutManaged bool) (int64, error) {
	m, err := s.measureJSON(obj, withoutManaged)
	return m.N, err
}
