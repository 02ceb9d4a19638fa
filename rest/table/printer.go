package table

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/scheme"
)

// Descriptions of the default columns: the OpenAPI descriptions of ObjectMeta's name and
// creationTimestamp, which kube-apiserver puts in its Name, Created At and Age columns.
const (
	NameDescription              = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
	CreationTimestampDescription = "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
)

// ageJSONPath is where the Age column reads its timestamp.
const ageJSONPath = ".metadata.creationTimestamp"

// Printer turns objects of one resource into Table rows. It is built once per resource
// (compiling the printer columns' JSONPaths) and is safe for concurrent use.
//
// A resource of Go types with printer columns (NewPrinter) is printed like a custom
// resource in kube-apiserver: columns Name, then each printer column, then Age (a
// "date" column read from .metadata.creationTimestamp, appended unless a printer
// column is already named Age). A schema-only kind (NewCustomResourcePrinter) gets
// exactly kube-apiserver's CRD columns: Name and its printer columns, Age only if listed.
// Cells are typed per column: integer as int64, number as float64, boolean as bool,
// string as the value printed like client-go's jsonpath does (objects and lists as
// compact JSON), and date as the age of the timestamp ("5m", "3d") at Options.Now. A
// path that finds nothing, or a value of the wrong type, gives a nil cell.
//
// A resource of Go types without printer columns is printed with kube-apiserver's
// default table convertor: Name and "Created At", whose cell is the RFC 3339 creation
// timestamp.
type Printer struct {
	columns []TableColumnDefinition
	paths   []*JSONPath               // one per column after Name; nil for the default table
	cells   []func(scheme.Object) any // one per column after Name; nil where paths has the column
	// defaultTable is true for Name + Created At (no printer columns).
	defaultTable bool
}

// NewPrinter compiles the table layout of a resource of Go types. It fails if a
// printer column's JSONPath does not parse, naming the column.
func NewPrinter(res *scheme.Resource) (*Printer, error) {
	if len(res.PrinterColumns) == 0 {
		return &Printer{
			defaultTable: true,
			columns: []TableColumnDefinition{
				nameColumn,
				{Name: "Created At", Type: "date", Description: CreationTimestampDescription},
			},
		}, nil
	}
	p, err := newColumnPrinter(res, res.PrinterColumns)
	if err != nil {
		return nil, err
	}
	// A resource with computed columns lists all of its columns, as kube's printers of the
	// built-in kinds do (a PodTemplate has no Age); others get Age unless they name it.
	computed := slices.ContainsFunc(res.PrinterColumns, func(c scheme.PrinterColumn) bool { return c.Cell != nil })
	if !computed && !slices.ContainsFunc(res.PrinterColumns, func(c scheme.PrinterColumn) bool { return strings.EqualFold(c.Name, "Age") }) {
		p.paths = append(p.paths, MustParseJSONPath(ageJSONPath))
		p.cells = append(p.cells, nil)
		p.columns = append(p.columns, TableColumnDefinition{Name: "Age", Type: "date", Description: CreationTimestampDescription})
	}
	return p, nil
}

// NewCustomResourcePrinter compiles the table layout of a schema-only kind (a custom
// resource) exactly as kube-apiserver's CRD table convertor does: Name, then the printer
// columns as they are, with no Age column added (a CRD's manifest lists its own), and
// for a resource without printer columns the single Age column kube-apiserver gives a
// CRD without additionalPrinterColumns. It fails if a printer column's JSONPath does
// not parse, naming the column.
func NewCustomResourcePrinter(res *scheme.Resource) (*Printer, error) {
	cols := res.PrinterColumns
	if len(cols) == 0 {
		cols = []scheme.PrinterColumn{{Name: "Age", Type: "date", Description: CreationTimestampDescription, JSONPath: ageJSONPath}}
	}
	return newColumnPrinter(res, cols)
}

// nameColumn is the first column of every table.
var nameColumn = TableColumnDefinition{Name: "Name", Type: "string", Format: "name", Description: NameDescription}

// newColumnPrinter compiles Name followed by cols.
func newColumnPrinter(res *scheme.Resource, cols []scheme.PrinterColumn) (*Printer, error) {
	p := &Printer{columns: []TableColumnDefinition{nameColumn}}
	for _, col := range cols {
		var path *JSONPath
		if col.Cell == nil {
			var err error
			if path, err = ParseJSONPath(col.JSONPath); err != nil {
				return nil, fmt.Errorf("printer column %q of %s: %w", col.Name, res.GroupResource(), err)
			}
		}
		desc := col.Description
		if desc == "" {
			desc = "Custom resource definition column (in JSONPath format): " + col.JSONPath
		}
		p.paths = append(p.paths, path)
		p.cells = append(p.cells, col.Cell)
		p.columns = append(p.columns, TableColumnDefinition{
			Name: col.Name, Type: col.Type, Format: col.Format, Description: desc, Priority: col.Priority,
		})
	}
	return p, nil
}

// ColumnDefinitions returns the table's columns. The slice is shared: do not change it.
func (p *Printer) ColumnDefinitions() []TableColumnDefinition { return p.columns }

// Objects returns a Table with one row per object, in order. Its ListMeta is empty: the
// caller sets the list's resourceVersion, continue token and remaining item count (List
// does that from a list object). For the default table an empty objs gives nil Rows
// ("rows": null), otherwise an empty slice, exactly as kube-apiserver's two table
// convertors do.
func (p *Printer) Objects(objs []scheme.Object, opts Options) (*Table, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	t := p.newTable(opts)
	if !p.defaultTable {
		t.Rows = make([]TableRow, 0, len(objs))
	}
	for _, obj := range objs {
		row, err := p.row(obj, &opts)
		if err != nil {
			return nil, err
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

// List returns the Table of a list object (a typed list or an UnstructuredList): one row
// per item, and the list's resourceVersion, continue token and remaining item count.
func (p *Printer) List(list scheme.ListObject, opts Options) (*Table, error) {
	objs, err := scheme.ExtractList(list)
	if err != nil {
		return nil, fmt.Errorf("table of %T: %w", list, err)
	}
	t, err := p.Objects(objs, opts)
	if err != nil {
		return nil, err
	}
	t.ResourceVersion = list.GetResourceVersion()
	t.Continue = list.GetContinue()
	t.RemainingItemCount = list.GetRemainingItemCount()
	return t, nil
}

// Object returns the one-row Table of a single object (a get, or one watch event), with
// the object's resourceVersion as the table's.
func (p *Printer) Object(obj scheme.Object, opts Options) (*Table, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	row, err := p.row(obj, &opts)
	if err != nil {
		return nil, err
	}
	t := p.newTable(opts)
	t.ResourceVersion = obj.GetResourceVersion()
	t.Rows = []TableRow{row}
	return t, nil
}

// Row returns the row of one object.
func (p *Printer) Row(obj scheme.Object, opts Options) (TableRow, error) {
	if err := opts.Validate(); err != nil {
		return TableRow{}, err
	}
	return p.row(obj, &opts)
}

func (p *Printer) newTable(opts Options) *Table {
	t := &Table{}
	t.APIVersion, t.Kind = opts.groupVersion().WithKind(KindTable).ToAPIVersionAndKind()
	if !opts.NoHeaders {
		t.ColumnDefinitions = p.columns
	}
	return t
}

func (p *Printer) row(obj scheme.Object, opts *Options) (TableRow, error) {
	var row TableRow
	switch opts.IncludeObject {
	case IncludeObject:
		row.Object.Object = obj
	case IncludeMetadata, "":
		row.Object.Object = asPartial(obj, opts.groupVersion())
	case IncludeNone:
	default:
		return TableRow{}, fmt.Errorf("unrecognized includeObject value: %q", opts.IncludeObject)
	}
	if p.defaultTable {
		row.Cells = []any{obj.GetName(), obj.GetCreationTimestamp().UTC().Format(time.RFC3339)}
		return row, nil
	}
	var content map[string]any
	row.Cells = make([]any, 1, len(p.columns))
	row.Cells[0] = obj.GetName()
	var now time.Time
	for i, path := range p.paths {
		if cell := p.cells[i]; cell != nil {
			row.Cells = append(row.Cells, cell(obj))
			continue
		}
		if content == nil {
			var err error
			if content, err = unstructuredContent(obj); err != nil {
				return TableRow{}, fmt.Errorf("table row of %s %q: %w", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName(), err)
			}
		}
		col := &p.columns[i+1]
		vals, err := path.Find(content)
		if err != nil || len(vals) == 0 {
			row.Cells = append(row.Cells, nil)
			continue
		}
		if col.Type == "date" && now.IsZero() {
			now = opts.now()
		}
		row.Cells = append(row.Cells, cellFor(col.Type, vals[0], now))
	}
	return row, nil
}

// unstructuredContent returns the JSON document of an object to evaluate JSONPaths on:
// an Unstructured's own map (only read), or the unstructured form of a typed object.
func unstructuredContent(obj scheme.Object) (map[string]any, error) {
	if u, ok := obj.(*scheme.Unstructured); ok && u.Object != nil {
		return u.Object, nil
	}
	return conversion.ToUnstructured(obj)
}

// cellFor types one value for a column, as kube-apiserver's CRD table convertor does.
func cellFor(colType string, v any, now time.Time) any {
	if colType == "string" {
		return printString(v)
	}
	if v == nil {
		return nil
	}
	switch colType {
	case "integer":
		if n, ok := asInt64(v); ok {
			return n
		}
		if f, ok := v.(float64); ok {
			return int64(f)
		}
		if n, ok := v.(json.Number); ok {
			if i, err := n.Int64(); err == nil {
				return i
			}
		}
	case "number":
		if n, ok := asInt64(v); ok {
			return float64(n)
		}
		if f, ok := v.(float64); ok {
			return f
		}
		if n, ok := v.(json.Number); ok {
			if f, err := n.Float64(); err == nil {
				return f
			}
		}
	case "boolean":
		if b, ok := v.(bool); ok {
			return b
		}
	case "date":
		if s, ok := v.(string); ok {
			return dateCell(s, now)
		}
	}
	return nil
}

// printString renders a value the way client-go's jsonpath prints a result: strings as
// they are, objects and lists as compact JSON, null as "<no value>", other scalars with
// fmt. A value that cannot be printed gives a nil cell.
func printString(v any) any {
	switch t := v.(type) {
	case string:
		return t
	case nil:
		return "<no value>"
	case map[string]any, []any:
		b, err := json.Marshal(t)
		if err != nil {
			return nil
		}
		return string(b)
	case bool:
		return strconv.FormatBool(t)
	}
	if n, ok := asInt64(v); ok {
		return strconv.FormatInt(n, 10)
	}
	return fmt.Sprint(v)
}

// dateCell is the age of an RFC 3339 timestamp: "<unknown>" for an empty one,
// "<invalid>" for one that does not parse.
func dateCell(s string, now time.Time) string {
	if s == "" || s == "null" {
		return "<unknown>"
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return "<invalid>"
	}
	return ShortHumanDuration(now.Sub(t))
}

// asInt64 reports the value of any Go integer, as unstructured trees built outside
// package conversion may hold ints of any width.
func asInt64(v any) (int64, bool) {
	switch t := v.(type) {
	case int64:
		return t, true
	case int:
		return int64(t), true
	case int32:
		return int64(t), true
	case int16:
		return int64(t), true
	case int8:
		return int64(t), true
	case uint32:
		return int64(t), true
	case uint16:
		return int64(t), true
	case uint8:
		return int64(t), true
	}
	return 0, false
}

// ShortHumanDuration renders a duration with one unit, as kube-apiserver renders the
// ages in custom resources' date columns (k8s.io/apimachinery's
// duration.ShortHumanDuration): "0s" within a two-second clock skew, "<invalid>" below
// that, then seconds, minutes, hours, days and years.
func ShortHumanDuration(d time.Duration) string {
	switch seconds := int(d.Seconds()); {
	case seconds < -1:
		return "<invalid>"
	case seconds < 0:
		return "0s"
	case seconds < 60:
		return strconv.Itoa(seconds) + "s"
	}
	if minutes := int(d.Minutes()); minutes < 60 {
		return strconv.Itoa(minutes) + "m"
	}
	hours := int(d.Hours())
	switch {
	case hours < 24:
		return strconv.Itoa(hours) + "h"
	case hours < 24*365:
		return strconv.Itoa(hours/24) + "d"
	}
	return strconv.Itoa(int(d.Hours()/24/365)) + "y"
}

// Watch returns a converter for the events of one watch: each event object becomes a
// one-row Table, and only the first carries column definitions, as kube-apiserver's
// watch encoder does. Status objects (ERROR events) are not objects of the resource:
// send them unconverted. A WatchConverter is not safe for concurrent use.
func (p *Printer) Watch(opts Options) *WatchConverter {
	return &WatchConverter{printer: p, opts: opts}
}

// WatchConverter turns the objects of successive watch events into Tables.
type WatchConverter struct {
	printer *Printer
	opts    Options
}

// Convert returns the Table of one event's object: headers on the first call only.
func (w *WatchConverter) Convert(obj scheme.Object) (*Table, error) {
	t, err := w.printer.Object(obj, w.opts)
	if err != nil {
		return nil, err
	}
	w.opts.NoHeaders = true
	return t, nil
}

// ForObjects builds the Table of objects of a resource (see Printer.Objects). A server
// printing many tables should keep one Printer per resource instead.
func ForObjects(res *scheme.Resource, objs []scheme.Object, opts Options) (*Table, error) {
	p, err := NewPrinter(res)
	if err != nil {
		return nil, err
	}
	return p.Objects(objs, opts)
}

// ForList builds the Table of a list object of a resource (see Printer.List).
func ForList(res *scheme.Resource, list scheme.ListObject, opts Options) (*Table, error) {
	p, err := NewPrinter(res)
	if err != nil {
		return nil, err
	}
	return p.List(list, opts)
}

// ForObject builds the one-row Table of a single object of a resource (see
// Printer.Object); use it for a get, or with NoHeaders for watch events after the first.
func ForObject(res *scheme.Resource, obj scheme.Object, opts Options) (*Table, error) {
	p, err := NewPrinter(res)
	if err != nil {
		return nil, err
	}
	return p.Object(obj, opts)
}

// PrinterFor compiles the printer of a resource: NewCustomResourcePrinter's layout
// when its kind is schema-only (scheme.Scheme.IsUnstructured; a CRD's), NewPrinter's
// otherwise. A server printing many tables should keep the Printer.
func PrinterFor(res *scheme.Resource, schemaOnly bool) (*Printer, error) {
	if schemaOnly {
		return NewCustomResourcePrinter(res)
	}
	return NewPrinter(res)
}
