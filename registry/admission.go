package registry

import (
	"context"
	"errors"

	"github.com/apikit-dev/apikit/apierrors"
	"github.com/apikit-dev/apikit/authz"
	"github.com/apikit-dev/apikit/scheme"
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
	// Scheme is the Store's scheme: plugins that hand the object to someone outside the
	// process (webhooks, CEL policies) convert it to a version with it (package
	// conversion).
	Scheme *scheme.Scheme
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

// admissionAttributes are the attributes admission sees of an operation on the object
// name, old the stored object (internal version) or nil.
func (o *op) admissionAttributes(ctx context.Context, verb string, operation Operation, name string, old scheme.Object) AdmissionAttributes {
	return AdmissionAttributes{Attributes: o.attributes(ctx, verb, name), Kind: o.gvk, Operation: operation, OldObject: old, DryRun: o.rq.DryRun, Scheme: o.s.scheme}
}

// admissionError is the answer to a write an admission plugin or a strategy's
// AuthorizeCreate or AuthorizeUpdate refused: its Status as it is, else kube's 403
// Forbidden of the object with the error's text (as kube-apiserver's RBAC storage
// answers an escalation).
func (o *op) admissionError(err error, name string) error {
	var st *scheme.Status
	if errors.As(err, &st) {
		return st
	}
	return apierrors.NewForbidden(o.gr, name, err)
}

// mutate runs the mutating admission plugins in order.
func (o *op) mutate(ctx context.Context, a AdmissionAttributes, obj scheme.Object) error {
	for _, m := range o.s.opts.MutatingAdmission {
		if err := m.Admit(ctx, a, obj); err != nil {
			return o.admissionError(err, a.ObjectName(obj))
		}
	}
	return nil
}

// ObjectName is the name kube's admission errors give obj, the object of the write a
// describes: the request's name, else the object's, else (a create runs mutating
// admission before the name is generated) its generateName.
func (a AdmissionAttributes) ObjectName(obj scheme.Object) string {
	switch {
	case a.Name != "":
		return a.Name
	case obj == nil:
		return ""
	case obj.GetName() != "":
		return obj.GetName()
	}
	return obj.GetGenerateName()
}

// validateAdmission runs the validating admission plugins in order.
func (o *op) validateAdmission(ctx context.Context, a AdmissionAttributes, obj scheme.Object) error {
	for _, v := range o.s.opts.ValidatingAdmission {
		if err := v.Validate(ctx, a, obj); err != nil {
			return o.admissionError(err, a.Name)
		}
	}
	return nil
}
