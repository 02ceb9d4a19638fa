package registry

import (
	"context"

	"github.com/apikit-dev/apikit/conversion"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// validateCreate runs the validation of a new object: for a kind with a compiled
// schema, as kube-apiserver validates a custom resource (metadata, then the schema,
// then its rules), then the strategy's Validate; for other kinds the strategy's
// Validate, then metadata.
func (o *op) validateCreate(ctx context.Context, obj scheme.Object) error {
	var hookErrs validation.ErrorList
	if f := o.hooks.Validate; f != nil {
		hookErrs = f(ctx, obj)
	}
	if len(hookErrs) > 0 && o.hooks.metadataAfterValidate {
		return o.invalid(hookErrs, obj.GetName())
	}
	meta := validation.ValidateObjectMeta(obj, o.res.Namespaced, o.res.NameValidation, validation.NewPath("metadata"))
	var errs validation.ErrorList
	if u, ks := o.s.SchemaFor(obj); ks != nil {
		errs = appendUnique(o.schemaErrors(ctx, meta, u, ks, nil), hookErrs)
	} else {
		errs = appendUnique(hookErrs, meta)
	}
	if len(errs) > 0 {
		return o.invalid(errs, obj.GetName())
	}
	return nil
}

// validateUpdate runs the validation of an update: metadata, then for a kind with a
// compiled schema the schema and its rules (only the status schema on /status, where
// the rules still see the whole object, as in kube-apiserver), then the strategy's
// ValidateUpdate.
func (o *op) validateUpdate(ctx context.Context, obj, old scheme.Object) error {
	errs := validation.ValidateObjectMetaUpdate(obj, old, validation.NewPath("metadata"))
	if u, ks := o.s.SchemaFor(obj); ks != nil {
		errs = o.schemaErrors(ctx, errs, u, ks, old)
	}
	if f := o.hooks.forUpdate(o.rq.Subresource).ValidateUpdate; f != nil {
		errs = appendUnique(errs, f(ctx, obj, old))
	}
	if len(errs) > 0 {
		return o.invalid(errs, obj.GetName())
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
func (o *op) schemaErrors(ctx context.Context, errs validation.ErrorList, obj *scheme.Unstructured, ks *Schema, old scheme.Object) validation.ErrorList {
	switch {
	case o.rq.Subresource != "status":
		errs = appendUnique(errs, ks.Structural.Validate(obj.Object))
	case ks.Status != nil:
		if _, ok := obj.Object["status"]; ok {
			errs = appendUnique(errs, ks.Status.Validate(obj.Object))
		}
	}
	errs = appendUnique(errs, ks.ScaleErrors(obj.Object, o.rq.Subresource != "status"))
	if ks.Rules == nil {
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
		o, err := conversion.ObjectToVersion(o.s.scheme, old, obj.GroupVersionKind().GroupVersion())
		if err != nil {
			return append(errs, validation.InternalError(nil, err))
		}
		if oldMap, err = conversion.ObjectMap(o); err != nil {
			return append(errs, validation.InternalError(nil, err))
		}
	}
	return appendUnique(errs, ks.Rules.Validate(ctx, obj.Object, oldMap))
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

func (o *op) invalid(errs validation.ErrorList, name string) error {
	return errs.ToStatus(o.gvk.GroupKind(), name)
}
