package v1

import (
	metav1 "github.com/apikit-dev/apikit/builtin/meta/v1"
	"github.com/apikit-dev/apikit/scheme"
)

// SchemeGroupVersion is the group of the access reviews.
var SchemeGroupVersion = scheme.GroupVersion{Group: "authorization.k8s.io", Version: "v1"}

// Resource names of the access reviews.
var (
	SubjectAccessReviews      = scheme.GroupResource{Group: SchemeGroupVersion.Group, Resource: "subjectaccessreviews"}
	SelfSubjectAccessReviews  = scheme.GroupResource{Group: SchemeGroupVersion.Group, Resource: "selfsubjectaccessreviews"}
	LocalSubjectAccessReviews = scheme.GroupResource{Group: SchemeGroupVersion.Group, Resource: "localsubjectaccessreviews"}
)

// SubjectAccessReview asks whether a user may do something: created, answered with
// status, never stored. A kube-apiserver answers them for webhook-delegating servers.
type SubjectAccessReview struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`

	Spec   SubjectAccessReviewSpec   `json:"spec"`
	Status SubjectAccessReviewStatus `json:"status,omitempty"`
}

// SubjectAccessReviewList exists because every kind has a list kind.
type SubjectAccessReviewList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty"`
	Items           []SubjectAccessReview `json:"items"`
}

// SelfSubjectAccessReview asks whether the requester may do something (kubectl auth
// can-i).
type SelfSubjectAccessReview struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`

	Spec   SelfSubjectAccessReviewSpec `json:"spec"`
	Status SubjectAccessReviewStatus   `json:"status,omitempty"`
}

// SelfSubjectAccessReviewList exists because every kind has a list kind.
type SelfSubjectAccessReviewList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty"`
	Items           []SelfSubjectAccessReview `json:"items"`
}

// LocalSubjectAccessReview is a SubjectAccessReview created in, and only about, one
// namespace.
type LocalSubjectAccessReview struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`

	Spec   SubjectAccessReviewSpec   `json:"spec"`
	Status SubjectAccessReviewStatus `json:"status,omitempty"`
}

// LocalSubjectAccessReviewList exists because every kind has a list kind.
type LocalSubjectAccessReviewList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty"`
	Items           []LocalSubjectAccessReview `json:"items"`
}

// SubjectAccessReviewSpec is the request and the user it is about; exactly one of
// ResourceAttributes and NonResourceAttributes is set.
type SubjectAccessReviewSpec struct {
	ResourceAttributes    *ResourceAttributes    `json:"resourceAttributes,omitempty"`
	NonResourceAttributes *NonResourceAttributes `json:"nonResourceAttributes,omitempty"`
	User                  string                 `json:"user,omitempty"`
	Groups                []string               `json:"groups,omitempty"`
	Extra                 map[string]ExtraValue  `json:"extra,omitempty"`
	UID                   string                 `json:"uid,omitempty"`
}

// SelfSubjectAccessReviewSpec is the request; the user is the requester.
type SelfSubjectAccessReviewSpec struct {
	ResourceAttributes    *ResourceAttributes    `json:"resourceAttributes,omitempty"`
	NonResourceAttributes *NonResourceAttributes `json:"nonResourceAttributes,omitempty"`
}

// ResourceAttributes describe a resource request; an empty version means every version.
type ResourceAttributes struct {
	Namespace     string                   `json:"namespace,omitempty"`
	Verb          string                   `json:"verb,omitempty"`
	Group         string                   `json:"group,omitempty"`
	Version       string                   `json:"version,omitempty"`
	Resource      string                   `json:"resource,omitempty"`
	Subresource   string                   `json:"subresource,omitempty"`
	Name          string                   `json:"name,omitempty"`
	FieldSelector *FieldSelectorAttributes `json:"fieldSelector,omitempty"`
	LabelSelector *LabelSelectorAttributes `json:"labelSelector,omitempty"`
}

// FieldSelectorAttributes are the field selector of a list or watch being reviewed.
// apikit's authorizers, like kube's RBAC, do not look at them.
type FieldSelectorAttributes struct {
	RawSelector  string                     `json:"rawSelector,omitempty"`
	Requirements []FieldSelectorRequirement `json:"requirements,omitempty"`
}

// FieldSelectorRequirement is meta/v1 FieldSelectorRequirement.
type FieldSelectorRequirement struct {
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values,omitempty"`
}

// LabelSelectorAttributes are the label selector of a list or watch being reviewed.
type LabelSelectorAttributes struct {
	RawSelector  string                            `json:"rawSelector,omitempty"`
	Requirements []metav1.LabelSelectorRequirement `json:"requirements,omitempty"`
}

// NonResourceAttributes describe a request to a path that is not a resource.
type NonResourceAttributes struct {
	Path string `json:"path,omitempty"`
	Verb string `json:"verb,omitempty"`
}

// SubjectAccessReviewStatus is the answer: allowed, or not (denied only when an
// authorizer denied outright rather than having no opinion), and why.
type SubjectAccessReviewStatus struct {
	Allowed         bool   `json:"allowed"`
	Denied          bool   `json:"denied,omitempty"`
	Reason          string `json:"reason,omitempty"`
	EvaluationError string `json:"evaluationError,omitempty"`
}

// ExtraValue is the values of one extra key of a user's information.
type ExtraValue []string
