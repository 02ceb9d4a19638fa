package registry

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/apikit-dev/apikit/conversion"

	"github.com/apikit-dev/apikit/apierrors"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/validation"
)

// maxGenerateNameAttempts is how often a create with generateName tries a new name
// after a collision before answering 500 ServerTimeout.
const maxGenerateNameAttempts = 5

// errEmptiedFinalizers stops the write of an update that removed the last finalizer of an
// object being deleted: the object is deleted instead.
var errEmptiedFinalizers = errors.New("the update removed the last finalizer of an object being deleted")

// prepareCreate runs, on a new internal object, what kube-apiserver's create handler and
// generic store run, in their order: NamespaceLifecycle, mutating admission (before the
// server's fields and the strategy, so that the strategy sees what admission set: a
// Pod's QoS class is computed from the limits LimitRanger defaults; a generateName
// object has no name yet), AuthorizeCreate, the server's fields and the name generated
// from generateName, the strategy, validation and validating admission.
func (o *op) prepareCreate(ctx context.Context, in scheme.Object) error {
	if err := o.ensureNamespace(in); err != nil {
		return err
	}
	if err := o.admitNamespacedCreate(ctx, in); err != nil {
		return err
	}
	if o.isNamespaces() {
		labelWithName(in)
	}
	a := o.admissionAttributes(ctx, "create", OperationCreate, in.GetName(), nil)
	if err := o.mutate(ctx, a, in); err != nil {
		return err
	}
	// Again after admission, as kube's BeforeCreate does.
	if err := o.ensureNamespace(in); err != nil {
		return err
	}
	// Where kube's RBAC storage checks escalation: before the generic store's create.
	if f := o.hooks.AuthorizeCreate; f != nil {
		if err := f(ctx, in); err != nil {
			return o.admissionError(err, in.GetName())
		}
	}
	if in.GetName() == "" && in.GetGenerateName() != "" {
		in.SetName(generateName(in.GetGenerateName()))
	}
	in.SetUID(scheme.NewUID())
	in.SetCreationTimestamp(scheme.NowFrom(o.s.opts.Clock))
	in.SetGeneration(1)
	in.SetDeletionTimestamp(nil)
	in.SetDeletionGracePeriodSeconds(nil)
	if o.res.StatusSubresource && !o.hooks.keepStatusOnCreate {
		copyStatus(in, nil)
	}
	if o.isNamespaces() {
		if err := prepareNamespaceCreate(in); err != nil {
			return err
		}
		labelWithName(in)
	}
	if f := o.hooks.PrepareForCreate; f != nil {
		f(ctx, in)
	}
	if err := o.validateCreate(ctx, in); err != nil {
		return err
	}
	if f := o.hooks.WarningsOnCreate; f != nil {
		o.warn(f(ctx, in)...)
	}
	if a.Name == "" {
		// kube's AdmissionToValidateObjectFunc: the request's name, else the name
		// generated (a name a mutating plugin changed is not the request's).
		a.Name = in.GetName()
	}
	return o.validateAdmission(ctx, a, in)
}

// createObject runs the create pipeline on an internal object and returns the stored
// object at the Request's version.
func (o *op) createObject(ctx context.Context, in scheme.Object) (_ scheme.Object, err error) {
	defer func() { finishReservations(ctx, err == nil) }()
	o.trackManagedFields(nil, in)
	if err := o.prepareCreate(ctx, in); err != nil {
		return nil, err
	}
	generated := in.GetGenerateName() != "" && in.GetName() != ""
	stored, err := conversion.ObjectToVersion(o.s.scheme, in, o.s.storageGV(o.res))
	if err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		name := stored.GetName()
		key := o.key(name)
		var created scheme.Object
		if o.rq.DryRun {
			_, err = o.s.store.Get(ctx, key, storage.GetOptions{})
			switch {
			case err == nil:
				err = storage.NewError(storage.ErrAlreadyExists, key)
			case errors.Is(err, storage.ErrNotFound):
				if err = o.checkStored(stored); err == nil {
					created = stored
				}
			}
		} else if err = resetResourceVersionForCreate(stored); err == nil {
			if err = o.checkStored(stored); err == nil {
				created, err = o.s.store.Create(ctx, key, stored)
			}
		}
		if err == nil {
			return conversion.ObjectToVersion(o.s.scheme, created, o.gvk.GroupVersion())
		}
		if errors.Is(err, storage.ErrAlreadyExists) && generated {
			if attempt >= maxGenerateNameAttempts {
				return nil, apierrors.NewServerTimeout(o.gvk.GroupKind(), "POST")
			}
			stored.SetName(generateName(stored.GetGenerateName()))
			continue
		}
		return nil, o.s.toStatus(err, o.gr, name)
	}
}

// resetResourceVersionForCreate does what kube-apiserver's storage does with the
// resourceVersion of an object to create: a number other than 0 is refused with the
// plain 500 kube answers (an error that is no Status: reason Unknown, the bare
// message); anything else ("0", or a value that is not a number) is dropped, as kube
// drops it before the write.
func resetResourceVersionForCreate(obj scheme.Object) error {
	if rv, err := strconv.ParseUint(obj.GetResourceVersion(), 10, 64); err == nil && rv != 0 {
		return apierrors.New(http.StatusInternalServerError, scheme.StatusReasonUnknown, "resourceVersion should not be set on objects to be created", nil)
	}
	obj.SetResourceVersion("")
	return nil
}

// prepareUpdate carries the server's fields from the stored object to the new one,
// applies the status rules and generation, and runs the strategy, admission and validation.
func (o *op) prepareUpdate(ctx context.Context, in, old scheme.Object) (scheme.Object, error) {
	name := old.GetName()
	switch rv := in.GetResourceVersion(); {
	case rv == "" && o.hooks.requireResourceVersion:
		return nil, validation.ErrorList{validation.Invalid(validation.NewPath("metadata", "resourceVersion"), int64(0), "must be specified for an update")}.
			ToStatus(scheme.GroupKind{Group: o.gr.Group, Kind: o.gr.Resource}, name)
	case rv == "":
		in.SetResourceVersion(old.GetResourceVersion())
	case rv != old.GetResourceVersion():
		return nil, apierrors.NewConflict(o.gr, name, apierrors.OptimisticLockErrorMsg)
	}
	h := o.hooks.forUpdate(o.rq.Subresource)
	switch {
	case h != o.hooks:
		// The status strategy decides what of the stored object the write keeps.
		if f := h.PrepareForUpdate; f != nil {
			f(ctx, in, old)
		}
	case o.rq.Subresource == "status":
		rv, managed := in.GetResourceVersion(), in.GetManagedFields()
		in = copyAllButStatus(in, old)
		in.SetResourceVersion(rv)
		in.SetManagedFields(managed) // tracked for this status write, as kube's status strategies keep them
	case o.res.StatusSubresource:
		copyStatus(in, old)
	}
	if o.isNamespaces() {
		if err := prepareNamespaceUpdate(in, old, o.rq.Subresource); err != nil {
			return nil, err
		}
		labelWithName(in)
	}
	if in.GetUID() == "" {
		in.SetUID(old.GetUID())
	}
	in.SetCreationTimestamp(old.GetCreationTimestamp())
	in.SetDeletionTimestamp(old.GetDeletionTimestamp())
	in.SetDeletionGracePeriodSeconds(old.GetDeletionGracePeriodSeconds())
	in.SetGeneration(old.GetGeneration())
	// Mutating admission before the generation and the strategy, as kube's update
	// handler runs it on the updated object before the store's BeforeUpdate: a field an
	// admission plugin carries over from the stored object (Priority's spec.priority)
	// is no change of the spec.
	a := o.admissionAttributes(ctx, "update", OperationUpdate, name, old)
	if err := o.mutate(ctx, a, in); err != nil {
		return nil, err
	}
	if o.isNamespaces() {
		labelWithName(in)
	}
	same, err := specEqual(in, old, !o.res.StatusSubresource)
	if err != nil {
		return nil, err
	}
	if !same {
		in.SetGeneration(old.GetGeneration() + 1)
	}
	if f := o.hooks.PrepareForUpdate; f != nil && h == o.hooks {
		f(ctx, in, old)
	}
	// After admission, as kube's BeforeUpdate does: every update path reconciled the
	// namespace before it already (or, for /scale, took the stored object's).
	if err := o.ensureNamespace(in); err != nil {
		return nil, err
	}
	if f := o.hooks.AuthorizeUpdate; f != nil {
		if err := f(ctx, in, old); err != nil {
			return nil, o.admissionError(err, name)
		}
	}
	if err := o.validateUpdate(ctx, in, old); err != nil {
		return nil, err
	}
	if f := h.WarningsOnUpdate; f != nil {
		o.warn(f(ctx, in, old)...)
	}
	if err := o.validateAdmission(ctx, a, in); err != nil {
		return nil, err
	}
	return in, nil
}

// updateObject is the read-modify-write of every update: next computes the new internal
// object from the stored one (internal version, nil when missing); the result runs
// through the create or update pipeline and is stored unless the Request is a dry run. An update that
// removes the last finalizer of an object being deleted deletes it. It returns the
// result at the Request's version and whether it was created.
func (o *op) updateObject(ctx context.Context, name string, allowCreate bool, next UpdateFunc) (_ scheme.Object, _ bool, err error) {
	defer func() { finishReservations(ctx, err == nil) }()
	key := o.key(name)
	var created bool
	var finalized, stored scheme.Object // set when the update empties the finalizers of a deleting object
	var warnings []string
	if o.rq.Warnings != nil {
		warnings = *o.rq.Warnings
	}
	try := func(cur scheme.Object) (scheme.Object, error) {
		created, finalized, stored = false, nil, cur
		retryReservations(ctx)
		if o.rq.Warnings != nil {
			*o.rq.Warnings = warnings
		}
		var old scheme.Object
		if cur != nil {
			var err error
			// The stored object as a read gives it (pruned and defaulted by its schema),
			// as kube-apiserver decodes the old object of an update from storage; cur
			// is this try's own copy.
			if err := o.s.coerceRead(cur); err != nil {
				return nil, err
			}
			if old, err = conversion.ObjectToInternal(o.s.scheme, cur, o.gvk); err != nil {
				return nil, err
			}
		}
		in, err := next(ctx, old)
		if err != nil {
			return nil, err
		}
		if !o.rq.ServerSideApply {
			o.trackManagedFields(old, in)
		}
		if old == nil {
			if !allowCreate {
				return nil, apierrors.NewNotFound(o.gr, name)
			}
			created = true
			in.SetResourceVersion("")
			if err := o.prepareCreate(ctx, in); err != nil {
				return nil, err
			}
		} else if in, err = o.prepareUpdate(ctx, in, old); err != nil {
			return nil, err
		}
		out, err := conversion.ObjectToVersion(o.s.scheme, in, o.s.storageGV(o.res))
		if err != nil {
			return nil, err
		}
		pending, err := PendingFinalizers(o.gr, in)
		if err != nil {
			return nil, err
		}
		if !created && in.GetDeletionTimestamp() != nil && !pending {
			// Like kube-apiserver, the update is not written: the object is deleted as it
			// is stored, so watchers see one DELETED event.
			finalized = out.(scheme.Object)
			return nil, errEmptiedFinalizers
		}
		if err := o.checkStored(out); err != nil {
			return nil, err
		}
		return out, nil
	}
	var out scheme.Object
	if o.rq.DryRun {
		cur, gerr := o.s.store.Get(ctx, key, storage.GetOptions{})
		switch {
		case errors.Is(gerr, storage.ErrNotFound):
			cur = nil
		case gerr != nil:
			return nil, false, o.s.toStatus(gerr, o.gr, name)
		}
		out, err = try(cur)
		if errors.Is(err, errEmptiedFinalizers) {
			out, err = finalized, nil
		}
	} else {
		out, err = o.s.store.GuaranteedUpdate(ctx, key, storage.UpdateOptions{IgnoreNotFound: allowCreate}, try)
		if errors.Is(err, errEmptiedFinalizers) {
			uid, rv := stored.GetUID(), stored.GetResourceVersion()
			out, err = o.s.store.Delete(ctx, key, storage.DeleteOptions{Preconditions: &storage.Preconditions{UID: &uid, ResourceVersion: &rv}})
			if err == nil {
				o.afterDelete(ctx, out)
			}
		}
	}
	if err != nil {
		return nil, false, o.s.toStatus(err, o.gr, name)
	}
	res, err := conversion.ObjectToVersion(o.s.scheme, out, o.gvk.GroupVersion())
	return res, created, err
}

// storageGV is the group version a resource is stored at: that of the resource it shares
// storage with, if any.
func (s *Store) storageGV(res *scheme.Resource) scheme.GroupVersion {
	stored := s.scheme.StorageResource(res)
	return scheme.GroupVersion{Group: stored.Group, Version: s.scheme.StorageVersion(stored)}
}

// warn adds warnings to the Request's sink.
func (o *op) warn(texts ...string) {
	if o.rq.Warnings != nil {
		*o.rq.Warnings = append(*o.rq.Warnings, texts...)
	}
}
