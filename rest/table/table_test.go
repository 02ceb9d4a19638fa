package table_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/apikit-dev/apikit/internal/testapi/toys"
	"github.com/apikit-dev/apikit/rest/table"
	"github.com/apikit-dev/apikit/scheme"
)

// The tests print v1 Widgets of toys.example.com, the API apikit's tests share
// (internal/testapi).
type (
	widget       = toys.WidgetV1
	widgetSpec   = toys.WidgetSpec
	widgetStatus = toys.WidgetStatus
	widgetList   = toys.WidgetListV1
)

// widgetResource has the printer columns the issue asks for: Color, Replicas, Phase (and
// Age, which the table adds).
func widgetResource() *scheme.Resource {
	return &scheme.Resource{
		Group: "toys.example.com", Kind: "Widget", Plural: "widgets", Namespaced: true,
		PrinterColumns: []scheme.PrinterColumn{
			{Name: "Color", Type: "string", Description: "The color of the widget.", JSONPath: ".spec.color"},
			{Name: "Replicas", Type: "integer", Description: "The desired number of copies.", JSONPath: ".spec.replicas"},
			{Name: "Phase", Type: "string", Description: "A one-word summary of the widget's state.", JSONPath: ".status.phase"},
		},
	}
}

func warehouseResource() *scheme.Resource {
	return &scheme.Resource{Group: "toys.example.com", Kind: "Warehouse", Plural: "warehouses"}
}

var (
	created = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	now     = func() time.Time { return created.Add(5*time.Minute + 30*time.Second) }
)

func newWidget(name, color string, replicas int32, phase string) *widget {
	w := &widget{Spec: widgetSpec{Color: color, Replicas: &replicas}, Status: widgetStatus{Phase: phase}}
	w.APIVersion, w.Kind = "toys.example.com/v1", "Widget"
	w.Name, w.Namespace, w.UID, w.ResourceVersion = name, "default", scheme.UID("uid-"+name), "7"
	w.CreationTimestamp = scheme.NewTime(created)
	w.Labels = map[string]string{"app": "toy"}
	return w
}

// assertJSON compares v's JSON with want as JSON documents (field order and spacing aside).
func assertJSON(t *testing.T, v any, want string) {
	t.Helper()
	got, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("unmarshal got: %v", err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("unmarshal want: %v\n%s", err, want)
	}
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("JSON (-want +got):\n%s\ngot: %s", diff, got)
	}
}

const widgetColumns = `[
  {"name":"Name","type":"string","format":"name","description":"` + jsonEscapedName + `","priority":0},
  {"name":"Color","type":"string","format":"","description":"The color of the widget.","priority":0},
  {"name":"Replicas","type":"integer","format":"","description":"The desired number of copies.","priority":0},
  {"name":"Phase","type":"string","format":"","description":"A one-word summary of the widget's state.","priority":0},
  {"name":"Age","type":"date","format":"","description":"` + jsonEscapedCreation + `","priority":0}
]`

const (
	jsonEscapedName     = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
	jsonEscapedCreation = "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\\n\\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
)

func TestForList_WidgetTableGolden(t *testing.T) {
	list := &widgetList{Items: []widget{*newWidget("red-one", "red", 3, "Ready"), *newWidget("blue-one", "blue", 1, "")}}
	list.ResourceVersion, list.Continue = "42", "next-page"
	rest := int64(5)
	list.RemainingItemCount = &rest

	const partialRed = `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"red-one","namespace":"default","uid":"uid-red-one","resourceVersion":"7","creationTimestamp":"2024-05-01T12:00:00Z","labels":{"app":"toy"}}}`
	const partialBlue = `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"blue-one","namespace":"default","uid":"uid-blue-one","resourceVersion":"7","creationTimestamp":"2024-05-01T12:00:00Z","labels":{"app":"toy"}}}`
	const fullRed = `{"kind":"Widget","apiVersion":"toys.example.com/v1","metadata":{"name":"red-one","namespace":"default","uid":"uid-red-one","resourceVersion":"7","creationTimestamp":"2024-05-01T12:00:00Z","labels":{"app":"toy"}},"spec":{"color":"red","replicas":3},"status":{"phase":"Ready"}}`
	const fullBlue = `{"kind":"Widget","apiVersion":"toys.example.com/v1","metadata":{"name":"blue-one","namespace":"default","uid":"uid-blue-one","resourceVersion":"7","creationTimestamp":"2024-05-01T12:00:00Z","labels":{"app":"toy"}},"spec":{"color":"blue","replicas":1},"status":{}}`

	tests := []struct {
		name      string
		include   table.IncludeObjectPolicy
		red, blue string
	}{
		{name: "default includeObject embeds PartialObjectMetadata", include: "", red: partialRed, blue: partialBlue},
		{name: "includeObject=Metadata embeds PartialObjectMetadata", include: table.IncludeMetadata, red: partialRed, blue: partialBlue},
		{name: "includeObject=Object embeds the full object", include: table.IncludeObject, red: fullRed, blue: fullBlue},
		{name: "includeObject=None leaves object null", include: table.IncludeNone, red: "null", blue: "null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab, err := table.ForList(widgetResource(), list, table.Options{IncludeObject: tt.include, Now: now})
			if err != nil {
				t.Fatal(err)
			}
			assertJSON(t, tab, `{
  "kind": "Table", "apiVersion": "meta.k8s.io/v1",
  "metadata": {"resourceVersion": "42", "continue": "next-page", "remainingItemCount": 5},
  "columnDefinitions": `+widgetColumns+`,
  "rows": [
    {"cells": ["red-one", "red", 3, "Ready", "5m"], "object": `+tt.red+`},
    {"cells": ["blue-one", "blue", 1, null, "5m"], "object": `+tt.blue+`}
  ]
}`)
		})
	}
}

func TestForList_KindWithoutPrinterColumnsHasNameAndCreatedAt(t *testing.T) {
	w := newWidget("main", "red", 1, "")
	tab, err := table.ForObjects(warehouseResource(), []scheme.Object{w}, table.Options{IncludeObject: table.IncludeNone})
	if err != nil {
		t.Fatal(err)
	}
	assertJSON(t, tab, `{
  "kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": {},
  "columnDefinitions": [
    {"name":"Name","type":"string","format":"name","description":"`+jsonEscapedName+`","priority":0},
    {"name":"Created At","type":"date","format":"","description":"`+jsonEscapedCreation+`","priority":0}
  ],
  "rows": [{"cells": ["main", "2024-05-01T12:00:00Z"], "object": null}]
}`)
}

func TestObjects_EmptyRowsMatchKubeConvertors(t *testing.T) {
	tests := []struct {
		name     string
		res      *scheme.Resource
		wantRows string
	}{
		{name: "default table has null rows", res: warehouseResource(), wantRows: "null"},
		{name: "printer-column table has empty rows", res: widgetResource(), wantRows: "[]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab, err := table.ForObjects(tt.res, nil, table.Options{})
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(tab)
			if !strings.Contains(string(b), `"rows":`+tt.wantRows) {
				t.Errorf("got %s, want rows %s", b, tt.wantRows)
			}
		})
	}
}

func TestObject_SingleObjectTableTakesItsResourceVersion(t *testing.T) {
	w := newWidget("solo", "green", 2, "Pending")
	w.ResourceVersion = "99"
	tab, err := table.ForObject(widgetResource(), w, table.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if tab.ResourceVersion != "99" || len(tab.Rows) != 1 || len(tab.ColumnDefinitions) != 5 {
		t.Fatalf("got rv %q, %d rows, %d columns", tab.ResourceVersion, len(tab.Rows), len(tab.ColumnDefinitions))
	}
	if diff := cmp.Diff([]any{"solo", "green", int64(2), "Pending", "5m"}, tab.Rows[0].Cells); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
}

func TestObject_UnstructuredObjectsArePrintedFromTheirMap(t *testing.T) {
	u := &scheme.Unstructured{Object: map[string]any{
		"apiVersion": "toys.example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "u1", "creationTimestamp": "2024-05-01T12:00:00Z"},
		"spec":     map[string]any{"color": "blue", "replicas": int64(4)},
	}}
	tab, err := table.ForObject(widgetResource(), u, table.Options{Now: now, IncludeObject: table.IncludeMetadata})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]any{"u1", "blue", int64(4), nil, "5m"}, tab.Rows[0].Cells); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
	assertJSON(t, tab.Rows[0].Object, `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"u1","creationTimestamp":"2024-05-01T12:00:00Z"}}`)
}

func TestPrinter_CellsAreTypedPerColumn(t *testing.T) {
	res := &scheme.Resource{Group: "g", Kind: "Thing", Plural: "things", PrinterColumns: []scheme.PrinterColumn{
		{Name: "Int", Type: "integer", JSONPath: ".spec.int"},
		{Name: "IntFromFloat", Type: "integer", JSONPath: ".spec.float"},
		{Name: "IntFromString", Type: "integer", JSONPath: ".spec.str"},
		{Name: "Num", Type: "number", JSONPath: ".spec.int"},
		{Name: "NumFloat", Type: "number", JSONPath: ".spec.float"},
		{Name: "Bool", Type: "boolean", JSONPath: ".spec.flag"},
		{Name: "BoolFromString", Type: "boolean", JSONPath: ".spec.str"},
		{Name: "StrOfInt", Type: "string", JSONPath: ".spec.int"},
		{Name: "StrOfFloat", Type: "string", JSONPath: ".spec.float"},
		{Name: "StrOfBool", Type: "string", JSONPath: ".spec.flag"},
		{Name: "StrOfMap", Type: "string", JSONPath: ".spec.map"},
		{Name: "StrOfList", Type: "string", JSONPath: ".spec.list"},
		{Name: "StrOfNull", Type: "string", JSONPath: ".spec.null"},
		{Name: "Missing", Type: "string", JSONPath: ".spec.nothing"},
		{Name: "NullInt", Type: "integer", JSONPath: ".spec.null"},
		{Name: "Date", Type: "date", JSONPath: ".spec.when"},
		{Name: "BadDate", Type: "date", JSONPath: ".spec.str"},
		{Name: "EmptyDate", Type: "date", JSONPath: ".spec.empty"},
		{Name: "DateOfInt", Type: "date", JSONPath: ".spec.int"},
		{Name: "UnknownType", Type: "array", JSONPath: ".spec.list"},
		{Name: "FilterError", Type: "string", JSONPath: ".spec.map[?(@.a==1)]"},
		{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp", Priority: 1},
	}}
	u := &scheme.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"name": "t", "creationTimestamp": "2024-05-01T11:00:00Z"},
		"spec": map[string]any{
			"int": int64(7), "float": 2.75, "str": "a<b", "flag": true,
			"map": map[string]any{"b": "x<y", "a": int64(1)}, "list": []any{"p", int64(2)},
			"null": nil, "when": "2024-04-28T12:00:00Z", "empty": "",
		},
	}}
	p, err := table.NewPrinter(res)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(p.ColumnDefinitions()); n != 23 {
		t.Errorf("a resource with its own Age column got %d columns, want 23 (no second Age)", n)
	}
	row, err := p.Row(u, table.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	want := []any{
		"t", int64(7), int64(2), nil, float64(7), 2.75, true, nil, "7", "2.75", "true",
		`{"a":1,"b":"x\u003cy"}`, `["p",2]`, "<no value>", nil, nil,
		"3d", "<invalid>", "<unknown>", nil, nil, nil, "1h",
	}
	if diff := cmp.Diff(want, row.Cells); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
}

func TestNewPrinter_RejectsAnUnparsableJSONPathNamingTheColumn(t *testing.T) {
	res := &scheme.Resource{Group: "g", Kind: "Thing", Plural: "things", PrinterColumns: []scheme.PrinterColumn{
		{Name: "Broken", Type: "string", JSONPath: ".spec[?(@.a=="},
	}}
	_, err := table.NewPrinter(res)
	if err == nil || !strings.Contains(err.Error(), `"Broken"`) {
		t.Fatalf("got %v, want an error naming the column", err)
	}
}

func TestPrinter_MissingDescriptionIsKubesJSONPathDescription(t *testing.T) {
	res := &scheme.Resource{Group: "g", Kind: "Thing", Plural: "things", PrinterColumns: []scheme.PrinterColumn{
		{Name: "Size", Type: "integer", Format: "int32", JSONPath: ".spec.size", Priority: 1},
	}}
	p, err := table.NewPrinter(res)
	if err != nil {
		t.Fatal(err)
	}
	want := table.TableColumnDefinition{Name: "Size", Type: "integer", Format: "int32", Priority: 1,
		Description: "Custom resource definition column (in JSONPath format): .spec.size"}
	if diff := cmp.Diff(want, p.ColumnDefinitions()[1]); diff != "" {
		t.Errorf("column (-want +got):\n%s", diff)
	}
}

func TestWatch_OnlyTheFirstEventCarriesColumnDefinitions(t *testing.T) {
	p, err := table.NewPrinter(widgetResource())
	if err != nil {
		t.Fatal(err)
	}
	wc := p.Watch(table.Options{Now: now})
	for i, name := range []string{"a", "b", "c"} {
		tab, err := wc.Convert(newWidget(name, "red", 1, ""))
		if err != nil {
			t.Fatal(err)
		}
		if gotHeaders := tab.ColumnDefinitions != nil; gotHeaders != (i == 0) {
			t.Errorf("event %d: headers present = %v", i, gotHeaders)
		}
		if len(tab.Rows) != 1 || tab.Rows[0].Cells[0] != name {
			t.Errorf("event %d: rows %v", i, tab.Rows)
		}
	}
	tab, _ := table.ForObject(widgetResource(), newWidget("d", "red", 1, ""), table.Options{NoHeaders: true})
	b, _ := json.Marshal(tab)
	if !strings.Contains(string(b), `"columnDefinitions":null`) {
		t.Errorf("NoHeaders table JSON %s lacks columnDefinitions null", b)
	}
}

func TestParseOptions(t *testing.T) {
	tests := []struct {
		name    string
		query   string
		want    table.IncludeObjectPolicy
		wantErr string
	}{
		{name: "absent is empty (Metadata)", query: "", want: ""},
		{name: "Object", query: "includeObject=Object", want: table.IncludeObject},
		{name: "None", query: "includeObject=None&limit=5", want: table.IncludeNone},
		{name: "Metadata", query: "includeObject=Metadata", want: table.IncludeMetadata},
		{name: "unknown value is kube's BadRequest message", query: "includeObject=All",
			wantErr: `Unable to convert to Table as requested: includeObject: Invalid value: "All": must be 'Metadata', 'Object', 'None', or empty`},
		{name: "values are case-sensitive", query: "includeObject=object",
			wantErr: `Unable to convert to Table as requested: includeObject: Invalid value: "object": must be 'Metadata', 'Object', 'None', or empty`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, _ := url.ParseQuery(tt.query)
			got, err := table.ParseOptions(q)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got.IncludeObject != tt.want {
				t.Fatalf("got %q, %v; want %q", got.IncludeObject, err, tt.want)
			}
		})
	}
}

func TestObjects_RejectsUnvalidatedIncludeObject(t *testing.T) {
	_, err := table.ForObjects(widgetResource(), []scheme.Object{newWidget("a", "red", 1, "")}, table.Options{IncludeObject: "Everything"})
	if err == nil || !strings.Contains(err.Error(), `"Everything"`) {
		t.Fatalf("got %v, want an error naming the value", err)
	}
}

func TestOptions_GroupVersionV1beta1LabelsTableAndRowObjects(t *testing.T) {
	gv := scheme.GroupVersion{Group: "meta.k8s.io", Version: "v1beta1"}
	tab, err := table.ForObject(warehouseResource(), newWidget("a", "red", 1, ""), table.Options{GroupVersion: gv})
	if err != nil {
		t.Fatal(err)
	}
	p := tab.Rows[0].Object.Object.(*scheme.PartialObjectMetadata)
	if tab.APIVersion != "meta.k8s.io/v1beta1" || p.APIVersion != "meta.k8s.io/v1beta1" {
		t.Errorf("table %q, row object %q; want meta.k8s.io/v1beta1 for both", tab.APIVersion, p.APIVersion)
	}
}

func TestRawExtension_RoundTripsRawJSON(t *testing.T) {
	var row table.TableRow
	in := `{"cells":["a",1],"object":{"kind":"X"}}`
	if err := json.Unmarshal([]byte(in), &row); err != nil {
		t.Fatal(err)
	}
	if string(row.Object.Raw) != `{"kind":"X"}` {
		t.Errorf("raw = %s", row.Object.Raw)
	}
	out, _ := json.Marshal(row)
	if string(out) != in {
		t.Errorf("re-encoded %s, want %s", out, in)
	}
}

func TestShortHumanDuration(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{-3 * time.Second, "<invalid>"},
		{-1500 * time.Millisecond, "0s"},
		{0, "0s"},
		{59 * time.Second, "59s"},
		{60 * time.Second, "1m"},
		{59*time.Minute + 59*time.Second, "59m"},
		{time.Hour, "1h"},
		{23*time.Hour + 59*time.Minute, "23h"},
		{24 * time.Hour, "1d"},
		{364 * 24 * time.Hour, "364d"},
		{365 * 24 * time.Hour, "1y"},
		{3 * 365 * 24 * time.Hour, "3y"},
	}
	for _, tt := range tests {
		if got := table.ShortHumanDuration(tt.d); got != tt.want {
			t.Errorf("ShortHumanDuration(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}
