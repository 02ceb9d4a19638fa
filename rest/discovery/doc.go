// Package discovery serves what Kubernetes clients read before they touch a resource:
// discovery, /version and the OpenAPI documents, all derived from a scheme.Scheme.
//
// [New] builds every document once and returns an http.Handler for these paths (package
// rest routes them here through rest.Options.Discovery):
//
//   - /api (APIVersions of the core group), /apis (APIGroupList), /apis/GROUP (APIGroup),
//     /apis/GROUP/VERSION and /api/v1 (APIResourceList with verbs, shortNames,
//     categories, singularName, storageVersionHash and the status and scale
//     subresources), in the exact meta/v1 JSON shapes, as JSON or YAML.
//   - Aggregated discovery on /api and /apis: an Accept clause
//     application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList (or v2beta1)
//     returns the whole APIGroupDiscoveryList in one response, with the same parameters
//     in Content-Type, Vary: Accept, an ETag (the SHA-512 of the body) and 304 for a
//     matching If-None-Match. A clause for an aggregated version this package lacks is
//     skipped, so the unaggregated document is served if the header also accepts it.
//   - /version: VersionInfo; by default Kubernetes 1.32 ("v1.32.0+apikit"), so kubectl
//     1.31 to 1.33 prints no version-skew warning.
//   - /openapi/v2 (Swagger 2.0) and /openapi/v3 with /openapi/v3/apis/GROUP/VERSION,
//     built with package scheme/openapi, plus path items for each resource. A v3 URL's
//     ?hash= matching the document gets immutable caching headers; a stale hash is
//     redirected (301) to the current URL, as kube-apiserver's handler does.
//
// # What kubectl needs from OpenAPI
//
// kubectl create, apply and replace validate by default (--validate=strict). kubectl
// 1.32 first looks in the v3 document for a PATCH operation of the object's kind that has
// a fieldValidation query parameter; if it finds one, it leaves validation to the server.
// If not, it downloads /openapi/v2 as protobuf (gnostic), which apikit does not encode,
// and the command fails. That is why New fills the documents' paths (see
// Options.DisableOpenAPIPaths). Protobuf variants of discovery and OpenAPI are otherwise
// not served: JSON whenever the Accept header admits it, 406 when it does not.
package discovery
