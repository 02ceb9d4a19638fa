package apiextensions_test

import (
	"testing"

	"github.com/apikit-dev/apikit/apiextensions"
	"github.com/apikit-dev/apikit/scheme"
)

func errorFields(t *testing.T, crd, old *apiextensions.CustomResourceDefinition) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, e := range apiextensions.ValidateUpdate(crd, old) {
		out[e.Field] = e.Detail
	}
	return out
}

func TestValidateUpdate_ImmutableFields(t *testing.T) {
	old := robotsCRD(t)
	old.ResourceVersion = "1"
	tests := []struct {
		name        string
		established bool
		mutate      func(*apiextensions.CustomResourceDefinition)
		wantField   string // "" means valid
	}{
		{name: "unchanged", mutate: func(*apiextensions.CustomResourceDefinition) {}},
		{name: "group never changes", mutate: func(c *apiextensions.CustomResourceDefinition) {
			c.Spec.Group, c.Name = "other.example.com", "robots.other.example.com"
		}, wantField: "spec.group"},
		{name: "plural never changes", mutate: func(c *apiextensions.CustomResourceDefinition) { c.Spec.Names.Plural = "bots" }, wantField: "spec.names.plural"},
		{name: "scope may change before established", mutate: func(c *apiextensions.CustomResourceDefinition) { c.Spec.Scope = apiextensions.ClusterScoped }},
		{name: "scope is fixed once established", established: true, mutate: func(c *apiextensions.CustomResourceDefinition) { c.Spec.Scope = apiextensions.ClusterScoped }, wantField: "spec.scope"},
		{name: "kind is fixed once established", established: true, mutate: func(c *apiextensions.CustomResourceDefinition) { c.Spec.Names.Kind = "Bot" }, wantField: "spec.names.kind"},
		{name: "a stored version stays listed", mutate: func(c *apiextensions.CustomResourceDefinition) { c.Status.StoredVersions = []string{"v1", "v0"} }, wantField: "status.storedVersions[1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := old.DeepCopy()
			if tt.established {
				o.Status.Conditions = []apiextensions.CustomResourceDefinitionCondition{{Type: apiextensions.Established, Status: apiextensions.ConditionTrue, LastTransitionTime: scheme.Now()}}
			}
			c := o.DeepCopy()
			tt.mutate(c)
			got := errorFields(t, c, o)
			if tt.wantField == "" {
				if len(got) > 0 {
					t.Errorf("errors %v, want none", got)
				}
				return
			}
			if _, ok := got[tt.wantField]; !ok {
				t.Errorf("errors %v, want one at %s", got, tt.wantField)
			}
		})
	}
}

func TestValidate_OneVersionCRDsReportSchemaErrorsUnderSpecValidation(t *testing.T) {
	crds, err := apiextensions.Decode([]byte(`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: things.x.example.com}
spec:
  group: x.example.com
  names: {kind: Thing, plural: things}
  scope: Cluster
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema: {openAPIV3Schema: {type: string}}
`))
	if err != nil {
		t.Fatal(err)
	}
	errs := apiextensions.Validate(crds[0])
	if len(errs) == 0 || errs[0].Field != "spec.validation.openAPIV3Schema.type" {
		t.Errorf("errors = %v, want the first at spec.validation.openAPIV3Schema.type, as kube reports it", errs)
	}
}
