package strategies

import (
	"context"
	"fmt"
	"reflect"

	"github.com/apikit-dev/apikit/authn"
	"github.com/apikit-dev/apikit/authz"
	authorizationv1 "github.com/apikit-dev/apikit/builtin/authorization/v1"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// Authorization answers the access reviews as kube-apiserver does: validated
// (422 as kube words it), then decided by authz.Authorize for the requester
// (SelfSubjectAccessReview) or for spec's user (SubjectAccessReview,
// LocalSubjectAccessReview, the latter only about its own namespace). Builtin
// includes them.
func Authorization() map[scheme.GroupResource]rest.Strategy {
	return map[scheme.GroupResource]rest.Strategy{
		authorizationv1.SubjectAccessReviews:      accessReviewStrategy{},
		authorizationv1.SelfSubjectAccessReviews:  accessReviewStrategy{},
		authorizationv1.LocalSubjectAccessReviews: accessReviewStrategy{},
	}
}

// accessReviewStrategy answers the three access review kinds.
type accessReviewStrategy struct{}

// RespondToCreate implements rest.CreateResponder.
func (accessReviewStrategy) RespondToCreate(ctx context.Context, user *authn.User, obj scheme.Object) (scheme.Object, error) {
	var (
		spec   authorizationv1.SubjectAccessReviewSpec
		status *authorizationv1.SubjectAccessReviewStatus
		errs   validation.ErrorList
		kind   string
	)
	switch review := obj.(type) {
	case *authorizationv1.SelfSubjectAccessReview:
		kind, status = "SelfSubjectAccessReview", &review.Status
		spec = authorizationv1.SubjectAccessReviewSpec{ResourceAttributes: review.Spec.ResourceAttributes, NonResourceAttributes: review.Spec.NonResourceAttributes,
			User: user.Name, UID: user.UID, Groups: user.Groups, Extra: extraValues(user.Extra)}
		errs = append(validateAttributes(review.Spec.ResourceAttributes, review.Spec.NonResourceAttributes), validateEmptyMeta(review.ObjectMeta, false)...)
	case *authorizationv1.SubjectAccessReview:
		kind, status, spec = "SubjectAccessReview", &review.Status, review.Spec
		errs = append(validateReviewSpec(review.Spec), validateEmptyMeta(review.ObjectMeta, false)...)
	case *authorizationv1.LocalSubjectAccessReview:
		kind, status, spec = "LocalSubjectAccessReview", &review.Status, review.Spec
		errs = append(validateReviewSpec(review.Spec), validateEmptyMeta(review.ObjectMeta, true)...)
		if a := spec.ResourceAttributes; a != nil && a.Namespace != review.Namespace {
			errs = append(errs, validation.Invalid(validation.NewPath("spec.resourceAttributes.namespace"), a.Namespace, "must match metadata.namespace"))
		}
		if spec.NonResourceAttributes != nil {
			errs = append(errs, validation.Invalid(validation.NewPath("spec.nonResourceAttributes"), spec.NonResourceAttributes, "disallowed on this kind of request"))
		}
	default:
		return nil, rest.NewBadRequest(fmt.Sprintf("not an access review: %T", obj))
	}
	if len(errs) > 0 {
		return nil, errs.ToStatus(scheme.GroupKind{Group: authorizationv1.SchemeGroupVersion.Group, Kind: kind}, "")
	}
	allowed, reason, err := authz.Authorize(ctx, reviewAttributes(spec))
	*status = authorizationv1.SubjectAccessReviewStatus{Allowed: allowed, Reason: reason}
	if err != nil {
		status.EvaluationError = err.Error()
	}
	return obj, nil
}

// reviewAttributes returns the request a SubjectAccessReview's spec asks about, as kube's
// AuthorizationAttributesFrom does: an empty version is "*".
func reviewAttributes(spec authorizationv1.SubjectAccessReviewSpec) authz.Attributes {
	user := &authn.User{Name: spec.User, UID: spec.UID, Groups: spec.Groups}
	if spec.Extra != nil {
		user.Extra = make(map[string][]string, len(spec.Extra))
		for k, v := range spec.Extra {
			user.Extra[k] = v
		}
	}
	if r := spec.ResourceAttributes; r != nil {
		version := r.Version
		if version == "" {
			version = "*"
		}
		return authz.Attributes{User: user, Verb: r.Verb, Namespace: r.Namespace, APIGroup: r.Group, APIVersion: version,
			Resource: r.Resource, Subresource: r.Subresource, Name: r.Name, ResourceRequest: true}
	}
	var a authz.Attributes
	if n := spec.NonResourceAttributes; n != nil {
		a.Path, a.Verb = n.Path, n.Verb
	}
	a.User = user
	return a
}

// extraValues is the Extra of a user as a review's spec holds it.
func extraValues(extra map[string][]string) map[string]authorizationv1.ExtraValue {
	if extra == nil {
		return nil
	}
	out := make(map[string]authorizationv1.ExtraValue, len(extra))
	for k, v := range extra {
		out[k] = v
	}
	return out
}

// validateAttributes is kube's ValidateSelfSubjectAccessReviewSpec.
func validateAttributes(r *authorizationv1.ResourceAttributes, n *authorizationv1.NonResourceAttributes) validation.ErrorList {
	var errs validation.ErrorList
	p := validation.NewPath("spec")
	if r != nil && n != nil {
		errs = append(errs, validation.Invalid(p.Child("nonResourceAttributes"), n, "cannot be specified in combination with resourceAttributes"))
	}
	if r == nil && n == nil {
		errs = append(errs, validation.Invalid(p.Child("resourceAttributes"), n, "exactly one of nonResourceAttributes or resourceAttributes must be specified"))
	}
	return errs
}

// validateReviewSpec is kube's ValidateSubjectAccessReviewSpec.
func validateReviewSpec(spec authorizationv1.SubjectAccessReviewSpec) validation.ErrorList {
	errs := validateAttributes(spec.ResourceAttributes, spec.NonResourceAttributes)
	if spec.User == "" && len(spec.Groups) == 0 {
		errs = append(errs, validation.Invalid(validation.NewPath("spec", "user"), spec.User, "at least one of user or group must be specified"))
	}
	return errs
}

// validateEmptyMeta is kube's rule that a review's metadata is empty (but for
// managedFields, and the namespace of a LocalSubjectAccessReview).
func validateEmptyMeta(meta scheme.ObjectMeta, local bool) validation.ErrorList {
	m := meta
	m.ManagedFields = nil
	detail := "must be empty"
	if local {
		m.Namespace, detail = "", "must be empty except for namespace"
	}
	if reflect.DeepEqual(m, scheme.ObjectMeta{}) || emptyCollections(m) {
		return nil
	}
	return validation.ErrorList{validation.Invalid(validation.NewPath("metadata"), meta, detail)}
}

// emptyCollections tells whether m holds nothing but empty maps and slices, which kube's
// semantic equality treats as unset.
func emptyCollections(m scheme.ObjectMeta) bool {
	if len(m.Labels) == 0 && len(m.Annotations) == 0 {
		m.Labels, m.Annotations = nil, nil
	}
	if len(m.Finalizers) == 0 && len(m.OwnerReferences) == 0 {
		m.Finalizers, m.OwnerReferences = nil, nil
	}
	return reflect.DeepEqual(m, scheme.ObjectMeta{})
}
