package validation

import (
	"testing"

	"github.com/apikit-dev/apikit/scheme"
)

func benchMeta() *scheme.ObjectMeta {
	return &scheme.ObjectMeta{
		Name: "frontend-7d9f8c6b5-x2k4p", Namespace: "production", UID: "6f1c2a8e-1234", ResourceVersion: "42",
		Generation: 2, CreationTimestamp: scheme.NewTime(scheme.Now().Time),
		Labels:      map[string]string{"app": "frontend", "app.kubernetes.io/version": "v1.2.3", "tier": "web"},
		Annotations: map[string]string{"example.com/owner": "team-a", "kubectl.kubernetes.io/last-applied-configuration": "{}"},
		Finalizers:  []string{"example.com/cleanup"},
		ManagedFields: []scheme.ManagedFieldsEntry{
			{Manager: "kubectl", Operation: scheme.ManagedFieldsOperationApply, FieldsType: "FieldsV1"},
		},
	}
}

func BenchmarkValidateObjectMeta_Valid(b *testing.B) {
	m := benchMeta()
	p := NewPath("metadata")
	b.ReportAllocs()
	for b.Loop() {
		if errs := ValidateObjectMeta(m, true, NameIsDNSSubdomain, p); len(errs) != 0 {
			b.Fatal(errs)
		}
	}
}

func BenchmarkValidateObjectMetaUpdate_Valid(b *testing.B) {
	m := benchMeta()
	old := benchMeta()
	old.CreationTimestamp = m.CreationTimestamp
	p := NewPath("metadata")
	b.ReportAllocs()
	for b.Loop() {
		if errs := ValidateObjectMetaUpdate(m, old, p); len(errs) != 0 {
			b.Fatal(errs)
		}
	}
}

func BenchmarkValidateObjectMeta_ValidUnstructured(b *testing.B) {
	u := &scheme.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "X",
		"metadata": map[string]any{
			"name": "frontend-7d9f8c6b5-x2k4p", "namespace": "production",
			"labels":      map[string]any{"app": "frontend", "tier": "web"},
			"annotations": map[string]any{"example.com/owner": "team-a"},
			"finalizers":  []any{"example.com/cleanup"},
		},
	}}
	p := NewPath("metadata")
	b.ReportAllocs()
	for b.Loop() {
		if errs := ValidateObjectMeta(u, true, NameIsDNSSubdomain, p); len(errs) != 0 {
			b.Fatal(errs)
		}
	}
}

func BenchmarkIsDNS1123Subdomain(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if IsDNS1123Subdomain("frontend-7d9f8c6b5-x2k4p.production.svc.cluster.local") != nil {
			b.Fatal("unexpected error")
		}
	}
}

func BenchmarkIsQualifiedName(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if IsQualifiedName("app.kubernetes.io/version") != nil {
			b.Fatal("unexpected error")
		}
	}
}

func BenchmarkErrorList_ToStatus(b *testing.B) {
	errs := ErrorList{
		Required(NewPath("spec", "color"), ""),
		NotSupported(NewPath("spec", "size"), "huge", []string{"small", "large"}),
		Invalid(NewPath("metadata", "name"), "A_b", "bad"),
	}
	gk := scheme.GroupKind{Group: "toys.example.com", Kind: "Widget"}
	b.ReportAllocs()
	for b.Loop() {
		if st := errs.ToStatus(gk, "foo"); st.Code != 422 {
			b.Fatal(st)
		}
	}
}
