package registry

import (
	"context"

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
