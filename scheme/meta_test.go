package scheme

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

func TestTime_JSONIsRFC3339UTCAndNullWhenZero(t *testing.T) {
	loc := time.FixedZone("X", 3600)
	tests := []struct {
		in   Time
		want string
	}{
		{Time{}, `null`},
		{NewTime(time.Date(2024, 5, 6, 7, 8, 9, 500, loc)), `"2024-05-06T06:08:09Z"`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.in)
		if err != nil || string(b) != tt.want {
			t.Errorf("Marshal(%v) = %s, %v; want %s", tt.in, b, err, tt.want)
		}
		var back Time
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if !back.Time.Equal(tt.in.Truncate(time.Second)) {
			t.Errorf("round trip of %s = %v", b, back)
		}
	}
	var bad Time
	if err := json.Unmarshal([]byte(`"yesterday"`), &bad); err == nil {
		t.Error("a non-RFC3339 time decoded")
	}
	if err := json.Unmarshal([]byte(`12`), &bad); err == nil {
		t.Error("a number decoded as time")
	}
}

func TestObjectMeta_JSONShapeMatchesMetaV1(t *testing.T) {
	ctrl := true
	m := ObjectMeta{
		Name: "w", Namespace: "ns", UID: "u-1", ResourceVersion: "7", Generation: 2,
		CreationTimestamp: NewTime(time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)),
		Labels:            map[string]string{"app": "x"},
		OwnerReferences:   []OwnerReference{{APIVersion: "v1", Kind: "K", Name: "o", UID: "u-2", Controller: &ctrl}},
		Finalizers:        []string{"example.com/f"},
		ManagedFields:     []ManagedFieldsEntry{{Manager: "kubectl", Operation: ManagedFieldsOperationApply, FieldsType: "FieldsV1", FieldsV1: &FieldsV1{Raw: []byte(`{"f:spec":{}}`)}}},
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"w","namespace":"ns","uid":"u-1","resourceVersion":"7","generation":2,"creationTimestamp":"2024-01-02T03:04:05Z","labels":{"app":"x"},"ownerReferences":[{"apiVersion":"v1","kind":"K","name":"o","uid":"u-2","controller":true}],"finalizers":["example.com/f"],"managedFields":[{"manager":"kubectl","operation":"Apply","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{}}}]}`
	if string(b) != want {
		t.Errorf("ObjectMeta JSON\n got %s\nwant %s", b, want)
	}
	var back ObjectMeta
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	b2, _ := json.Marshal(back)
	if string(b2) != want {
		t.Errorf("round trip changed the bytes: %s", b2)
	}
	empty, _ := json.Marshal(ObjectMeta{})
	if string(empty) != `{}` {
		t.Errorf("empty ObjectMeta = %s, want what meta/v1 writes", empty)
	}
}

func TestStatus_JSONShape(t *testing.T) {
	s := &Status{
		TypeMeta: TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   StatusFailure, Message: `widgets "x" not found`, Reason: StatusReasonNotFound,
		Details: &StatusDetails{Name: "x", Group: "toys.example.com", Kind: "widgets"}, Code: 404,
	}
	b, _ := json.Marshal(s)
	want := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"widgets \"x\" not found","reason":"NotFound","details":{"name":"x","group":"toys.example.com","kind":"widgets"},"code":404}`
	if string(b) != want {
		t.Errorf("Status JSON\n got %s\nwant %s", b, want)
	}
	if s.Error() != `widgets "x" not found` {
		t.Errorf("Error() = %q", s.Error())
	}
}

func TestTypeMeta_GroupVersionKind(t *testing.T) {
	var tm TypeMeta
	tm.SetGroupVersionKind(GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	if tm.APIVersion != "apps/v1" || tm.Kind != "Deployment" {
		t.Errorf("TypeMeta = %+v", tm)
	}
	if got := tm.GroupVersionKind(); got != (GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}) {
		t.Errorf("GroupVersionKind = %v", got)
	}
	tm.SetGroupVersionKind(GroupVersionKind{})
	if tm != (TypeMeta{}) {
		t.Errorf("empty gvk did not clear: %+v", tm)
	}
}

func TestUnstructured_MetadataAccessorsRoundTrip(t *testing.T) {
	u := &Unstructured{}
	ctrl := true
	grace := int64(30)
	ts := NewTime(time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC))
	owners := []OwnerReference{{APIVersion: "v1", Kind: "K", Name: "o", UID: "u", Controller: &ctrl}}
	mf := []ManagedFieldsEntry{{Manager: "m", Operation: ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &ts, FieldsType: "FieldsV1", FieldsV1: &FieldsV1{Raw: []byte(`{"f:spec":{"f:color":{}}}`)}}}

	u.SetName("n")
	u.SetGenerateName("g-")
	u.SetNamespace("ns")
	u.SetUID("uid")
	u.SetResourceVersion("12")
	u.SetGeneration(3)
	u.SetCreationTimestamp(ts)
	u.SetDeletionTimestamp(&ts)
	u.SetDeletionGracePeriodSeconds(&grace)
	u.SetLabels(map[string]string{"a": "b"})
	u.SetAnnotations(map[string]string{"c": "d"})
	u.SetFinalizers([]string{"f"})
	u.SetOwnerReferences(owners)
	u.SetManagedFields(mf)

	checks := []struct {
		name      string
		got, want any
	}{
		{"name", u.GetName(), "n"},
		{"generateName", u.GetGenerateName(), "g-"},
		{"namespace", u.GetNamespace(), "ns"},
		{"uid", u.GetUID(), UID("uid")},
		{"resourceVersion", u.GetResourceVersion(), "12"},
		{"generation", u.GetGeneration(), int64(3)},
		{"creationTimestamp", u.GetCreationTimestamp().UTC(), ts.UTC()},
		{"deletionTimestamp", u.GetDeletionTimestamp().UTC(), ts.UTC()},
		{"grace", *u.GetDeletionGracePeriodSeconds(), int64(30)},
		{"labels", u.GetLabels(), map[string]string{"a": "b"}},
		{"annotations", u.GetAnnotations(), map[string]string{"c": "d"}},
		{"finalizers", u.GetFinalizers(), []string{"f"}},
		{"ownerReferences", u.GetOwnerReferences(), owners},
		{"managedFields.manager", u.GetManagedFields()[0].Manager, "m"},
		{"managedFields.fieldsV1", string(u.GetManagedFields()[0].FieldsV1.Raw), `{"f:spec":{"f:color":{}}}`},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %#v, want %#v", c.name, c.got, c.want)
		}
	}

	// Clearing removes the keys instead of leaving empty values behind.
	u.SetLabels(nil)
	u.SetDeletionTimestamp(nil)
	u.SetName("")
	meta := u.Object["metadata"].(map[string]any)
	for _, k := range []string{"labels", "deletionTimestamp", "name"} {
		if _, ok := meta[k]; ok {
			t.Errorf("%s still present after clearing", k)
		}
	}
}

func TestUnstructured_JSONNumbersAreInt64OrFloat64(t *testing.T) {
	var u Unstructured
	if err := json.Unmarshal([]byte(`{"a":1,"b":1.5,"c":[2,{"d":-3}],"e":1e3,"f":9223372036854775807}`), &u); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"a": int64(1), "b": 1.5, "c": []any{int64(2), map[string]any{"d": int64(-3)}}, "e": float64(1000), "f": int64(9223372036854775807)}
	if !reflect.DeepEqual(u.Object, want) {
		t.Errorf("decoded %#v", u.Object)
	}
	if err := json.Unmarshal([]byte(`[1]`), &u); err == nil {
		t.Error("a JSON array decoded as an Unstructured object")
	}
}

func TestUnstructuredList_JSONMovesItems(t *testing.T) {
	var l UnstructuredList
	if err := json.Unmarshal([]byte(`{"apiVersion":"v1","kind":"GadgetList","metadata":{"resourceVersion":"5","continue":"t"},"items":[{"kind":"Gadget"}]}`), &l); err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 1 || l.Items[0].GetKind() != "Gadget" || l.GetResourceVersion() != "5" || l.GetContinue() != "t" {
		t.Errorf("list = %#v", l)
	}
	if _, ok := l.Object["items"]; ok {
		t.Error("items left in Object")
	}
	b, _ := json.Marshal(&l)
	if string(b) != `{"apiVersion":"v1","items":[{"kind":"Gadget"}],"kind":"GadgetList","metadata":{"continue":"t","resourceVersion":"5"}}` {
		t.Errorf("marshal = %s", b)
	}
	if err := json.Unmarshal([]byte(`{"items":[1]}`), &l); err == nil {
		t.Error("a non-object item decoded")
	}
	n := int64(4)
	l.SetRemainingItemCount(&n)
	if got := l.GetRemainingItemCount(); got == nil || *got != 4 {
		t.Errorf("remainingItemCount = %v", got)
	}
}

func TestNestedFieldHelpers(t *testing.T) {
	obj := map[string]any{}
	if err := SetNestedField(obj, "red", "spec", "color"); err != nil {
		t.Fatal(err)
	}
	if err := SetNestedField(obj, int64(2), "spec", "replicas"); err != nil {
		t.Fatal(err)
	}
	if s, ok := NestedString(obj, "spec", "color"); !ok || s != "red" {
		t.Errorf("NestedString = %q, %v", s, ok)
	}
	if n, ok := NestedInt64(obj, "spec", "replicas"); !ok || n != 2 {
		t.Errorf("NestedInt64 = %d, %v", n, ok)
	}
	if _, ok := NestedString(obj, "spec", "replicas"); ok {
		t.Error("NestedString accepted a number")
	}
	if err := SetNestedField(obj, 1, "spec", "color", "x"); err == nil {
		t.Error("SetNestedField through a string succeeded")
	}
	RemoveNestedField(obj, "spec", "color")
	if _, ok := NestedField(obj, "spec", "color"); ok {
		t.Error("RemoveNestedField left the value")
	}
	if m, ok := NestedMap(obj, "spec"); !ok || len(m) != 1 {
		t.Errorf("NestedMap = %v, %v", m, ok)
	}
	if _, ok := NestedSlice(obj, "spec"); ok {
		t.Error("NestedSlice accepted a map")
	}
}
