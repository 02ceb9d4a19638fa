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
	scheme.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	Status SelfSubjectReviewStatus `json:"status,omitempty" protobuf:"bytes,2,opt,name=status"`
}

// SelfSubjectReviewStatus holds the answer of a SelfSubjectReview.
type SelfSubjectReviewStatus struct {
	UserInfo UserInfo `json:"userInfo,omitempty" protobuf:"bytes,1,opt,name=userInfo"`
}

// UserInfo is what the server's authenticator said about the requester.
type UserInfo struct {
	Username string                `json:"username,omitempty" protobuf:"bytes,1,opt,name=username"`
	UID      string                `json:"uid,omitempty" protobuf:"bytes,2,opt,name=uid"`
	Groups   []string              `json:"groups,omitempty" protobuf:"bytes,3,rep,name=groups"`
	Extra    map[string]ExtraValue `json:"extra,omitempty" protobuf:"bytes,4,rep,name=extra"`
}

// ExtraValue is one value list of UserInfo.Extra.
type ExtraValue []string

// SelfSubjectReviewList exists because every kind has a list kind; nothing lists reviews.
type SelfSubjectReviewList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []SelfSubjectReview `json:"items" protobuf:"bytes,2,rep,name=items"`
}
