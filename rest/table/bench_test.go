package table_test

import (
	"fmt"
	"testing"

	"github.com/apikit-dev/apikit/rest/table"
	"github.com/apikit-dev/apikit/scheme"
)

func BenchmarkPrinter_Objects(b *testing.B) {
	objs := make([]scheme.Object, 100)
	for i := range objs {
		objs[i] = newWidget(fmt.Sprintf("w-%d", i), "red", int32(i), "Ready")
	}
	p, err := table.NewPrinter(widgetResource())
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		p    *table.Printer
	}{
		{name: "printer-columns/100", p: p},
		{name: "default-columns/100", p: mustPrinter(b, warehouseResource())},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.p.Objects(objs, table.Options{Now: now}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func mustPrinter(b *testing.B, res *scheme.Resource) *table.Printer {
	p, err := table.NewPrinter(res)
	if err != nil {
		b.Fatal(err)
	}
	return p
}

func BenchmarkJSONPath_Find(b *testing.B) {
	doc := jsonPathDoc()
	for _, expr := range []string{".spec.color", `.status.conditions[?(@.type=="Ready")].status`} {
		p := table.MustParseJSONPath(expr)
		b.Run(expr, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.Find(doc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
