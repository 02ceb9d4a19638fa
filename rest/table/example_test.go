package table_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/apikit-dev/apikit/rest/table"
	"github.com/apikit-dev/apikit/scheme"
)

// A Widget table as kubectl get receives it: Name, the printer columns, then Age.
func Example() {
	res := &scheme.Resource{Group: "toys.example.com", Kind: "Widget", Plural: "widgets",
		PrinterColumns: []scheme.PrinterColumn{
			{Name: "Color", Type: "string", JSONPath: ".spec.color"},
			{Name: "Ready", Type: "string", JSONPath: `.status.conditions[?(@.type=="Ready")].status`},
		}}
	w := &scheme.Unstructured{Object: map[string]any{
		"apiVersion": "toys.example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w1", "creationTimestamp": "2024-05-01T12:00:00Z"},
		"spec":     map[string]any{"color": "red"},
		"status":   map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "True"}}},
	}}
	clock := func() time.Time { return time.Date(2024, 5, 1, 14, 30, 0, 0, time.UTC) }

	p, err := table.NewPrinter(res)
	if err != nil {
		panic(err)
	}
	tab, err := p.Objects([]scheme.Object{w}, table.Options{IncludeObject: table.IncludeNone, Now: clock})
	if err != nil {
		panic(err)
	}
	var names []string
	for _, c := range tab.ColumnDefinitions {
		names = append(names, c.Name)
	}
	fmt.Println(strings.Join(names, " "))
	row, _ := json.Marshal(tab.Rows[0])
	fmt.Println(string(row))
	// Output:
	// Name Color Ready Age
	// {"cells":["w1","red","True","2h"],"object":null}
}
