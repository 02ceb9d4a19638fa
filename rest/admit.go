package rest

import (
	"context"
	"errors"

	"github.com/apikit-dev/apikit/authz"

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
	authz.Attributes
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

// admissionError is the answer to a write an admission plugin or a strategy's
// AuthorizeCreate or AuthorizeUpdate refused: its Status as it is, else kube's 403
// Forbidden of the object with the error's text (as kube-apiserver's RBAC storage
// answers an escalation).
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

// validateCreate runs the validation of a new object: for a kind with a compiled
// schema, as kube-apiserver validates a custom resource (metadata, then the schema,
// then its rules), then the strategy's Validate; for other kinds the strategy's
// Validate, then metadata.
func (rq *request) validateCreate(obj scheme.Object) error {
	var hookErrs validation.ErrorList
	if f := rq.hooks.validate; f != nil {
		hookErrs = f(rq.ctx, obj)
	}
	meta := validation.ValidateObjectMeta(obj, rq.res.Namespaced, rq.res.NameValidation, validation.NewPath("metadata"))
	var errs validation.ErrorList
	if u, ks := rq.h.schemaFor(obj); ks != nil {
		errs = appendUnique(rq.schemaErrors(meta, u, ks, nil), hookErrs)
	} else {
		errs = appendUnique(hookErrs, meta)
	}
	if len(errs) > 0 {
		return rq.invalid(errs, obj.GetName())
	}
	return nil
}

// validateUpdate runs the validation of an update: metadata, then for a kind with a
// compiled schema the schema and its rules (only the status schema on /status, where
// the rules still see the whole object, as in kube-apiserver), then the strategy's
// ValidateUpdate.
func (rq *request) validateUpdate(obj, old scheme.Object) error {
	errs := validation.ValidateObjectMetaUpdate(obj, old, validation.NewPath("metadata"))
	if u, ks := rq.h.schemaFor(obj); ks != nil {
		errs = rq.schemaErrors(errs, u, ks, old)
	}
	if f := rq.hooks.validateUpdate; f != nil {
		errs = appendUnique(errs, f(rq.ctx, obj, old))
	}
	if len(errs) > 0 {
		return rq.invalid(errs, obj.GetName())
	}
	return nil
}

// rulesNotChecked is kube-apiserver's error when schema errors keep the CEL rules of
// a custom resource from running.
const rulesNotChecked = "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"

// schemaErrors appends to errs (the metadata errors) the errors of obj against its
// schema and then its CEL rules, with old the stored object of an update (nil on
// create). Like kube-apiserver, the rules are not evaluated when errs already has an
// error of a type that makes them meaningless (a wrong type, a missing required field,
// an unsupported value, too long or too many): one root error says so instead.
func (rq *request) schemaErrors(errs validation.ErrorList, obj *scheme.Unstructured, ks *kindSchema, old scheme.Object) validation.ErrorList {
	switch {
	case rq.info.Subresource != "status":
		errs = appendUnique(errs, ks.schema.Validate(obj.Object))
	case ks.status != nil:
		if _, ok := obj.Object["status"]; ok {
			errs = appendUnique(errs, ks.status.Validate(obj.Object))
		}
	}
	errs = appendUnique(errs, ks.scaleErrors(obj.Object, rq.info.Subresource != "status"))
	if ks.rules == nil {
		return errs
	}
	for _, e := range errs {
		switch e.Type {
		case validation.ErrorTypeNotSupported, validation.ErrorTypeRequired, validation.ErrorTypeTooLong,
			validation.ErrorTypeTooMany, validation.ErrorTypeTypeInvalid:
			return append(errs, validation.Invalid(nil, nil, rulesNotChecked))
		}
	}
	var oldMap map[string]any
	if old != nil {
		// The rules compare like with like: the old object at the new one's version.
		o, err := rq.h.toVersion(old, obj.GroupVersionKind().GroupVersion())
		if err != nil {
			return append(errs, validation.InternalError(nil, err))
		}
		if oldMap, err = toMap(o); err != nil {
			return append(errs, validation.InternalError(nil, err))
		}
	}
	return appendUnique(errs, ks.rules.Validate(rq.ctx, obj.Object, oldMap))
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
