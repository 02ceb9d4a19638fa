package builtin

import (
	"testing"

	admissionregistrationv1 "github.com/apikit-dev/apikit/builtin/admissionregistration/v1"
	metav1 "github.com/apikit-dev/apikit/builtin/meta/v1"
)

func TestParamRefCell_PrintsAsKubesBindingPrinter(t *testing.T) {
	tests := []struct {
		name string
		ref  *admissionregistrationv1.ParamRef
		want string
	}{
		{"no reference", nil, "<unset>"},
		{"a namespaced name", &admissionregistrationv1.ParamRef{Name: "limit", Namespace: "params"}, "params/limit"},
		{"a name without namespace", &admissionregistrationv1.ParamRef{Name: "limit"}, "*/limit"},
		{"a selector as its protobuf String()", &admissionregistrationv1.ParamRef{Selector: &metav1.LabelSelector{
			MatchLabels:      map[string]string{"tier": "gold", "app": "web"},
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "env", Operator: "In", Values: []string{"a", "b"}}}}},
			"&LabelSelector{MatchLabels:map[string]string{app: web,tier: gold,},MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:env,Operator:In,Values:[a b],},},}"},
		{"neither name nor selector", &admissionregistrationv1.ParamRef{Namespace: "params"}, "<unset>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := paramRefCell(tt.ref); got != tt.want {
				t.Errorf("paramRefCell = %q, want %q", got, tt.want)
			}
		})
	}
}
