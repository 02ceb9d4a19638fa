package rest

import (
	"context"
	"errors"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// Operation is what an admission plugin is asked about.
type Operation string

// The operations admission sees.
const (
	OperationCreate Operation = "CREATE"
	OperationUpdate Operation = "UPDATE"
	OperationDelete Operation = "DELETE"
)

// AdmissionAttributes describe one write to admission plugins.
type AdmissionAttributes struct {
	Attributes
	// Kind is the kind of the object at the request's version.
	Kind scheme.GroupVersionKind
	// Operation is CREATE, UPDATE (also for patch and subresource writes) or DELETE.
	Operation Operation
	// OldObject is the stored object (internal version) for UPDATE and DELETE, else nil.
	OldObject scheme.Object
	// DryRun is true when nothing will be stored (dryRun=All): plugins with side effects
	// must not perform them.
	DryRun bool
}

// MutatingAdmission may change an object before it is validated and stored. obj is the
// internal version (nil for DELETE). A returned *scheme.Status is sent as is; any other
// error becomes 403 Forbidden.
type MutatingAdmission interface {
	Admit(ctx context.Context, a AdmissionAttributes, obj scheme.Object) error
}

// ValidatingAdmission accepts or rejects a validated object before it is stored, without
// changing it. obj is the internal version (for DELETE, the stored object). A returned
// *scheme.Status is sent as is; any other error becomes 403 Forbidden.
type ValidatingAdmission interface {
	Validate(ctx context.Context, a AdmissionAttributes, obj scheme.Object) error
}

func (rq *request) admissionAttributes(op Operation, name string, old scheme.Object, dryRun bool) AdmissionAttributes {
	a := attributesOf(rq.info, rq.user)
	a.Name = name
	return AdmissionAttributes{Attributes: a, Kind: rq.gvk, Operation: op, OldObject: old, DryRun: dryRun}
}

func (rq *request) admissionError(err error, name string) error {
	var st *scheme.Status
	if errors.As(err, &st) {
		return st
	}
	return NewForbidden(rq.gr, name, err)
}

func (rq *request) mutate(a AdmissionAttributes, obj scheme.Object) error {
	for _, m := range rq.h.opts.MutatingAdmission {
		if err := m.Admit(rq.ctx, a, obj); err != nil {
			return rq.admissionError(err, a.Name)
		}
	}
	return nil
}

func (rq *request) validateAdmission(a AdmissionAttributes, obj scheme.Object) error {
	for _, v := range rq.h.opts.ValidatingAdmission {
		if err := v.Validate(rq.ctx, a, obj); err != nil {
			return rq.admissionError(err, a.Name)
		}
	}
	return nil
}

func (rq *request) validateCreate(obj scheme.Object) error {
	var errs validation.ErrorList
	if f := rq.hooks.validate; f != nil {
		errs = f(rq.ctx, obj)
	}
	errs = appendUnique(errs, validation.ValidateObjectMeta(obj, rq.res.Namespaced, validation.NameIsDNSSubdomain, validation.NewPath("metadata")))
	if len(errs) > 0 {
		return rq.invalid(errs, obj.GetName())
	}
	return nil
}

func (rq *request) validateUpdate(obj, old scheme.Object) error {
	errs := validation.ValidateObjectMetaUpdate(obj, old, validation.NewPath("metadata"))
	if f := rq.hooks.validateUpdate; f != nil {
		errs = appendUnique(errs, f(rq.ctx, obj, old))
	}
	if len(errs) > 0 {
		return rq.invalid(errs, obj.GetName())
	}
	return nil
}

// appendUnique adds the errors of more that list does not hold yet (by message), so
// that a strategy that checks metadata itself does not report everything twice.
func appendUnique(list, more validation.ErrorList) validation.ErrorList {
	seen := make(map[string]bool, len(list))
	for _, e := range list {
		seen[e.Error()] = true
	}
	for _, e := range more {
		if !seen[e.Error()] {
			seen[e.Error()] = true
			list = append(list, e)
		}
	}
	return list
}

func (rq *request) invalid(errs validation.ErrorList, name string) error {
	return errs.ToStatus(rq.gvk.GroupKind(), name)
}
