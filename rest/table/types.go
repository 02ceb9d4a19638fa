package table

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/apikit-dev/apikit/scheme"
)

// GroupName is the group of Table and PartialObjectMetadata: meta.k8s.io.
const GroupName = "meta.k8s.io"

// SchemeGroupVersion is meta.k8s.io/v1, the version kubectl and client-go ask for.
var SchemeGroupVersion = scheme.GroupVersion{Group: GroupName, Version: "v1"}

// The kinds this package produces, in meta.k8s.io.
const (
	KindTable                     = "Table"
	KindPartialObjectMetadata     = "PartialObjectMetadata"
	KindPartialObjectMetadataList = "PartialObjectMetadataList"
)

// Table is meta.k8s.io/v1 Table: a tabular view of one object or a list, the form kubectl
// get asks for with Accept: application/json;as=Table;g=meta.k8s.io;v=v1. Its JSON is
// field for field that of k8s.io/apimachinery's metav1.Table.
type Table struct {
	scheme.TypeMeta `json:",inline"`
	// ListMeta carries the resourceVersion the table was read at and, for lists, the
	// continue token and remaining item count.
	scheme.ListMeta `json:"metadata,omitempty"`

	// ColumnDefinitions describes each column; every row has one cell per column. It is
	// nil (null on the wire) when headers were not asked for (watch events after the first).
	ColumnDefinitions []TableColumnDefinition `json:"columnDefinitions"`
	// Rows holds one row per object.
	Rows []TableRow `json:"rows"`
}

// TableColumnDefinition is one column of a Table (metav1.TableColumnDefinition).
type TableColumnDefinition struct {
	// Name is the human-readable header.
	Name string `json:"name"`
	// Type is an OpenAPI type: string, integer, number, boolean, or date for timestamps.
	Type string `json:"type"`
	// Format is an optional OpenAPI format; the Name column has "name".
	Format string `json:"format"`
	// Description says what the column holds.
	Description string `json:"description"`
	// Priority 0 columns are shown by default; higher ones only with kubectl -o wide.
	Priority int32 `json:"priority"`
}

// TableRow is one row of a Table (metav1.TableRow).
type TableRow struct {
	// Cells holds one value per column: string, int64, float64, bool or nil.
	Cells []any `json:"cells"`
	// Conditions describe the row's state; apikit sets none, clients may.
	Conditions []TableRowCondition `json:"conditions,omitempty"`
	// Object is the row's object as includeObject asks: a PartialObjectMetadata (the
	// default), the full object, or nothing (null on the wire).
	Object RawExtension `json:"object,omitempty"`
}

// RowConditionType names a row condition.
type RowConditionType string

// RowCompleted means the row's object has reached a final state (metav1.RowCompleted).
const RowCompleted RowConditionType = "Completed"

// TableRowCondition describes one condition of a row (metav1.TableRowCondition).
type TableRowCondition struct {
	Type    RowConditionType       `json:"type"`
	Status  scheme.ConditionStatus `json:"status"`
	Reason  string                 `json:"reason,omitempty"`
	Message string                 `json:"message,omitempty"`
}

// RawExtension holds an embedded object the way runtime.RawExtension does: either
// already-encoded JSON in Raw or a value in Object, which is encoded when the row is.
// The zero RawExtension encodes as null, like apimachinery's.
type RawExtension struct {
	// Raw is the JSON of the object; it wins over Object when set.
	Raw []byte
	// Object is the object to encode when Raw is nil.
	Object any
}

// MarshalJSON writes Raw, or Object's JSON, or null when both are empty.
func (re RawExtension) MarshalJSON() ([]byte, error) {
	if re.Raw == nil {
		if re.Object != nil {
			return json.Marshal(re.Object)
		}
		return []byte("null"), nil
	}
	return re.Raw, nil
}

// UnmarshalJSON keeps a copy of the JSON in Raw; null leaves the extension empty.
func (re *RawExtension) UnmarshalJSON(b []byte) error {
	if re == nil {
		return errors.New("table.RawExtension: UnmarshalJSON on nil pointer")
	}
	if !bytes.Equal(b, []byte("null")) {
		re.Raw = append(re.Raw[:0], b...)
	}
	return nil
}

// IncludeObjectPolicy is the includeObject query parameter of a Table request: what each
// row's object holds.
type IncludeObjectPolicy string

// The three includeObject values (metav1.IncludeObjectPolicy). The empty value means
// IncludeMetadata, which is what kube-apiserver does; kubectl get sends includeObject=Object
// only with --sort-by, so it usually receives metadata.
const (
	// IncludeNone leaves each row's object null.
	IncludeNone IncludeObjectPolicy = "None"
	// IncludeMetadata puts a PartialObjectMetadata (metadata only) in each row.
	IncludeMetadata IncludeObjectPolicy = "Metadata"
	// IncludeObject puts the full object, at the version requested, in each row.
	IncludeObject IncludeObjectPolicy = "Object"
)
