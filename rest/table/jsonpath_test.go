package table_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apikit-dev/apikit/rest/table"
)

func jsonPathDoc() map[string]any {
	return map[string]any{
		"metadata": map[string]any{
			"name":   "w",
			"labels": map[string]any{"app.kubernetes.io/name": "toy", "tier": "front"},
		},
		"spec": map[string]any{
			"color": "red",
			"parts": []any{
				map[string]any{"name": "wheel", "count": int64(4)},
				map[string]any{"name": "axle", "count": int64(2)},
				map[string]any{"name": "bell"},
			},
		},
		"status": map[string]any{
			"ratio": 0.5,
			"conditions": []any{
				map[string]any{"type": "Ready", "status": "True", "ok": true},
				map[string]any{"type": "Synced", "status": "False", "ok": false},
			},
		},
	}
}

func TestJSONPath_Find(t *testing.T) {
	tests := []struct {
		name string
		expr string
		want []any
	}{
		{"dotted field", ".spec.color", []any{"red"}},
		{"braces and dollar are accepted", "{$.spec.color}", []any{"red"}},
		{"root", ".", []any{jsonPathDoc()}},
		{"missing key finds nothing", ".spec.size", nil},
		{"field of a scalar finds nothing", ".spec.color.hue", nil},
		{"index", ".status.conditions[0].type", []any{"Ready"}},
		{"negative index counts from the end", ".spec.parts[-1].name", []any{"bell"}},
		{"index out of range finds nothing", ".spec.parts[7].name", nil},
		{"slice", ".spec.parts[0:2].name", []any{"wheel", "axle"}},
		{"slice with step", ".spec.parts[::2].name", []any{"wheel", "bell"}},
		{"open-ended slice", ".spec.parts[1:].name", []any{"axle", "bell"}},
		{"index union", ".spec.parts[0,2].name", []any{"wheel", "bell"}},
		{"list wildcard", ".spec.parts[*].count", []any{int64(4), int64(2)}},
		{"map wildcard in key order", ".metadata.labels.*", []any{"toy", "front"}},
		{"bracketed key with dots", ".metadata.labels['app.kubernetes.io/name']", []any{"toy"}},
		{"double-quoted key", `.metadata.labels["tier"]`, []any{"front"}},
		{"escaped dots", `.metadata.labels.app\.kubernetes\.io/name`, []any{"toy"}},
		{"key union", ".metadata['name','missing']", []any{"w"}},
		{"recursive descent", "..name", []any{"w", "wheel", "axle", "bell"}},
		{"filter on a string", `.status.conditions[?(@.type=="Ready")].status`, []any{"True"}},
		{"filter with single quotes and spaces", `.status.conditions[?(@.type != 'Ready')].status`, []any{"False"}},
		{"filter on an integer", ".spec.parts[?(@.count>2)].name", []any{"wheel"}},
		{"filter with <=", ".spec.parts[?(@.count<=2)].name", []any{"axle"}},
		{"filter on a boolean", ".status.conditions[?(@.ok==true)].type", []any{"Ready"}},
		{"existence filter", ".spec.parts[?(@.count)].name", []any{"wheel", "axle"}},
		{"filter finding nothing", `.status.conditions[?(@.type=="Gone")].status`, nil},
		{"float field", ".status.ratio", []any{0.5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := table.ParseJSONPath(tt.expr)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			got, err := p.Find(jsonPathDoc())
			if err != nil {
				t.Fatalf("find: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Find(%s) (-want +got):\n%s", tt.expr, diff)
			}
		})
	}
}

func TestJSONPath_EvaluationErrorsLikeClientGo(t *testing.T) {
	tests := []struct{ name, expr string }{
		{"comparing a string with an integer", ".status.conditions[?(@.type==1)]"},
		{"comparing an integer with a float", ".spec.parts[?(@.count==1.5)]"},
		{"ordering booleans", ".status.conditions[?(@.ok<true)]"},
		{"filtering a map", ".metadata.labels[?(@.x)]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := table.ParseJSONPath(tt.expr)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			if got, err := p.Find(jsonPathDoc()); err == nil {
				t.Errorf("Find(%s) = %v, want an error", tt.expr, got)
			}
		})
	}
}

func TestParseJSONPath_RejectsMalformedExpressions(t *testing.T) {
	for _, expr := range []string{
		"", "spec.color", ".spec[", ".spec[abc]", ".spec['open]", ".a[?(@.x==)]", ".a[?(@.x=='y']",
		".a[1:2:3:4]", ".a[::0]", ".a[?(1)]", ".a b",
	} {
		if p, err := table.ParseJSONPath(expr); err == nil {
			t.Errorf("ParseJSONPath(%q) = %v, want an error", expr, p)
		}
	}
}
