package rest

import "testing"

func TestLabelSelectorString_AsKubeSelectorString(t *testing.T) {
	tests := []struct {
		name string
		sel  map[string]any
		want string
	}{
		{"empty matches everything", map[string]any{}, ""},
		{"labels sorted by key", map[string]any{"matchLabels": map[string]any{"tier": "a", "app": "web"}}, "app=web,tier=a"},
		{"expressions with sorted values", map[string]any{
			"matchLabels": map[string]any{"app": "web"},
			"matchExpressions": []any{
				map[string]any{"key": "tier", "operator": "In", "values": []any{"b", "a"}},
				map[string]any{"key": "env", "operator": "NotIn", "values": []any{"prod"}},
				map[string]any{"key": "canary", "operator": "DoesNotExist"},
				map[string]any{"key": "zone", "operator": "Exists"},
			},
		}, "app=web,!canary,env notin (prod),tier in (a,b),zone"},
		{"a label before an expression of its key", map[string]any{
			"matchLabels":      map[string]any{"app": "web"},
			"matchExpressions": []any{map[string]any{"key": "app", "operator": "Exists"}},
		}, "app=web,app"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := labelSelectorString(tt.sel)
			if err != nil || got != tt.want {
				t.Errorf("labelSelectorString = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	if _, err := labelSelectorString(map[string]any{"matchExpressions": []any{map[string]any{"key": "a", "operator": "Gt"}}}); err == nil ||
		err.Error() != `"Gt" is not a valid label selector operator` {
		t.Errorf("an unknown operator gave %v, want kube's conversion error", err)
	}
}
