package rest

import (
	"context"
	"fmt"
	"net/http"

	"github.com/apikit-dev/apikit/apierrors"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
)

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
	out, err := rq.createObject(in, dryRun)
	if err != nil {
		rq.fail(err)
		return
	}
	rq.respond(http.StatusCreated, out)
}

// createObject runs the registry's create on an internal object and returns the
// stored object at the URL version.
func (rq *request) createObject(in scheme.Object, dryRun bool) (scheme.Object, error) {
	return rq.h.reg.Create(rq.ctx, rq.lifecycle(dryRun), in)
}

// updateObject runs the registry's read-modify-write of an update: next computes the
// new internal object from the stored one (nil when missing). It returns the result at
// the URL version and whether it was created.
func (rq *request) updateObject(name string, dryRun, allowCreate bool, next func(old scheme.Object) (scheme.Object, error)) (scheme.Object, bool, error) {
	update := func(_ context.Context, old scheme.Object) (scheme.Object, error) { return next(old) }
	return rq.h.reg.Update(rq.ctx, rq.lifecycle(dryRun), name, allowCreate, update)
}

// ensureNamespace reconciles obj's metadata.namespace with the request's
// (registry.EnsureNamespaceMatches).
func (rq *request) ensureNamespace(obj scheme.MetaAccessor) error {
	return registry.EnsureNamespaceMatches(rq.info.Namespace, rq.res.Namespaced, obj)
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
					rq.fail(apierrors.NewBadRequest(err.Error()))
					return
				}
				rq.warnings = append(rq.warnings, err.Error())
			}
			rq.applied = true
			allowCreate = rq.info.Subresource == ""
			next = func(old scheme.Object) (scheme.Object, error) {
				if old == nil && !allowCreate {
					return nil, apierrors.NewNotFound(rq.gr, name)
				}
				return rq.applyObject(old, p)
			}
		} else {
			next = func(old scheme.Object) (scheme.Object, error) {
				if old == nil {
					return nil, apierrors.NewNotFound(rq.gr, name)
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
			rq.fail(apierrors.NewBadRequest("the name of the object (" + in.GetName() + ") does not match the name on the URL (" + name + ")"))
			return
		}
		allowCreate = rq.res.AllowCreateOnUpdate && rq.info.Subresource == ""
		next = func(old scheme.Object) (scheme.Object, error) {
			// kube's update handler makes the body's uid a precondition of the write
			// (rest.DefaultUpdatedObjectInfo), checked against the stored object first.
			if uid := in.GetUID(); uid != "" && old != nil && uid != old.GetUID() {
				return nil, apierrors.NewConflict(rq.gr, name, fmt.Sprintf("Precondition failed: UID in precondition: %v, UID in object meta: %v", uid, old.GetUID()))
			}
			return scheme.DeepCopy(in), nil
		}
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
