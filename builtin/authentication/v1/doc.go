// Package v1 holds the authentication.k8s.io/v1 kinds, laid out like
// k8s.io/api/authentication/v1 (import it as authenticationv1): SelfSubjectReview, which
// kubectl auth whoami creates and the server answers with the requester's UserInfo
// without storing it, and SelfSubjectReviewList. Package builtin registers them in a
// scheme; the answer is the strategies' business.
package v1
