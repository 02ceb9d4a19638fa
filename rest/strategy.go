package rest

import (
	"context"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// Strategy holds the optional per-resource hooks of one resource. The Handler looks for
// the methods below by type assertion; a strategy implements any subset of them. Objects
// handed to a strategy are the INTERNAL (hub) version of the kind when the group has
// one, and are the request's own copies: a hook may change them.
//
//   - PrepareForCreate(ctx context.Context, obj scheme.Object) ([CreatePreparer]): after
//     the server has set uid, creationTimestamp, generation and namespace on a create.
//   - PrepareForUpdate(ctx context.Context, obj, old scheme.Object) ([UpdatePreparer]):
//     after the server has carried the stored fields over on an update.
//   - Validate(ctx context.Context, obj scheme.Object) validation.ErrorList
//     ([CreateValidator]): kind-specific checks of a new object; errors become a 422
//     Invalid Status together with the generic metadata checks.
//   - ValidateUpdate(ctx context.Context, obj, old scheme.Object) validation.ErrorList
//     ([UpdateValidator]): the same for an update.
//   - WarningsOnCreate(ctx context.Context, obj scheme.Object) []string and
//     WarningsOnUpdate(ctx context.Context, obj, old scheme.Object) []string
//     ([CreateWarner], [UpdateWarner]): messages returned as Warning headers.
//
// Whether a PUT may create a missing object is scheme.Resource.AllowCreateOnUpdate.
type Strategy interface{}

// CreatePreparer is the optional Strategy method that adjusts a new object.
type CreatePreparer interface {
	PrepareForCreate(ctx context.Context, obj scheme.Object)
}

// UpdatePreparer is the optional Strategy method that adjusts an updated object.
type UpdatePreparer interface {
	PrepareForUpdate(ctx context.Context, obj, old scheme.Object)
}

// CreateValidator is the optional Strategy method that validates a new object.
type CreateValidator interface {
	Validate(ctx context.Context, obj scheme.Object) validation.ErrorList
}

// UpdateValidator is the optional Strategy method that validates an update.
type UpdateValidator interface {
	ValidateUpdate(ctx context.Context, obj, old scheme.Object) validation.ErrorList
}

// CreateWarner is the optional Strategy method that returns warnings for a new object.
type CreateWarner interface {
	WarningsOnCreate(ctx context.Context, obj scheme.Object) []string
}

// UpdateWarner is the optional Strategy method that returns warnings for an update.
type UpdateWarner interface {
	WarningsOnUpdate(ctx context.Context, obj, old scheme.Object) []string
}
