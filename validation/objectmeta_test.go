package validation

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/scheme"
)

func messages(list ErrorList) []string {
	var out []string
	for _, e := range list {
		out = append(out, e.Error())
	}
	return out
}

// unstructuredFrom returns the same metadata as an *scheme.Unstructured, so every
// case runs against both MetaAccessor implementations.
func unstructuredFrom(t *testing.T, m *scheme.ObjectMeta) *scheme.Unstructured {
	t.Helper()
	b, err := json.Marshal(map[string]any{"apiVersion": "toys.example.com/v1", "kind": "Widget", "metadata": m})
	if err != nil {
		t.Fatal(err)
	}
	u := &scheme.Unstructured{}
	if err := json.Unmarshal(b, u); err != nil {
		t.Fatal(err)
	}
	return u
}

func TestValidateLabels(t *testing.T) {
	p := NewPath("metadata", "labels")
	tests := []struct {
		name   string
		labels map[string]string
		want   []string
	}{
		{"nil is valid", nil, nil},
		{"good keys and values", map[string]string{"app": "web", "example.com/tier": "", "a.b_c-d": "v1.0"}, nil},
		{"bad key and bad value, in key order", map[string]string{"z": "bad value!", "-a": "ok"}, []string{
			`metadata.labels: Invalid value: "-a": ` + msgNamePart,
			`metadata.labels: Invalid value: "bad value!": ` + msgLabelValue,
		}},
		{"uppercase prefix is rejected", map[string]string{"Example.com/x": "y"}, []string{
			`metadata.labels: Invalid value: "Example.com/x": prefix part ` + msgSubdomain,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := messages(ValidateLabels(tt.labels, p)); !slices.Equal(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestValidateAnnotations(t *testing.T) {
	p := NewPath("metadata", "annotations")
	half := strings.Repeat("x", TotalAnnotationSizeLimit/2)
	tests := []struct {
		name string
		ann  map[string]string
		want []string
	}{
		{"nil is valid", nil, nil},
		{"keys are checked ignoring case", map[string]string{"Example.COM/Some-Key": "anything at all: {json}"}, nil},
		{"bad key reported with its original case", map[string]string{"A/B/C": "v"}, []string{
			`metadata.annotations: Invalid value: "A/B/C": ` + msgLabelKey,
		}},
		{"exactly at the size limit is valid", map[string]string{"k": strings.Repeat("x", TotalAnnotationSizeLimit-1)}, nil},
		{"one byte over the size limit", map[string]string{"k": strings.Repeat("x", TotalAnnotationSizeLimit)}, []string{
			"metadata.annotations: Too long: may not be more than 262144 bytes",
		}},
		{"size counts keys and values of all entries", map[string]string{"a": half, "b": half}, []string{
			"metadata.annotations: Too long: may not be more than 262144 bytes",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := messages(ValidateAnnotations(tt.ann, p)); !slices.Equal(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestValidateFinalizerName(t *testing.T) {
	p := NewPath("spec", "finalizers")
	tests := []struct {
		name      string
		finalizer string
		want      []string
	}{
		{"domain qualified", "example.com/cleanup", nil},
		{"standard kubernetes", "kubernetes", nil},
		{"standard orphan", "orphan", nil},
		{"standard foregroundDeletion", "foregroundDeletion", nil},
		{"unqualified custom name", "cleanup", []string{
			`spec.finalizers: Invalid value: "cleanup": name is neither a standard finalizer name nor is it fully qualified`,
		}},
		{"malformed and unqualified", "bad name", []string{
			`spec.finalizers: Invalid value: "bad name": ` + msgNamePart,
			`spec.finalizers: Invalid value: "bad name": name is neither a standard finalizer name nor is it fully qualified`,
		}},
		{"malformed prefix", "Example.com/x", []string{
			`spec.finalizers: Invalid value: "Example.com/x": prefix part ` + msgSubdomain,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := messages(ValidateFinalizerName(tt.finalizer, p)); !slices.Equal(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestValidateObjectMeta(t *testing.T) {
	yes := true
	tests := []struct {
		name       string
		meta       scheme.ObjectMeta
		namespaced bool
		nameFn     func(string, bool) []string
		want       []string
	}{
		{"valid namespaced object", scheme.ObjectMeta{Name: "foo", Namespace: "default"}, true, nil, nil},
		{"valid cluster-scoped object", scheme.ObjectMeta{Name: "foo"}, false, NameIsDNSSubdomain, nil},
		{"name or generateName required", scheme.ObjectMeta{Namespace: "default"}, true, nil, []string{
			"metadata.name: Required value: name or generateName is required",
		}},
		{"generateName alone still requires the generated name", scheme.ObjectMeta{GenerateName: "foo-"}, false, nil, []string{
			"metadata.name: Required value: name or generateName is required",
		}},
		{"valid generateName with generated name", scheme.ObjectMeta{GenerateName: "foo-", Name: "foo-x7k2p"}, false, nil, nil},
		{"invalid generateName is checked as a prefix", scheme.ObjectMeta{GenerateName: "Foo_", Name: "Foo_abcde"}, false, nil, []string{
			`metadata.generateName: Invalid value: "Foo_": ` + msgSubdomain,
			`metadata.name: Invalid value: "Foo_abcde": ` + msgSubdomain,
		}},
		{"name checked by nameFn", scheme.ObjectMeta{Name: "a.b"}, false, NameIsDNSLabel, []string{
			`metadata.name: Invalid value: "a.b": must not contain dots`,
		}},
		{"namespace required when namespaced", scheme.ObjectMeta{Name: "foo"}, true, nil, []string{
			"metadata.namespace: Required value",
		}},
		{"namespace must be a DNS label", scheme.ObjectMeta{Name: "foo", Namespace: "a.b"}, true, nil, []string{
			`metadata.namespace: Invalid value: "a.b": must not contain dots`,
		}},
		{"namespace forbidden when cluster-scoped", scheme.ObjectMeta{Name: "foo", Namespace: "default"}, false, nil, []string{
			"metadata.namespace: Forbidden: not allowed on this type",
		}},
		{"negative generation", scheme.ObjectMeta{Name: "foo", Generation: -1}, false, nil, []string{
			"metadata.generation: Invalid value: -1: must be greater than or equal to 0",
		}},
		{"labels and annotations", scheme.ObjectMeta{Name: "foo", Labels: map[string]string{"app": "bad value!"}, Annotations: map[string]string{"/x": ""}}, false, nil, []string{
			`metadata.labels: Invalid value: "bad value!": ` + msgLabelValue,
			`metadata.annotations: Invalid value: "/x": prefix part must be non-empty`,
		}},
		{"finalizers as kube-apiserver reports them", scheme.ObjectMeta{Name: "foo", Finalizers: []string{"example.com/ok", "orphan", "foregroundDeletion", "cleanup", "Bad Name"}}, false, nil, []string{
			`metadata.finalizers: Invalid value: "Bad Name": ` + msgNamePart,
			`metadata.finalizers: Invalid value: ["example.com/ok","orphan","foregroundDeletion","cleanup","Bad Name"]: finalizer orphan and foregroundDeletion cannot be both set`,
			`metadata.finalizers[3]: Invalid value: "cleanup": name is neither a standard finalizer name nor is it fully qualified`,
			`metadata.finalizers[4]: Invalid value: "Bad Name": name is neither a standard finalizer name nor is it fully qualified`,
		}},
		{"owner references", scheme.ObjectMeta{Name: "foo", OwnerReferences: []scheme.OwnerReference{
			{},
			{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: "u1", Controller: &yes},
			{APIVersion: "v1", Kind: "Event", Name: "ev", UID: "u2", Controller: &yes},
			{APIVersion: "a/b/c", Kind: "K", Name: "n", UID: "u3"},
		}}, false, nil, []string{
			"metadata.ownerReferences[0].apiVersion: Required value: must not be empty",
			"metadata.ownerReferences[0].kind: Required value: must not be empty",
			"metadata.ownerReferences[0].name: Required value: must not be empty",
			"metadata.ownerReferences[0].uid: Required value: must not be empty",
			`metadata.ownerReferences[2]: Invalid value: {"apiVersion":"v1","kind":"Event","name":"ev","uid":"u2","controller":true}: /v1, Kind=Event is disallowed from being an owner`,
			`metadata.ownerReferences: Invalid value: [{"apiVersion":"","kind":"","name":"","uid":""},{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"u1","controller":true},{"apiVersion":"v1","kind":"Event","name":"ev","uid":"u2","controller":true},{"apiVersion":"a/b/c","kind":"K","name":"n","uid":"u3"}]: Only one reference can have Controller set to true. Found "true" in references for ReplicaSet/rs and Event/ev`,
			`metadata.ownerReferences[3].apiVersion: Invalid value: "a/b/c": must be <group>/<version> or <version>`,
		}},
		{"managed fields", scheme.ObjectMeta{Name: "foo", ManagedFields: []scheme.ManagedFieldsEntry{
			{Manager: "kubectl", Operation: scheme.ManagedFieldsOperationApply, FieldsType: "FieldsV1"},
			{},
			{Operation: "Bogus", FieldsType: "FieldsV2", Manager: "bad\x01", Subresource: strings.Repeat("s", 257)},
			{Operation: scheme.ManagedFieldsOperationUpdate, Manager: strings.Repeat("m", 129)},
		}}, false, nil, []string{
			"metadata.managedFields[1].operation: Required value: must not be empty",
			`metadata.managedFields[2].operation: Unsupported value: "Bogus": supported values: "Apply", "Update"`,
			"metadata.managedFields[2].fieldsType: Invalid value: \"FieldsV2\": must be `FieldsV1`",
			`metadata.managedFields[2].manager: Invalid value: "bad\x01": invalid character U+0001 (at position 3)`,
			"metadata.managedFields[2].subresource: Too long: may not be more than 256 bytes",
			"metadata.managedFields[3].manager: Too long: may not be more than 128 bytes",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := messages(ValidateObjectMeta(&tt.meta, tt.namespaced, tt.nameFn, NewPath("metadata")))
			if !slices.Equal(got, tt.want) {
				t.Errorf("ObjectMeta:\ngot  %q\nwant %q", got, tt.want)
			}
			gotU := messages(ValidateObjectMeta(unstructuredFrom(t, &tt.meta), tt.namespaced, tt.nameFn, NewPath("metadata")))
			if !slices.Equal(gotU, tt.want) {
				t.Errorf("Unstructured:\ngot  %q\nwant %q", gotU, tt.want)
			}
		})
	}
}

func TestValidateObjectMetaUpdate(t *testing.T) {
	created := scheme.NewTime(time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC))
	later := scheme.NewTime(created.Add(time.Hour))
	thirty, zero := int64(30), int64(0)
	stored := func() scheme.ObjectMeta {
		return scheme.ObjectMeta{
			Name: "foo", Namespace: "default", UID: "uid-1", ResourceVersion: "7", Generation: 3,
			CreationTimestamp: created, Finalizers: []string{"example.com/a"}, Labels: map[string]string{"app": "web"},
		}
	}
	tests := []struct {
		name   string
		change func(next, old *scheme.ObjectMeta)
		want   []string
	}{
		{"unchanged is valid", func(next, old *scheme.ObjectMeta) {}, nil},
		{"labels, annotations and generateName may change", func(next, old *scheme.ObjectMeta) {
			next.Labels = map[string]string{"app": "db"}
			next.Annotations = map[string]string{"note": "x"}
			next.GenerateName = "foo-"
			next.Generation = 4
		}, nil},
		{"same creation instant in another zone is unchanged", func(next, old *scheme.ObjectMeta) {
			next.CreationTimestamp = scheme.NewTime(created.In(time.FixedZone("X", 3600)))
		}, nil},
		{"resourceVersion required", func(next, old *scheme.ObjectMeta) { next.ResourceVersion = "" }, []string{
			`metadata.resourceVersion: Invalid value: "": must be specified for an update`,
		}},
		{"generation may not decrease", func(next, old *scheme.ObjectMeta) { next.Generation = 2 }, []string{
			"metadata.generation: Invalid value: 2: must not be decremented",
		}},
		{"identity fields are immutable", func(next, old *scheme.ObjectMeta) {
			next.Name, next.Namespace, next.UID, next.CreationTimestamp = "bar", "other", "uid-2", later
		}, []string{
			`metadata.name: Invalid value: "bar": field is immutable`,
			`metadata.namespace: Invalid value: "other": field is immutable`,
			`metadata.uid: Invalid value: "uid-2": field is immutable`,
			`metadata.creationTimestamp: Invalid value: "2024-01-02T04:04:05Z": field is immutable`,
		}},
		{"deletionTimestamp may not be set by an update", func(next, old *scheme.ObjectMeta) { next.DeletionTimestamp = &later }, []string{
			`metadata.deletionTimestamp: Invalid value: "2024-01-02T04:04:05Z": field is immutable`,
		}},
		{"deletionTimestamp may not be unset", func(next, old *scheme.ObjectMeta) { old.DeletionTimestamp = &later }, []string{
			"metadata.deletionTimestamp: Invalid value: null: field is immutable",
		}},
		{"deletionTimestamp may not move", func(next, old *scheme.ObjectMeta) {
			old.DeletionTimestamp = &created
			next.DeletionTimestamp = &later
		}, []string{
			`metadata.deletionTimestamp: Invalid value: "2024-01-02T04:04:05Z": field is immutable`,
		}},
		{"deletionGracePeriodSeconds is immutable", func(next, old *scheme.ObjectMeta) {
			old.DeletionGracePeriodSeconds = &thirty
			next.DeletionGracePeriodSeconds = &zero
		}, []string{
			"metadata.deletionGracePeriodSeconds: Invalid value: 0: field is immutable",
		}},
		{"no new finalizers while deleting", func(next, old *scheme.ObjectMeta) {
			old.DeletionTimestamp, next.DeletionTimestamp = &later, &later
			next.Finalizers = []string{"z.io/b", "example.com/a", "a.io/c", "a.io/c"}
		}, []string{
			`metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"a.io/c", "z.io/b"}`,
		}},
		{"finalizers may be removed while deleting", func(next, old *scheme.ObjectMeta) {
			old.DeletionTimestamp, next.DeletionTimestamp = &later, &later
			next.Finalizers = nil
		}, nil},
		{"values are checked as on create", func(next, old *scheme.ObjectMeta) {
			next.Labels = map[string]string{"-x": "y"}
			next.Finalizers = []string{"cleanup"}
		}, []string{
			`metadata.labels: Invalid value: "-x": ` + msgNamePart,
			`metadata.finalizers[0]: Invalid value: "cleanup": name is neither a standard finalizer name nor is it fully qualified`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next, old := stored(), stored()
			tt.change(&next, &old)
			got := messages(ValidateObjectMetaUpdate(&next, &old, NewPath("metadata")))
			if !slices.Equal(got, tt.want) {
				t.Errorf("ObjectMeta:\ngot  %q\nwant %q", got, tt.want)
			}
			gotU := messages(ValidateObjectMetaUpdate(unstructuredFrom(t, &next), unstructuredFrom(t, &old), NewPath("metadata")))
			if !slices.Equal(gotU, tt.want) {
				t.Errorf("Unstructured:\ngot  %q\nwant %q", gotU, tt.want)
			}
		})
	}
}
