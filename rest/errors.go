package rest

import (
	"errors"
	"net/http"

	"github.com/apikit-dev/apikit/apierrors"
	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// The Status errors of the HTTP layer alone; those of the object lifecycle are package
// apierrors'.

// continueExpiredMessage is kube's message for a continue token past compaction.
const continueExpiredMessage = "The provided continue parameter is too old to display a consistent list result. " +
	"You can start a new list without the continue parameter, or use the continue token in this response to " +
	"retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - " +
	"objects that were created, modified, or deleted between the time the first chunk was returned and now may " +
	"show up in the list."

// newGeneric is kube's NewGenericServerResponse for errors not about an object.
func newGeneric(code int32, reason scheme.StatusReason, msg string) *scheme.Status {
	return apierrors.New(code, reason, msg, &scheme.StatusDetails{})
}

func errPathNotFound() *scheme.Status {
	return newGeneric(http.StatusNotFound, scheme.StatusReasonNotFound, "the server could not find the requested resource")
}

func errMethodNotAllowed() *scheme.Status {
	return newGeneric(http.StatusMethodNotAllowed, scheme.StatusReasonMethodNotAllowed, "the server does not allow this method on the requested resource")
}

// newInvalidOptions is the 422 Status kube answers for invalid create/update/patch/delete
// options (kind CreateOptions.meta.k8s.io and so on).
func newInvalidOptions(kind string, errs validation.ErrorList) *scheme.Status {
	return errs.ToStatus(scheme.GroupKind{Group: "meta.k8s.io", Kind: kind}, "")
}

// toStatus maps any error of the pipeline to the Status sent to the client: the
// lifecycle's errors as apierrors.FromError maps them, a failed negotiation as 406, and
// anything else as a 500 InternalError.
func (h *Handler) toStatus(err error, gr scheme.GroupResource, name string) *scheme.Status {
	st, known := apierrors.FromError(err, gr, name, h.log)
	if !known && errors.Is(err, codec.ErrNotAcceptable) {
		return apierrors.NewNotAcceptable(nil)
	}
	return st
}
