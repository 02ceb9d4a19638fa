package e2e

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func fullMetaV1() metav1.ObjectMeta {
	ctrl, block := true, false
	grace := int64(30)
	ts := metav1.NewTime(time.Date(2024, 3, 4, 5, 6, 7, 0, time.UTC))
	return metav1.ObjectMeta{
		Name: "w1", GenerateName: "w-", Namespace: "ns1", SelfLink: "/x", UID: types.UID("0b7c"),
		ResourceVersion: "42", Generation: 3, CreationTimestamp: ts, DeletionTimestamp: &ts,
		DeletionGracePeriodSeconds: &grace,
		Labels:                     map[string]string{"app": "demo", "tier": "web"},
		Annotations:                map[string]string{"note": "hello \"world\" <&>"},
		OwnerReferences:            []metav1.OwnerReference{{APIVersion: "v1", Kind: "K", Name: "o", UID: "u", Controller: &ctrl, BlockOwnerDeletion: &block}},
		Finalizers:                 []string{"example.com/f"},
		ManagedFields: []metav1.ManagedFieldsEntry{{
			Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "v1", Time: &ts,
			FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{"f:app":{}}}}`)}, Subresource: "status",
		}},
	}
}

// Every meta type apikit defines must carry a client-go object through byte for byte.
func TestMetaTypes_RoundTripClientGoBytesExactly(t *testing.T) {
	remaining := int64(7)
	cases := []struct {
		name string
		k8s  any
		ours func() any
	}{
		{"ObjectMeta full", fullMetaV1(), func() any { return &scheme.ObjectMeta{} }},
		{"ObjectMeta empty", metav1.ObjectMeta{}, func() any { return &scheme.ObjectMeta{} }},
		{"ListMeta", metav1.ListMeta{ResourceVersion: "9", Continue: "abc", RemainingItemCount: &remaining}, func() any { return &scheme.ListMeta{} }},
		{"TypeMeta", metav1.TypeMeta{Kind: "Widget", APIVersion: "toys.example.com/v1"}, func() any { return &scheme.TypeMeta{} }},
		{"Status", metav1.Status{
			TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure,
			Message: "bad", Reason: metav1.StatusReasonInvalid, Code: 422,
			Details: &metav1.StatusDetails{Name: "w", Group: "toys.example.com", Kind: "Widget", UID: "u", RetryAfterSeconds: 2,
				Causes: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueRequired, Message: "Required value", Field: "spec.color"}}},
		}, func() any { return &scheme.Status{} }},
		{"Condition", metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, ObservedGeneration: 2,
			LastTransitionTime: metav1.NewTime(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)), Reason: "Done", Message: "ok"},
			func() any { return &scheme.Condition{} }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, err := json.Marshal(c.k8s)
			if err != nil {
				t.Fatal(err)
			}
			ours := c.ours()
			if err := json.Unmarshal(want, ours); err != nil {
				t.Fatalf("decoding client-go bytes: %v", err)
			}
			got, err := json.Marshal(ours)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("bytes differ\n ours %s\nk8s's %s", got, want)
			}
		})
	}
}
