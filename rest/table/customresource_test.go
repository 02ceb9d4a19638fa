package table_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apikit-dev/apikit/rest/table"
	"github.com/apikit-dev/apikit/scheme"
)

// robotColumns are the additionalPrinterColumns of apiextensions' testdata CRD.
var robotColumns = []scheme.PrinterColumn{
	{Name: "Model", Type: "string", JSONPath: ".spec.model"},
	{Name: "Replicas", Type: "integer", JSONPath: ".spec.replicas"},
	{Name: "Color", Type: "string", JSONPath: ".spec.color", Priority: 1},
	{Name: "Created", Type: "date", Format: "date-time", Description: "When it was made.", JSONPath: ".metadata.creationTimestamp"},
}

func TestPrinterFor_SchemaOnlyKindsGetKubesCRDColumnsExactly(t *testing.T) {
	name := table.TableColumnDefinition{Name: "Name", Type: "string", Format: "name", Description: table.NameDescription}
	age := table.TableColumnDefinition{Name: "Age", Type: "date", Description: table.CreationTimestampDescription}
	crdColumns := []table.TableColumnDefinition{
		name,
		{Name: "Model", Type: "string", Description: "Custom resource definition column (in JSONPath format): .spec.model"},
		{Name: "Replicas", Type: "integer", Description: "Custom resource definition column (in JSONPath format): .spec.replicas"},
		{Name: "Color", Type: "string", Description: "Custom resource definition column (in JSONPath format): .spec.color", Priority: 1},
		{Name: "Created", Type: "date", Format: "date-time", Description: "When it was made."},
	}
	tests := []struct {
		name       string
		columns    []scheme.PrinterColumn
		schemaOnly bool
		want       []table.TableColumnDefinition
	}{
		{name: "a CRD's columns are taken as they are, without an Age column added", columns: robotColumns, schemaOnly: true, want: crdColumns},
		{name: "a CRD without columns gets kube's single Age column", schemaOnly: true, want: []table.TableColumnDefinition{name, age}},
		{name: "a Go kind's columns get Age appended as before", columns: robotColumns, want: append(append([]table.TableColumnDefinition{}, crdColumns...), age)},
		{name: "a Go kind without columns gets Name and Created At as before", want: []table.TableColumnDefinition{name, {Name: "Created At", Type: "date", Description: table.CreationTimestampDescription}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := table.PrinterFor(&scheme.Resource{Group: "fleet.example.com", Kind: "Robot", Plural: "robots", PrinterColumns: tt.columns}, tt.schemaOnly)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, p.ColumnDefinitions()); diff != "" {
				t.Errorf("columns (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewCustomResourcePrinter_RowsHaveOneCellPerColumn(t *testing.T) {
	robot := &scheme.Unstructured{Object: map[string]any{
		"apiVersion": "fleet.example.com/v1", "kind": "Robot",
		"metadata": map[string]any{"name": "r1", "creationTimestamp": "2024-05-01T12:00:00Z"},
		"spec":     map[string]any{"model": "T800", "replicas": int64(3)},
	}}
	tests := []struct {
		name    string
		columns []scheme.PrinterColumn
		want    []any
	}{
		{name: "printer columns, a missing value nil, no Age added", columns: robotColumns, want: []any{"r1", "T800", int64(3), nil, "5m"}},
		{name: "the default Age column", want: []any{"r1", "5m"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := table.NewCustomResourcePrinter(&scheme.Resource{Group: "fleet.example.com", Kind: "Robot", Plural: "robots", PrinterColumns: tt.columns})
			if err != nil {
				t.Fatal(err)
			}
			list := &scheme.UnstructuredList{Items: []scheme.Unstructured{*robot}}
			tab, err := p.List(list, table.Options{Now: now})
			if err != nil {
				t.Fatal(err)
			}
			if len(tab.Rows) != 1 {
				t.Fatalf("got %d rows, want 1", len(tab.Rows))
			}
			if diff := cmp.Diff(tt.want, tab.Rows[0].Cells); diff != "" {
				t.Errorf("cells (-want +got):\n%s", diff)
			}
		})
	}
}
