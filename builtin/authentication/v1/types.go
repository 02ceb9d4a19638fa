package v1

import "github.com/apikit-dev/apikit/scheme"

// SchemeGroupVersion is the group of SelfSubjectReviews.
var SchemeGroupVersion = scheme.GroupVersion{Group: "authentication.k8s.io", Version: "v1"}

// SelfSubjectReviews is the resource of SelfSubjectReviews.
var SelfSubjectReviews = scheme.GroupResource{Group: SchemeGroupVersion.Group, Resource: "selfsubjectreviews"}

// SelfSubjectReview asks who the requester is: created, answered with status.userInfo,
// never stored (kubectl auth whoami).
type SelfSubjectReview struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`

	Status SelfSubjectReviewStatus `json:"status,omitempty"`
}

// SelfSubjectReviewStatus holds the answer of a SelfSubjectReview.
type SelfSubjectReviewStatus struct {
	UserInfo UserInfo `json:"userInfo,omitempty"`
}

// UserInfo is what the server's authenticator said about the requester.
type UserInfo struct {
	Username string                `json:"username,omitempty"`
	UID      string                `json:"uid,omitempty"`
	Groups   []string              `json:"groups,omitempty"`
	Extra    map[string]ExtraValue `json:"extra,omitempty"`
}

// ExtraValue is one value list of UserInfo.Extra.
type ExtraValue []string

// SelfSubjectReviewList exists because every kind has a list kind; nothing lists reviews.
type SelfSubjectReviewList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty"`
	Items           []SelfSubjectReview `json:"items"`
}
