// Package apiextensions serves resources defined by CustomResourceDefinition manifests,
// without Go types: the CRD YAML that kubebuilder's controller-gen writes to
// config/crd/bases is enough.
//
// The CRD Go types are apikit's own (CustomResourceDefinition and the types it holds),
// with the JSON of apiextensions.k8s.io/v1 to the byte; the schema is an
// *openapi.Schema. Load, LoadFS and Decode read manifests (multi-document YAML or JSON,
// files or directories, an fs.FS, or bytes) and apply kube's defaults (SetDefaults).
// Validate checks a CRD as kube-apiserver does on create, with its messages and field
// paths; each schema is compiled by validation/structural, which says whether it is
// structural. Install validates a CRD and registers it in a scheme: an unstructured
// kind and list kind per served version with its schema, and a scheme.Resource with the
// CRD's names, scope, subresources, printer columns, selectable fields, storage version
// and deprecations. Package rest then serves it through the same data path as kinds
// defined in Go, enforcing the schema (pruning, defaulting, validation).
//
// Versions of a CRD convert by rewriting apiVersion (spec.conversion.strategy None) or,
// for strategy Webhook, through the CRD's conversion webhook (NewWebhookConverter:
// ConversionReview v1 or v1beta1, package webhook's client), or a Go function given as
// InstallOptions.Convert in its place. AddToScheme registers the CustomResourceDefinition kind itself, for a
// server that serves customresourcedefinitions.
//
// apiextensions sits above scheme, scheme/openapi, validation, validation/structural,
// conversion, codec, apierrors and webhook, and below rest; it imports nothing from
// k8s.io.
package apiextensions
