package v1

import (
	"encoding/json"

	authenticationv1 "github.com/apikit-dev/apikit/builtin/authentication/v1"
	"github.com/apikit-dev/apikit/scheme"
)

// AdmissionReview describes an admission review request and its response.
type AdmissionReview struct {
	scheme.TypeMeta `json:",inline"`
	// Request describes the attributes of the admission request.
	Request *AdmissionRequest `json:"request,omitempty"`
	// Response describes the attributes of the admission response.
	Response *AdmissionResponse `json:"response,omitempty"`
}

// GroupVersionKind is meta/v1 GroupVersionKind with its JSON field names.
type GroupVersionKind struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

// GroupVersionResource is meta/v1 GroupVersionResource with its JSON field names.
type GroupVersionResource struct {
	Group    string `json:"group"`
	Version  string `json:"version"`
	Resource string `json:"resource"`
}

// AdmissionRequest describes the admission attributes of one request.
type AdmissionRequest struct {
	// UID identifies this admission call; the response must carry it back.
	UID scheme.UID `json:"uid"`
	// Kind is the kind of the object sent (the version the webhook asked for).
	Kind GroupVersionKind `json:"kind"`
	// Resource is the resource being requested (the version the webhook asked for).
	Resource GroupVersionResource `json:"resource"`
	// SubResource is the subresource being requested, if any.
	SubResource string `json:"subResource,omitempty"`
	// RequestKind is the kind of the original request.
	RequestKind *GroupVersionKind `json:"requestKind,omitempty"`
	// RequestResource is the resource of the original request.
	RequestResource *GroupVersionResource `json:"requestResource,omitempty"`
	// RequestSubResource is the subresource of the original request.
	RequestSubResource string `json:"requestSubResource,omitempty"`
	// Name is the name of the object, empty for a create whose name is generated.
	Name string `json:"name,omitempty"`
	// Namespace is the namespace of the request, if any.
	Namespace string `json:"namespace,omitempty"`
	// Operation is CREATE, UPDATE, DELETE or CONNECT.
	Operation Operation `json:"operation"`
	// UserInfo is who sent the request.
	UserInfo authenticationv1.UserInfo `json:"userInfo"`
	// Object is the object of the request (null for DELETE).
	Object json.RawMessage `json:"object"`
	// OldObject is the existing object (UPDATE and DELETE only, else null).
	OldObject json.RawMessage `json:"oldObject"`
	// DryRun says the change will not be persisted.
	DryRun *bool `json:"dryRun,omitempty"`
	// Options are the operation's options (CreateOptions, UpdateOptions, DeleteOptions).
	Options json.RawMessage `json:"options"`
}

// AdmissionResponse describes an admission response.
type AdmissionResponse struct {
	// UID is the request's uid.
	UID scheme.UID `json:"uid"`
	// Allowed indicates whether or not the admission request was permitted.
	Allowed bool `json:"allowed"`
	// Result contains extra details into why an admission request was denied.
	Result *scheme.Status `json:"status,omitempty"`
	// Patch is the patch body (a JSON Patch, RFC 6902).
	Patch []byte `json:"patch,omitempty"`
	// PatchType is the type of Patch; only JSONPatch is allowed.
	PatchType *PatchType `json:"patchType,omitempty"`
	// AuditAnnotations are added to the request's audit event, keyed
	// "<webhook name>/<key>".
	AuditAnnotations map[string]string `json:"auditAnnotations,omitempty"`
	// Warnings are returned to the client as Warning headers.
	Warnings []string `json:"warnings,omitempty"`
}

// PatchType is the type of patch being used to represent the mutated object.
type PatchType string

// PatchTypeJSONPatch is the only PatchType.
const PatchTypeJSONPatch PatchType = "JSONPatch"

// Operation is the type of resource operation being checked for admission control.
type Operation string

// The operations.
const (
	Create  Operation = "CREATE"
	Update  Operation = "UPDATE"
	Delete  Operation = "DELETE"
	Connect Operation = "CONNECT"
)
