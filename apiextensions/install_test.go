package apiextensions_test

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apikit-dev/apikit/apiextensions"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/scheme/openapi"
)

func robotsCRD(t *testing.T) *apiextensions.CustomResourceDefinition {
	t.Helper()
	crds, err := apiextensions.Decode(mustRead(t, testdataCRD))
	if err != nil {
		t.Fatal(err)
	}
	return crds[0]
}

func TestInstall_RegistersKindsSchemasAndResource(t *testing.T) {
	s := scheme.New()
	if err := apiextensions.Install(s, robotsCRD(t), apiextensions.InstallOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"v1", "v1beta1"} {
		for _, k := range []string{"Robot", "RobotList"} {
			if gvk := (scheme.GroupVersionKind{Group: "fleet.example.com", Version: v, Kind: k}); !s.IsUnstructured(gvk) {
				t.Errorf("%v is not registered as unstructured", gvk)
			}
		}
	}
	if got := s.Versions("fleet.example.com"); !slices.Equal(got, []string{"v1", "v1beta1"}) {
		t.Errorf("versions = %v, want kube's order [v1 v1beta1]", got)
	}
	doc, err := openapi.ForGroupVersion(s, scheme.GroupVersion{Group: "fleet.example.com", Version: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(mustJSON(t, doc)), "Robot is a fleet of identical robots") {
		t.Error("the v1 schema is not in the OpenAPI v3 document")
	}
	res, ok := s.Resource(scheme.GroupResource{Group: "fleet.example.com", Resource: "robots"})
	if !ok {
		t.Fatal("resource robots not registered")
	}
	want := scheme.Resource{
		Group: "fleet.example.com", Kind: "Robot", ListKind: "RobotList", Plural: "robots", Singular: "robot",
		ShortNames: []string{"rb"}, Categories: []string{"all", "fleet"}, Namespaced: true, StatusSubresource: true,
		// apiextensions-apiserver's order, not the sorted one of built-in resources.
		Verbs:            []string{"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"},
		Scale:            &scheme.ScaleSubresource{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: ".status.selector"},
		SelectableFields: []string{"spec.color", "spec.model"},
		PrinterColumns: []scheme.PrinterColumn{
			{Name: "Model", Type: "string", JSONPath: ".spec.model"},
			{Name: "Replicas", Type: "integer", JSONPath: ".spec.replicas"},
			{Name: "Ready", Type: "integer", JSONPath: ".status.replicas"},
			{Name: "Color", Type: "string", JSONPath: ".spec.color", Priority: 1},
			{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"},
		},
		StorageVersion: "v1",
		Deprecations:   map[string]string{"v1beta1": "fleet.example.com/v1beta1 Robot is deprecated; use fleet.example.com/v1 Robot"},
	}
	if diff := cmp.Diff(&want, res); diff != "" {
		t.Errorf("resource (-want +got):\n%s", diff)
	}
}

func TestInstall_VersionWithoutColumnsGetsKubesAgeColumn(t *testing.T) {
	crd := robotsCRD(t)
	for i := range crd.Spec.Versions {
		crd.Spec.Versions[i].AdditionalPrinterColumns = nil
	}
	s := scheme.New()
	if err := apiextensions.Install(s, crd, apiextensions.InstallOptions{}); err != nil {
		t.Fatal(err)
	}
	res, _ := s.Resource(scheme.GroupResource{Group: "fleet.example.com", Resource: "robots"})
	if len(res.PrinterColumns) != 1 || res.PrinterColumns[0].Name != "Age" || res.PrinterColumns[0].JSONPath != ".metadata.creationTimestamp" {
		t.Errorf("columns = %+v, want kube's single Age column", res.PrinterColumns)
	}
}

func TestInstall_RefusesInvalidCRDsWithKubesStatus(t *testing.T) {
	crd := robotsCRD(t)
	crd.Name = "robots.example.com"
	crd.Spec.Versions[1].Storage = true
	s := scheme.New()
	err := apiextensions.Install(s, crd, apiextensions.InstallOptions{})
	var status *scheme.Status
	if !errors.As(err, &status) {
		t.Fatalf("err = %v, want a *scheme.Status", err)
	}
	if status.Code != http.StatusUnprocessableEntity || status.Reason != scheme.StatusReasonInvalid {
		t.Errorf("status %d %s, want 422 Invalid", status.Code, status.Reason)
	}
	wantMsg := `CustomResourceDefinition.apiextensions.k8s.io "robots.example.com" is invalid: [metadata.name: Invalid value: "robots.example.com": must be spec.names.plural+"."+spec.group, `
	if !strings.HasPrefix(status.Message, wantMsg) || !strings.Contains(status.Message, "must have exactly one version marked as storage version") {
		t.Errorf("message = %s", status.Message)
	}
	if len(s.Groups()) != 0 {
		t.Errorf("a refused CRD changed the scheme: groups %v", s.Groups())
	}
}

func TestInstall_RefusesWhatTheSchemeAlreadyHasWithoutChangingIt(t *testing.T) {
	s := scheme.New()
	s.AddUnstructuredKind(scheme.GroupVersionKind{Group: "fleet.example.com", Version: "v1beta1", Kind: "Robot"})
	err := apiextensions.Install(s, robotsCRD(t), apiextensions.InstallOptions{})
	if err == nil || !strings.Contains(err.Error(), "kind fleet.example.com/v1beta1, Kind=Robot is already registered") {
		t.Fatalf("err = %v", err)
	}
	if s.Recognizes(scheme.GroupVersionKind{Group: "fleet.example.com", Version: "v1", Kind: "Robot"}) {
		t.Error("a refused CRD registered a kind")
	}
	s2 := scheme.New()
	if err := apiextensions.Install(s2, robotsCRD(t), apiextensions.InstallOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := apiextensions.Install(s2, robotsCRD(t), apiextensions.InstallOptions{}); err == nil || !strings.Contains(err.Error(), "already registered") {
		t.Errorf("second install: err = %v", err)
	}
}

func TestInstall_RefusesAKindAnotherResourceServesAtOtherVersions(t *testing.T) {
	s := scheme.New()
	if err := apiextensions.Install(s, robotsCRD(t), apiextensions.InstallOptions{}); err != nil {
		t.Fatal(err)
	}
	other := robotsCRD(t)
	other.Name, other.Spec.Names.Plural, other.Spec.Names.Singular = "automatons.fleet.example.com", "automatons", "automaton"
	other.Spec.Names.ListKind = "AutomatonList"
	for i := range other.Spec.Versions {
		other.Spec.Versions[i].Name = "v9" + other.Spec.Versions[i].Name
	}
	other.Status.StoredVersions = nil
	err := apiextensions.Install(s, other, apiextensions.InstallOptions{})
	if err == nil || !strings.Contains(err.Error(), "is the kind of resource robots.fleet.example.com") {
		t.Fatalf("err = %v, want the kind refused", err)
	}
	if r, ok := s.ResourceFor(scheme.GroupKind{Group: "fleet.example.com", Kind: "Robot"}); !ok || r.Plural != "robots" {
		t.Errorf("the kind Robot is now the resource %v's", r)
	}
}

func TestInstall_WebhookStrategyCallsTheWebhookOrTheConvertFunction(t *testing.T) {
	crd := robotsCRD(t)
	crd.Spec.Conversion = &apiextensions.CustomResourceConversion{
		Strategy: apiextensions.WebhookConverter,
		Webhook: &apiextensions.WebhookConversion{
			ClientConfig:             &apiextensions.WebhookClientConfig{Service: &apiextensions.ServiceReference{Namespace: "fleet", Name: "webhook"}},
			ConversionReviewVersions: []string{"v1"},
		},
	}
	called := scheme.New()
	if err := apiextensions.Install(called, crd, apiextensions.InstallOptions{}); err != nil {
		t.Fatal(err)
	}
	robot := &scheme.Unstructured{Object: map[string]any{
		"apiVersion": "fleet.example.com/v1", "kind": "Robot",
		"metadata": map[string]any{"name": "r"}, "spec": map[string]any{"model": "R2"},
	}}
	// Without a resolver, the Service's name is looked up as a host without cluster DNS.
	_, err := conversion.ToVersion(called, robot, scheme.GroupVersion{Group: "fleet.example.com", Version: "v1beta1"})
	if want := `conversion webhook for fleet.example.com/v1, Kind=Robot failed: Post "https://webhook.fleet.svc:443/?timeout=30s": dial tcp: lookup webhook.fleet.svc: no such host`; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want %q", err, want)
	}

	s := scheme.New()
	convert := func(c conversion.UnstructuredConversion) error {
		for _, obj := range c.Objects {
			if err := scheme.SetNestedField(obj.Object, "converted to "+c.To.Version, "spec", "color"); err != nil {
				return err
			}
		}
		return nil
	}
	if err := apiextensions.Install(s, crd, apiextensions.InstallOptions{Convert: convert}); err != nil {
		t.Fatal(err)
	}
	in := &scheme.Unstructured{Object: map[string]any{
		"apiVersion": "fleet.example.com/v1", "kind": "Robot",
		"metadata": map[string]any{"name": "r"}, "spec": map[string]any{"model": "R2"},
	}}
	out, err := conversion.ToVersion(s, in, scheme.GroupVersion{Group: "fleet.example.com", Version: "v1beta1"})
	if err != nil {
		t.Fatal(err)
	}
	u := out.(*scheme.Unstructured)
	if color, _ := scheme.NestedString(u.Object, "spec", "color"); color != "converted to v1beta1" || u.GetAPIVersion() != "fleet.example.com/v1beta1" {
		t.Errorf("converted object = %v", u.Object)
	}
}

func TestInstall_StorageVersionMustBeServed(t *testing.T) {
	crd := robotsCRD(t)
	crd.Spec.Versions[0].Served = false
	err := apiextensions.Install(scheme.New(), crd, apiextensions.InstallOptions{})
	if err == nil || !strings.Contains(err.Error(), `the storage version "v1" is not served`) {
		t.Errorf("err = %v", err)
	}
}

func TestAddToScheme_ServesCRDsLikeKube(t *testing.T) {
	s := scheme.New()
	if err := apiextensions.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	res, ok := s.LookupResource("apiextensions.k8s.io", "crd")
	if !ok {
		t.Fatal("short name crd does not resolve")
	}
	if res.Namespaced || !res.StatusSubresource || res.Plural != "customresourcedefinitions" || len(res.PrinterColumns) != 0 {
		t.Errorf("resource = %+v", res)
	}
	obj, err := s.New(apiextensions.GroupVersion.WithKind("CustomResourceDefinition"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := obj.(*apiextensions.CustomResourceDefinition); !ok {
		t.Errorf("New gave %T", obj)
	}
}
