// Package patch applies the four patch formats of the Kubernetes API to objects, and
// keeps the field ownership (metadata.managedFields) that server-side apply needs.
//
//   - [JSONPatch] (or [DecodeJSONPatch] once and [JSON.Apply] many times) applies an
//     RFC 6902 JSON patch (with test operations) and [MergePatch] an RFC 7386 JSON merge
//     patch, both on a JSON document of any kind, typed or unstructured
//     (github.com/evanphx/json-patch/v5 does the JSON patch work; the merge is this
//     package's own, one pass over the document whatever its depth, with the results
//     of kube-apiserver's merge).
//   - [StrategicMerge] applies a strategic merge patch, driven by the kind's OpenAPI
//     schema (package scheme/openapi): lists whose schema carries
//     x-kubernetes-patch-strategy: merge are merged by their x-kubernetes-patch-merge-key,
//     and the directives $patch (replace, delete, merge), $retainKeys,
//     $deleteFromPrimitiveList/FIELD and $setElementOrder/FIELD are honoured.
//     [SchemaFor] returns the schema, or [ErrUnsupported] for kinds known only as
//     unstructured objects, which kube-apiserver does not strategic-merge either.
//   - A [FieldManager] runs server-side apply (application/apply-patch+yaml) on
//     sigs.k8s.io/structured-merge-diff/v6, the library kube-apiserver runs, with a
//     structured-merge-diff schema derived from the kind's OpenAPI schema: list-maps,
//     sets, atomic lists, granular and atomic maps, preserved unknown fields.
//     [DecodeApplyConfig] reads the YAML body; [FieldManager.Apply] merges the applied
//     configuration into the live object,
//     reporting conflicts with other managers as a [*ConflictError] unless forced, and
//     removing fields the manager stopped applying that nobody else owns;
//     [FieldManager.Update] records the fields a create, update or non-apply patch set
//     for its manager. Both keep metadata.managedFields in Kubernetes' exact encoding
//     (fieldsV1, operation, apiVersion, time, subresource, sorted as kube sorts them).
//     Update compares only what changed, and remembers what it recorded for each shape
//     of write (the members and list items of the objects, which scalars changed, the
//     managers' fields), so that the writes of a controller or a client, which repeat
//     one shape, compute it once; the caches are bounded per field manager.
//
// Errors wrap [ErrMalformed] (a patch that cannot be read: 400 BadRequest),
// [ErrRejected] (a patch that does not apply to the object: 422) or [ErrUnsupported]
// (415), or are a [*ConflictError] (409); package rest maps them to Status responses.
// [ManagerFromUserAgent] is kube's default field manager name.
//
// Server-side apply follows kube-apiserver's field manager chain: fields set before an
// object's first apply belong to "before-first-apply"; `kubectl` (the manager of
// kubectl apply --server-side) inherits, without --force-conflicts, the fields its
// client-side last-applied-configuration annotation set, and keeps that annotation in
// step; metadata, name, namespace, uid and the like are never recorded; at most
// MaxUpdateManagers Update entries are kept; managedFields set to [] or [{}] are reset.
//
// Strategic merge follows k8s.io/apimachinery's merge (e2e's TestStrategicMergeDiff
// compares them on generated inputs), list order and messages included. Where this
// package differs from kube-apiserver on the same input: JSON patch and strategic
// merge failures that kube answers with a bare 422 (or, like a list item without its
// merge key, a 500) carry the underlying message here; an unknown map directive is a
// 400 "unknown patch type: X" (kube: a 500 that also prints the map), a patched field
// its $retainKeys leaves out a 422 (kube: 400), inputs on which apimachinery panics an
// error; a merge list below a recursive type reference is replaced, not merged; an apply body with
// fields the schema does not declare is a 400 where kube still answers 500 (kubernetes
// issue 139253). application/apply-patch+cbor is not served yet.
package patch
