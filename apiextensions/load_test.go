package apiextensions_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/apikit-dev/apikit/apiextensions"
)

const testdataCRD = "testdata/crd/fleet.example.com_robots.yaml"

func TestLoad_ControllerGenOutput(t *testing.T) {
	crds, err := apiextensions.Load("testdata/crd")
	if err != nil {
		t.Fatal(err)
	}
	if len(crds) != 1 {
		t.Fatalf("got %d CRDs, want 1", len(crds))
	}
	crd := crds[0]
	if crd.Name != "robots.fleet.example.com" || crd.Spec.Names.Kind != "Robot" || len(crd.Spec.Versions) != 2 {
		t.Errorf("unexpected CRD: %s %s, %d versions", crd.Name, crd.Spec.Names.Kind, len(crd.Spec.Versions))
	}
	spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	if arms := spec.Properties["arms"]; arms.ListType != "map" || len(arms.ListMapKeys) != 1 {
		t.Errorf("arms list-map lost: %+v", arms)
	}
	if _, ok := spec.Extensions["x-kubernetes-validations"]; !ok {
		t.Error("spec's CEL rules lost")
	}
	// Defaults applied on load, as kube-apiserver applies them on decode.
	if crd.Spec.Conversion == nil || crd.Spec.Conversion.Strategy != apiextensions.NoneConverter {
		t.Errorf("conversion = %+v, want the None default", crd.Spec.Conversion)
	}
	if got := crd.Status.StoredVersions; len(got) != 1 || got[0] != "v1" {
		t.Errorf("storedVersions = %v, want [v1]", got)
	}
	if errs := apiextensions.Validate(crd); len(errs) > 0 {
		t.Errorf("the testdata CRD is invalid: %v", errs)
	}
}

func TestDecode_DocumentsAndKinds(t *testing.T) {
	crd := func(plural string) string {
		return "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: " + plural + ".x.example.com\n" +
			"spec:\n  group: x.example.com\n  names: {kind: K" + plural + ", plural: " + plural + "}\n  scope: Cluster\n" +
			"  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]\n"
	}
	tests := []struct {
		name, in string
		want     []string // plural names, in order
		wantErr  string
	}{
		{name: "two documents and empty ones", in: "---\n" + crd("as") + "---\n# only a comment\n---\n" + crd("bs"), want: []string{"as", "bs"}},
		{name: "JSON", in: `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"cs.x.example.com"},"spec":{"group":"x.example.com","names":{"kind":"C","plural":"cs"},"scope":"Cluster","versions":[]}}`, want: []string{"cs"}},
		{name: "a List from kubectl get -o yaml", in: "apiVersion: v1\nkind: List\nitems:\n- " + strings.ReplaceAll(strings.TrimSuffix(crd("ds"), "\n"), "\n", "\n  ") + "\n", want: []string{"ds"}},
		{name: "another kind is refused", in: crd("as") + "---\napiVersion: v1\nkind: ConfigMap\n", wantErr: "document 2: v1 ConfigMap is not an apiextensions.k8s.io/v1 CustomResourceDefinition"},
		{name: "v1beta1 is refused", in: "apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\n", wantErr: "v1beta1 CustomResourceDefinitions are not supported"},
		{name: "an unknown field is refused", in: strings.Replace(crd("as"), "  scope:", "  scoep: Cluster\n  scope:", 1), wantErr: `unknown field "spec.scoep"`},
		{name: "an unknown schema keyword is refused", in: strings.Replace(crd("as"), "type: object", "type: object, patternProperties: {}", 1), wantErr: "patternProperties"},
		{name: "bad YAML", in: "apiVersion: [", wantErr: "document 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			crds, err := apiextensions.Decode([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range crds {
				got = append(got, c.Spec.Names.Plural)
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestLoadFS_ReadsManifestsOfADirectoryOnly(t *testing.T) {
	data := mustRead(t, testdataCRD)
	fsys := fstest.MapFS{
		"crds/robots.yaml":           {Data: data},
		"crds/README.md":             {Data: []byte("not a manifest")},
		"crds/nested/other.yaml":     {Data: []byte("apiVersion: v1\nkind: ConfigMap\n")},
		"broken/kustomization.yaml":  {Data: []byte("resources: [a.yaml]\n")},
		"single/robots.json.unknown": {Data: data},
	}
	crds, err := apiextensions.LoadFS(fsys, "crds")
	if err != nil {
		t.Fatal(err)
	}
	if len(crds) != 1 {
		t.Errorf("got %d CRDs, want 1 (subdirectories and other files are not read)", len(crds))
	}
	_, err = apiextensions.LoadFS(fsys, "broken")
	if err == nil || !strings.Contains(err.Error(), "broken/kustomization.yaml: document 1") {
		t.Errorf("err = %v, want it to name the file and document", err)
	}
	if _, err := apiextensions.Load("testdata/missing"); err == nil || !strings.Contains(err.Error(), "testdata/missing") {
		t.Errorf("err = %v, want it to name the path", err)
	}
	if crds, err := apiextensions.Load(testdataCRD); err != nil || len(crds) != 1 {
		t.Errorf("loading one file: %d CRDs, %v", len(crds), err)
	}
}
