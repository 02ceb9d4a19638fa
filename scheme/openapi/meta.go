package openapi

import (
	"reflect"

	"github.com/apikit-dev/apikit/quantity"
	"github.com/apikit-dev/apikit/scheme"
)

// metaPrefix is the definition-name prefix of the meta/v1 types in kube-apiserver's
// documents. Clients recognise ObjectMeta and friends by these names.
const metaPrefix = "io.k8s.apimachinery.pkg.apis.meta.v1."

// Definition names of the meta types, exactly as kube-apiserver publishes them.
const (
	ObjectMetaName         = metaPrefix + "ObjectMeta"
	ListMetaName           = metaPrefix + "ListMeta"
	TimeName               = metaPrefix + "Time"
	OwnerReferenceName     = metaPrefix + "OwnerReference"
	ManagedFieldsEntryName = metaPrefix + "ManagedFieldsEntry"
	FieldsV1Name           = metaPrefix + "FieldsV1"
	ConditionName          = metaPrefix + "Condition"
	StatusName             = metaPrefix + "Status"
	StatusDetailsName      = metaPrefix + "StatusDetails"
	StatusCauseName        = metaPrefix + "StatusCause"
)

// Definition names of the value types, as kube-apiserver publishes them (and as
// kube-openapi's schemaconv recognizes Quantity and RawExtension by).
const (
	QuantityName     = "io.k8s.apimachinery.pkg.api.resource.Quantity"
	IntOrStringName  = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
	RawExtensionName = "io.k8s.apimachinery.pkg.runtime.RawExtension"
)

// metaNames maps scheme's meta types to their Kubernetes definition names.
var metaNames = map[reflect.Type]string{
	reflect.TypeFor[quantity.Quantity]():         QuantityName,
	reflect.TypeFor[scheme.IntOrString]():        IntOrStringName,
	reflect.TypeFor[scheme.RawExtension]():       RawExtensionName,
	reflect.TypeFor[scheme.ObjectMeta]():         ObjectMetaName,
	reflect.TypeFor[scheme.ListMeta]():           ListMetaName,
	reflect.TypeFor[scheme.Time]():               TimeName,
	reflect.TypeFor[scheme.OwnerReference]():     OwnerReferenceName,
	reflect.TypeFor[scheme.ManagedFieldsEntry](): ManagedFieldsEntryName,
	reflect.TypeFor[scheme.FieldsV1]():           FieldsV1Name,
	reflect.TypeFor[scheme.Condition]():          ConditionName,
	reflect.TypeFor[scheme.Status]():             StatusName,
	reflect.TypeFor[scheme.StatusDetails]():      StatusDetailsName,
	reflect.TypeFor[scheme.StatusCause]():        StatusCauseName,
}

// metaTypesByName is metaNames reversed: a registered schema may refer to a meta
// definition by name, and the document then gains it.
var metaTypesByName = func() map[string]reflect.Type {
	out := make(map[string]reflect.Type, len(metaNames))
	for t, n := range metaNames {
		out[n] = t
	}
	return out
}()

// metaStatusKinds is the x-kubernetes-group-version-kind of the Status definition:
// kube-apiserver lists it under the core group's v1, where error responses say it lives.
var metaStatusKinds = []scheme.GroupVersionKind{{Version: "v1", Kind: "Status"}}

// metaDocs describes the meta types and their fields, keyed by JSON name ("" is the type
// itself), in the shape of a SwaggerDoc method: scheme's types carry no such method and
// this package must not edit them.
var metaDocs = map[reflect.Type]map[string]string{
	reflect.TypeFor[scheme.TypeMeta](): {
		"apiVersion": "APIVersion defines the versioned schema of this representation of an object. Servers convert recognized schemas to the latest internal value and may reject unrecognized values.",
		"kind":       "Kind is a string value representing the REST resource this object represents, in CamelCase. Servers may infer it from the endpoint the client submits requests to. Cannot be updated.",
	},
	reflect.TypeFor[scheme.ObjectMeta](): {
		"":                           "ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.",
		"name":                       "Name is unique within a namespace. Required when creating resources, unless generateName is used. Cannot be updated.",
		"generateName":               "GenerateName is an optional prefix the server uses to generate a unique name when Name is not provided.",
		"namespace":                  "Namespace is the space within which each name must be unique. Empty for cluster-scoped objects. Cannot be updated.",
		"selfLink":                   "Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.",
		"uid":                        "UID is the unique in time and space value for this object, set by the server on creation. Read-only.",
		"resourceVersion":            "An opaque value that represents the internal version of this object, for optimistic concurrency, change detection and watch. Read-only.",
		"generation":                 "A sequence number representing a specific generation of the desired state. Populated by the system. Read-only.",
		"creationTimestamp":          "CreationTimestamp is the server time when this object was created, in RFC 3339 form and UTC. Read-only.",
		"deletionTimestamp":          "DeletionTimestamp is the RFC 3339 date and time after which this resource will be deleted, set when a graceful deletion is requested. Read-only.",
		"deletionGracePeriodSeconds": "Number of seconds allowed for this object to gracefully terminate before it is removed. Read-only.",
		"labels":                     "Map of string keys and values that can be used to organize and categorize (scope and select) objects.",
		"annotations":                "Annotations is an unstructured key value map stored with a resource that tools may use to store and retrieve arbitrary metadata.",
		"ownerReferences":            "List of objects this object depends on. When all of them have been deleted, this object is garbage collected.",
		"finalizers":                 "Must be empty before the object is deleted from the registry. Each entry identifies the component responsible for removing it.",
		"managedFields":              "ManagedFields records which manager owns which fields, for server-side apply. Mostly for internal housekeeping.",
	},
	reflect.TypeFor[scheme.ListMeta](): {
		"":                   "ListMeta describes metadata that synthetic resources must have, including lists and various status objects.",
		"selfLink":           "Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.",
		"resourceVersion":    "String that identifies the server's internal version of this list, to be passed unmodified back to the server. Read-only.",
		"continue":           "Continue is set when the user set a limit on the number of items returned and the server has more data available. The value is opaque.",
		"remainingItemCount": "RemainingItemCount is the number of subsequent items in the list which are not included in this list response, when known.",
	},
	reflect.TypeFor[scheme.Time](): {
		"": "Time is a timestamp in RFC 3339 form at second precision, in UTC.",
	},
	reflect.TypeFor[scheme.FieldsV1](): {
		"": "FieldsV1 stores a set of fields in a data structure like a Trie, in JSON format, as defined in sigs.k8s.io/structured-merge-diff.",
	},
	reflect.TypeFor[scheme.OwnerReference](): {
		"":                   "OwnerReference contains enough information to identify an owning object in the same namespace, or a cluster-scoped one.",
		"apiVersion":         "API version of the referent.",
		"kind":               "Kind of the referent.",
		"name":               "Name of the referent.",
		"uid":                "UID of the referent.",
		"controller":         "If true, this reference points to the managing controller.",
		"blockOwnerDeletion": "If true, and the owner has the foregroundDeletion finalizer, the owner cannot be deleted until this reference is removed.",
	},
	reflect.TypeFor[scheme.ManagedFieldsEntry](): {
		"":            "ManagedFieldsEntry is a workflow-id, a FieldSet and the group version of the resource that the fieldset applies to.",
		"manager":     "Manager is an identifier of the workflow managing these fields.",
		"operation":   "Operation is the type of operation which led to this entry: Apply or Update.",
		"apiVersion":  "APIVersion is the version of this resource that this field set applies to.",
		"time":        "Time is the timestamp of when this entry was last changed.",
		"fieldsType":  "FieldsType is the discriminator for the different fields format and version. The only value is FieldsV1.",
		"fieldsV1":    "FieldsV1 holds the field set in the FieldsV1 format.",
		"subresource": "Subresource is the name of the subresource used to update the object, or empty for the main resource.",
	},
	reflect.TypeFor[scheme.Condition](): {
		"":                   "Condition contains details for one aspect of the current state of this API Resource.",
		"type":               "Type of condition in CamelCase.",
		"status":             "Status of the condition, one of True, False, Unknown.",
		"observedGeneration": "ObservedGeneration is the metadata.generation the condition was set based upon.",
		"lastTransitionTime": "LastTransitionTime is the last time the condition transitioned from one status to another.",
		"reason":             "Reason is a programmatic identifier in CamelCase indicating the reason for the last transition.",
		"message":            "Message is a human readable message indicating details about the transition.",
	},
	reflect.TypeFor[scheme.Status](): {
		"":         "Status is a return value for calls that don't return other objects.",
		"metadata": "Standard list metadata.",
		"status":   "Status of the operation: Success or Failure.",
		"message":  "A human-readable description of the status of this operation.",
		"reason":   "A machine-readable description of why this operation is in the Failure status.",
		"details":  "Extended data associated with the reason.",
		"code":     "Suggested HTTP return code for this status, 0 if not set.",
	},
	reflect.TypeFor[scheme.StatusDetails](): {
		"":                  "StatusDetails is a set of additional properties that the server may set to give more information about a response.",
		"name":              "The name attribute of the resource associated with the status reason.",
		"group":             "The group attribute of the resource associated with the status reason.",
		"kind":              "The kind attribute of the resource associated with the status reason.",
		"uid":               "UID of the resource.",
		"causes":            "The Causes array includes more details associated with the failure.",
		"retryAfterSeconds": "If specified, the time in seconds before the operation should be retried.",
	},
	reflect.TypeFor[scheme.StatusCause](): {
		"":        "StatusCause provides more information about a Status failure.",
		"reason":  "A machine-readable description of the cause of the error.",
		"message": "A human-readable description of the cause of the error.",
		"field":   "The field of the resource that has caused this error, as named by its JSON serialization.",
	},
}

// metaTypeTags are type-level extensions of meta definitions.
var metaTypeTags = map[reflect.Type]func(*Schema){
	reflect.TypeFor[scheme.OwnerReference](): func(s *Schema) { s.MapType = "atomic" },
	reflect.TypeFor[scheme.Status](): func(s *Schema) {
		s.GroupVersionKinds = append(s.GroupVersionKinds, metaStatusKinds...)
	},
}

// fieldTypeDocs describe a field by its type when nothing else does: every kind's
// metadata field.
var fieldTypeDocs = map[reflect.Type]string{
	reflect.TypeFor[scheme.ObjectMeta](): "Standard object's metadata.",
	reflect.TypeFor[scheme.ListMeta]():   "Standard list metadata.",
}
