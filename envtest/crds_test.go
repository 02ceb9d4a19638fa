package envtest_test

import (
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// gadgetCRD returns a cluster-scoped CRD of group example.com with plural gadgets<i>,
// as a Go value of controller-runtime's types (no TypeMeta, as Go literals often are).
func gadgetCRD(i int) *apiextensionsv1.CustomResourceDefinition {
	plural := fmt.Sprintf("gadgets%d", i)
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + ".example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com",
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural: plural, Kind: fmt.Sprintf("Gadget%d", i), ListKind: fmt.Sprintf("Gadget%dList", i),
			},
			Scope: apiextensionsv1.ClusterScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"size": {Type: "string", Enum: []apiextensionsv1.JSON{{Raw: []byte(`"small"`)}, {Raw: []byte(`"large"`)}}},
						}},
					},
				}},
			}},
		},
	}
}

// badNameCRD returns a CRD whose name is not its plural and group, which kube-apiserver
// refuses.
func badNameCRD() *apiextensionsv1.CustomResourceDefinition {
	crd := gadgetCRD(2)
	crd.Name = "wrong.example.com"
	return crd
}
