// Package openapi derives OpenAPI schemas from the kinds registered in a scheme.Scheme,
// by reflection over their Go types, with no code generation: the documents package rest
// serves at /openapi/v2 and /openapi/v3 (so that kubectl explain, client-side apply and
// server-side apply work), and the schemas package patch feeds to server-side apply.
//
// One model, [Schema], renders two ways: as OpenAPI v3 (a [Document] of dialect [V3],
// refs to #/components/schemas/NAME) and as Swagger 2.0 (dialect [V2], refs to
// #/definitions/NAME), following kube-apiserver's conventions for both.
//
//   - [ForGroupVersion] is the v3 document of one group version
//     (/openapi/v3/apis/GROUP/VERSION); [ForAllGroupVersions] all of them, keyed by
//     [DiscoveryPath]; [NewDiscovery] the /openapi/v3 index with each document's [Hash].
//   - [Build] is the Swagger 2.0 document of everything (/openapi/v2).
//   - [ForKind] is one kind's schema with references expanded.
//
// # Reflection rules
//
// A property per JSON field, named by its json tag; embedded structs are flattened as
// encoding/json flattens them. A field is optional when it is a pointer or tagged
// omitempty or omitzero, and required otherwise (the Kubernetes convention). Go types
// map as k8s.io/kube-openapi's generator maps them: int32 => integer/int32, int64 =>
// integer/int64, float64 => number/double, bool => boolean, string => string, []byte =>
// string/byte, maps => object with additionalProperties, slices => array,
// scheme.Time => string/date-time, scheme.FieldsV1 => object, any and map[string]any =>
// x-kubernetes-preserve-unknown-fields. Named struct types become definitions (so
// recursive types are references), named after the group version they are reached from:
// Widget of toys.example.com/v1 is "com.example.toys.v1.Widget", as kube-apiserver names
// custom resources. The meta types keep Kubernetes' names
// ("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", ...) so clients recognise them.
// Kinds carry x-kubernetes-group-version-kind.
//
// Struct tags add what Go types cannot say:
//
//	Parts []Part `json:"parts,omitempty" listType:"map" listMapKeys:"name" patchStrategy:"merge" patchMergeKey:"name"`
//	Color string `json:"color" description:"Color of the widget." enum:"red,green,blue"`
//
// listType, listMapKeys, mapType, patchStrategy and patchMergeKey become the
// x-kubernetes-list-type, -list-map-keys, -map-type, -patch-strategy and
// -patch-merge-key extensions; description and enum the keywords of the same names. A
// type's SwaggerDoc() map[string]string method (the Kubernetes convention: "" describes
// the type, other keys its fields by JSON name) supplies descriptions too, and types
// with OpenAPISchemaType/OpenAPISchemaFormat methods describe themselves.
//
// # Registration
//
// [Register] gives a schema-only kind its schema (like a CRD's openAPIV3Schema);
// [Override] replaces reflection for one Go type; [Customize] adjusts what reflection
// derives for one Go type. All three keep their state in the Scheme.
package openapi
