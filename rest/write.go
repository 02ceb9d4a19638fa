package rest

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
)

// maxGenerateNameAttempts is how often a create with generateName tries a new name
// after a collision before answering 500 ServerTimeout.
const maxGenerateNameAttempts = 5

// create serves POST on a collection: decode, prepare, admit, validate, store.
func (rq *request) create() {
	dryRun, fv, err := rq.writeOptions("CreateOptions")
	if err != nil {
		rq.fail(err)
		return
	}
	data, err := rq.readBody()
	if err != nil {
		rq.fail(err)
		return
	}
	if err := rq.validateFieldManager("CreateOptions", false, false); err != nil {
		rq.fail(err)
		return
	}
	in, err := rq.decodeObject(data, fv)
	if err != nil {
		rq.fail(err)
		return
	}
	rq.trackManagedFields(nil, in)
	out, err := rq.createObject(in, dryRun)
	if err != nil {
		rq.fail(err)
		return
	}
	rq.respond(http.StatusCreated, out)
}

// errEmptiedFinalizers stops the write of an update that removed the last finalizer of an
// object being deleted: the object is deleted instead.
var errEmptiedFinalizers = errors.New("the update removed the last finalizer of an object being deleted")

// ensureNamespaceMatches reconciles obj's metadata.namespace with the request's, as
// kube-apiserver does on every write before admission and again before validation
// (EnsureObjectNamespaceMatchesRequestNamespace, BeforeCreate, BeforeUpdate): a
// cluster-scoped object keeps no namespace, a namespaced one without a namespace takes
// the request's, and a namespaced one with a different namespace is 400 BadRequest.
// Validation's Forbidden "not allowed on this type" stays for callers of validation
// that skip this step.
func ensureNamespaceMatches(requestNamespace string, namespaced bool, obj scheme.MetaAccessor) error {
	if !namespaced {
		requestNamespace = ""
	}
	switch got := obj.GetNamespace(); {
	case got == requestNamespace && got != "":
	case got == "" || requestNamespace == "":
		// Also when both are empty: a schema-only object may carry "namespace": "",
		// which kube's decoding of metadata drops.
		obj.SetNamespace(requestNamespace)
	default:
		return NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	return nil
}

// ensureNamespace is ensureNamespaceMatches for the request's namespace and resource.
func (rq *request) ensureNamespace(obj scheme.MetaAccessor) error {
	return ensureNamespaceMatches(rq.info.Namespace, rq.res.Namespaced, obj)
}

// prepareCreate sets the server's fields on a new internal object, then runs the
// strategy, mutating admission, validation and validating admission.
func (rq *request) prepareCreate(in scheme.Object, dryRun bool) error {
	if err := rq.ensureNamespace(in); err != nil {
		return err
	}
	if err := rq.admitNamespacedCreate(in); err != nil {
		return err
	}
	if in.GetName() == "" && in.GetGenerateName() != "" {
		in.SetName(generateName(in.GetGenerateName()))
	}
	in.SetUID(scheme.NewUID())
	in.SetCreationTimestamp(scheme.NowFrom(rq.h.opts.Clock))
	in.SetGeneration(1)
	in.SetDeletionTimestamp(nil)
	in.SetDeletionGracePeriodSeconds(nil)
	if rq.res.StatusSubresource {
		copyStatus(in, nil)
	}
	if rq.isNamespaces() {
		if err := prepareNamespaceCreate(in); err != nil {
			return err
		}
	}
	if f := rq.hooks.prepareForCreate; f != nil {
		f(rq.ctx, in)
	}
	a := rq.admissionAttributes(OperationCreate, in.GetName(), nil, dryRun)
	if err := rq.mutate(a, in); err != nil {
		return err
	}
	// Again after admission, as kube's BeforeCreate does.
	if err := rq.ensureNamespace(in); err != nil {
		return err
	}
	if f := rq.hooks.authorizeCreate; f != nil {
		if err := f(rq.ctx, in); err != nil {
			return rq.admissionError(err, in.GetName())
		}
	}
	if err := rq.validateCreate(in); err != nil {
		return err
	}
	if f := rq.hooks.warningsOnCreate; f != nil {
		rq.warnings = append(rq.warnings, f(rq.ctx, in)...)
	}
	a.Name = in.GetName()
	return rq.validateAdmission(a, in)
}

// createObject runs the create pipeline on an internal object and returns the stored
// object at the URL version.
func (rq *request) createObject(in scheme.Object, dryRun bool) (scheme.Object, error) {
	if err := rq.prepareCreate(in, dryRun); err != nil {
		return nil, err
	}
	generated := in.GetGenerateName() != "" && in.GetName() != ""
	stored, err := rq.h.toVersion(in, rq.h.storageGV(rq.res))
	if err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		name := stored.GetName()
		key := rq.key(name)
		var created scheme.Object
		if dryRun {
			_, err = rq.h.store.Get(rq.ctx, key, storage.GetOptions{})
			switch {
			case err == nil:
				err = storage.NewError(storage.ErrAlreadyExists, key)
			case errors.Is(err, storage.ErrNotFound):
				if err = rq.checkStored(stored, true); err == nil {
					created = stored
				}
			}
		} else if err = resetResourceVersionForCreate(stored); err == nil {
			if err = rq.checkStored(stored, false); err == nil {
				created, err = rq.h.store.Create(rq.ctx, key, stored)
			}
		}
		if err == nil {
			return rq.h.toVersion(created, rq.gv)
		}
		if errors.Is(err, storage.ErrAlreadyExists) && generated {
			if attempt >= maxGenerateNameAttempts {
				return nil, NewServerTimeout(rq.gvk.GroupKind(), "POST")
			}
			stored.SetName(generateName(stored.GetGenerateName()))
			continue
		}
		return nil, rq.h.toStatus(err, rq.gr, name)
	}
}

// resetResourceVersionForCreate does what kube-apiserver's storage does with the
// resourceVersion of an object to create: a number other than 0 is refused with the
// plain 500 kube answers (an error that is no Status: reason Unknown, the bare
// message); anything else ("0", or a value that is not a number) is dropped, as kube
// drops it before the write.
func resetResourceVersionForCreate(obj scheme.Object) error {
	if rv, err := strconv.ParseUint(obj.GetResourceVersion(), 10, 64); err == nil && rv != 0 {
		return newStatus(http.StatusInternalServerError, scheme.StatusReasonUnknown, "resourceVersion should not be set on objects to be created", nil)
	}
	obj.SetResourceVersion("")
	return nil
}

// updateRequest reads what every PUT and PATCH starts with: the options (dryRun,
// fieldValidation) and the body. On failure it has answered the request.
func (rq *request) updateRequest() (dryRun bool, fieldValidation string, body []byte, ok bool) {
	kind := "UpdateOptions"
	if rq.info.Verb == "patch" {
		kind = "PatchOptions"
	}
	dryRun, fieldValidation, err := rq.writeOptions(kind)
	if err == nil {
		body, err = rq.readBody()
	}
	if err != nil {
		rq.fail(err)
		return false, "", nil, false
	}
	return dryRun, fieldValidation, body, true
}

// update serves PUT and PATCH on an object or its status.
func (rq *request) update() {
	dryRun, fv, data, ok := rq.updateRequest()
	if !ok {
		return
	}
	name := rq.info.Name
	var next func(old scheme.Object) (scheme.Object, error)
	allowCreate := false
	if rq.info.Verb == "patch" {
		p, err := rq.decodePatch(data)
		if err != nil {
			rq.fail(err)
			return
		}
		if p.apply {
			if err := p.duplicates; err != nil && (fv == "Strict" || fv == "Warn" || fv == "") {
				if fv == "Strict" {
					rq.fail(NewBadRequest(err.Error()))
					return
				}
				rq.warnings = append(rq.warnings, err.Error())
			}
			rq.applied = true
			allowCreate = rq.info.Subresource == ""
			next = func(old scheme.Object) (scheme.Object, error) {
				if old == nil && !allowCreate {
					return nil, NewNotFound(rq.gr, name)
				}
				return rq.applyObject(old, p)
			}
		} else {
			next = func(old scheme.Object) (scheme.Object, error) {
				if old == nil {
					return nil, NewNotFound(rq.gr, name)
				}
				return rq.patchObject(old, p.fn, fv)
			}
		}
	} else {
		if err := rq.validateFieldManager("UpdateOptions", false, false); err != nil {
			rq.fail(err)
			return
		}
		in, err := rq.decodeObject(data, fv)
		if err != nil {
			rq.fail(err)
			return
		}
		// Like kube-apiserver's update handler, the namespace is reconciled before the
		// name is checked.
		if err := rq.ensureNamespace(in); err != nil {
			rq.fail(err)
			return
		}
		if in.GetName() != name {
			rq.fail(NewBadRequest("the name of the object (" + in.GetName() + ") does not match the name on the URL (" + name + ")"))
			return
		}
		allowCreate = rq.res.AllowCreateOnUpdate && rq.info.Subresource == ""
		next = func(scheme.Object) (scheme.Object, error) { return scheme.DeepCopy(in), nil }
	}
	out, created, err := rq.updateObject(name, dryRun, allowCreate, next)
	if err != nil {
		rq.fail(err)
		return
	}
	code := http.StatusOK
	if created {
		code = http.StatusCreated
	}
	rq.respond(code, out)
}

// prepareUpdate carries the server's fields from the stored object to the new one,
// applies the status rules and generation, and runs the strategy, admission and validation.
func (rq *request) prepareUpdate(in, old scheme.Object, dryRun bool) (scheme.Object, error) {
	name := old.GetName()
	switch rv := in.GetResourceVersion(); {
	case rv == "":
		in.SetResourceVersion(old.GetResourceVersion())
	case rv != old.GetResourceVersion():
		return nil, NewConflict(rq.gr, name, conflictModified)
	}
	if rq.info.Subresource == "status" {
		rv, managed := in.GetResourceVersion(), in.GetManagedFields()
		in = copyAllButStatus(in, old)
		in.SetResourceVersion(rv)
		in.SetManagedFields(managed) // tracked for this status write, as kube's status strategies keep them
	} else if rq.res.StatusSubresource {
		copyStatus(in, old)
	}
	if rq.isNamespaces() {
		if err := rq.prepareNamespaceUpdate(in, old); err != nil {
			return nil, err
		}
	}
	if in.GetUID() == "" {
		in.SetUID(old.GetUID())
	}
	in.SetCreationTimestamp(old.GetCreationTimestamp())
	in.SetDeletionTimestamp(old.GetDeletionTimestamp())
	in.SetDeletionGracePeriodSeconds(old.GetDeletionGracePeriodSeconds())
	in.SetGeneration(old.GetGeneration())
	same, err := specEqual(in, old, !rq.res.StatusSubresource)
	if err != nil {
		return nil, err
	}
	if !same {
		in.SetGeneration(old.GetGeneration() + 1)
	}
	if f := rq.hooks.prepareForUpdate; f != nil {
		f(rq.ctx, in, old)
	}
	a := rq.admissionAttributes(OperationUpdate, name, old, dryRun)
	if err := rq.mutate(a, in); err != nil {
		return nil, err
	}
	// After admission, as kube's BeforeUpdate does: every update path reconciled the
	// namespace before it already (or, for /scale, took the stored object's).
	if err := rq.ensureNamespace(in); err != nil {
		return nil, err
	}
	if f := rq.hooks.authorizeUpdate; f != nil {
		if err := f(rq.ctx, in, old); err != nil {
			return nil, rq.admissionError(err, name)
		}
	}
	if err := rq.validateUpdate(in, old); err != nil {
		return nil, err
	}
	if f := rq.hooks.warningsOnUpdate; f != nil {
		rq.warnings = append(rq.warnings, f(rq.ctx, in, old)...)
	}
	if err := rq.validateAdmission(a, in); err != nil {
		return nil, err
	}
	return in, nil
}

// updateObject is the read-modify-write of every update: next computes the new internal
// object from the stored one (internal version, nil when missing); the result runs
// through the create or update pipeline and is stored unless dryRun. An update that
// removes the last finalizer of an object being deleted deletes it. It returns the
// result at the URL version and whether it was created.
func (rq *request) updateObject(name string, dryRun, allowCreate bool, next func(old scheme.Object) (scheme.Object, error)) (scheme.Object, bool, error) {
	key := rq.key(name)
	var created bool
	var finalized, stored scheme.Object // set when the update empties the finalizers of a deleting object
	warnings := rq.warnings
	try := func(cur scheme.Object) (scheme.Object, error) {
		created, finalized, stored = false, nil, cur
		rq.warnings = warnings
		var old scheme.Object
		if cur != nil {
			var err error
			// The stored object as a read gives it (pruned and defaulted by its schema),
			// as kube-apiserver decodes the old object of an update from storage; cur
			// is this try's own copy.
			if err := rq.h.coerce(cur); err != nil {
				return nil, rq.h.defaultsTooLargeOnRead(cur)
			}
			if old, err = rq.h.toInternal(cur, rq.gvk); err != nil {
				return nil, err
			}
		}
		in, err := next(old)
		if err != nil {
			return nil, err
		}
		if !rq.applied {
			rq.trackManagedFields(old, in)
		}
		if old == nil {
			if !allowCreate {
				return nil, NewNotFound(rq.gr, name)
			}
			created = true
			in.SetResourceVersion("")
			if err := rq.prepareCreate(in, dryRun); err != nil {
				return nil, err
			}
		} else if in, err = rq.prepareUpdate(in, old, dryRun); err != nil {
			return nil, err
		}
		out, err := rq.h.toVersion(in, rq.h.storageGV(rq.res))
		if err != nil {
			return nil, err
		}
		pending, err := rq.pendingFinalizers(in)
		if err != nil {
			return nil, err
		}
		if !created && in.GetDeletionTimestamp() != nil && !pending {
			// Like kube-apiserver, the update is not written: the object is deleted as it
			// is stored, so watchers see one DELETED event.
			finalized = out.(scheme.Object)
			return nil, errEmptiedFinalizers
		}
		if err := rq.checkStored(out, dryRun); err != nil {
			return nil, err
		}
		return out, nil
	}
	var out scheme.Object
	var err error
	if dryRun {
		cur, gerr := rq.h.store.Get(rq.ctx, key, storage.GetOptions{})
		switch {
		case errors.Is(gerr, storage.ErrNotFound):
			cur = nil
		case gerr != nil:
			return nil, false, rq.h.toStatus(gerr, rq.gr, name)
		}
		out, err = try(cur)
		if errors.Is(err, errEmptiedFinalizers) {
			out, err = finalized, nil
		}
	} else {
		out, err = rq.h.store.GuaranteedUpdate(rq.ctx, key, storage.UpdateOptions{IgnoreNotFound: allowCreate}, try)
		if errors.Is(err, errEmptiedFinalizers) {
			uid, rv := stored.GetUID(), stored.GetResourceVersion()
			out, err = rq.h.store.Delete(rq.ctx, key, storage.DeleteOptions{Preconditions: &storage.Preconditions{UID: &uid, ResourceVersion: &rv}})
		}
	}
	if err != nil {
		return nil, false, rq.h.toStatus(err, rq.gr, name)
	}
	res, err := rq.h.toVersion(out, rq.gv)
	return res, created, err
}
