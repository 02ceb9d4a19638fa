// Package table builds the meta.k8s.io/v1 views of objects that clients ask for instead
// of the objects themselves: Table, which kubectl get requests with
//
//	Accept: application/json;as=Table;g=meta.k8s.io;v=v1
//
// and PartialObjectMetadata / PartialObjectMetadataList, which client-go's metadata client
// requests with as=PartialObjectMetadata (or as=PartialObjectMetadataList for a list).
//
// # Tables
//
// A Printer is compiled once per resource from its scheme.Resource. A resource with
// PrinterColumns is printed as kube-apiserver prints a custom resource: Name, each
// printer column (its JSONPath evaluated on the object's unstructured form, the cell typed
// per column), then Age. A resource without printer columns gets kube-apiserver's default
// table: Name and Created At. A schema-only kind (a CRD's; NewCustomResourcePrinter, or
// PrinterFor with schemaOnly) gets exactly the columns kube-apiserver gives a custom
// resource: Name and its printer columns, with no Age added (a CRD lists its own; one
// without printer columns gets the single Age column). Printer.Objects, Printer.List and Printer.Object build the
// Table of a list or of a single object; ForObjects, ForList and ForObject do the same
// without keeping a Printer.
//
// Each row carries the object as the includeObject query parameter asks (ParseOptions
// reads and validates it): a PartialObjectMetadata by default (IncludeMetadata), the full
// object (IncludeObject; pass it already converted to the requested version), or nothing
// (IncludeNone). kubectl get leaves includeObject unset, and sends Object only with
// --sort-by.
//
// For a watch with as=Table every event's object becomes a one-row Table; only the first
// event's table has column definitions. Printer.Watch returns a converter that does this.
//
// # The REST layer's part
//
// The REST handler negotiates the media type, calls ParseOptions (an error is a 400
// BadRequest with err.Error() as the message), builds the table or partial metadata, and
// answers 406 NotAcceptable where kube-apiserver does: PartialObjectMetadata asked for a
// list, PartialObjectMetadataList asked for a single object, or a meta.k8s.io version
// other than v1 and v1beta1. ERROR events of a watch carry a Status and are sent as they are.
//
// # JSONPath
//
// JSONPath implements the part of client-go's jsonpath that a printer column can use:
// field paths, subscripts, slices, wildcards, recursive descent and filters such as
// .status.conditions[?(@.type=="Ready")].status.
package table
