package table_test

import (
	"testing"

	"github.com/apikit-dev/apikit/rest/table"
	"github.com/apikit-dev/apikit/scheme"
)

func TestAsPartialObjectMetadataList_ShapeMatchesApimachinery(t *testing.T) {
	list := &widgetList{Items: []widget{*newWidget("a", "red", 1, "Ready")}}
	list.Items[0].Finalizers = []string{"toys.example.com/cleanup"}
	list.ResourceVersion, list.Continue, list.SelfLink = "12", "tok", "/ignored"
	got, err := table.AsPartialObjectMetadataList(list)
	if err != nil {
		t.Fatal(err)
	}
	// Field names as in k8s.io/apimachinery metav1.PartialObjectMetadataList.
	assertJSON(t, got, `{
  "kind": "PartialObjectMetadataList",
  "apiVersion": "meta.k8s.io/v1",
  "metadata": {"resourceVersion": "12", "continue": "tok"},
  "items": [{
    "kind": "PartialObjectMetadata",
    "apiVersion": "meta.k8s.io/v1",
    "metadata": {
      "name": "a", "namespace": "default", "uid": "uid-a", "resourceVersion": "7",
      "creationTimestamp": "2024-05-01T12:00:00Z", "labels": {"app": "toy"},
      "finalizers": ["toys.example.com/cleanup"]
    }
  }]
}`)
}

func TestNewPartialObjectMetadataList_EmptyListHasNullItemsLikeKube(t *testing.T) {
	got := table.NewPartialObjectMetadataList(nil, &scheme.ListMeta{ResourceVersion: "3"})
	assertJSON(t, got, `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"3"},"items":null}`)
}

func TestAsPartialObjectMetadata_CopiesEveryMetadataFieldOfUnstructured(t *testing.T) {
	u := &scheme.Unstructured{Object: map[string]any{
		"apiVersion": "toys.example.com/v1", "kind": "Widget",
		"metadata": map[string]any{
			"name": "u", "generateName": "u-", "namespace": "ns", "uid": "id", "resourceVersion": "5",
			"generation": int64(2), "creationTimestamp": "2024-05-01T12:00:00Z",
			"deletionTimestamp": "2024-05-02T12:00:00Z", "deletionGracePeriodSeconds": int64(30),
			"labels": map[string]any{"a": "b"}, "annotations": map[string]any{"c": "d"},
			"ownerReferences": []any{map[string]any{"apiVersion": "v1", "kind": "K", "name": "o", "uid": "oid"}},
			"finalizers":      []any{"f"},
			"managedFields":   []any{map[string]any{"manager": "m", "operation": "Update"}},
		},
		"spec": map[string]any{"color": "red"},
	}}
	assertJSON(t, table.AsPartialObjectMetadata(u), `{
  "kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
  "metadata": {
    "name": "u", "generateName": "u-", "namespace": "ns", "uid": "id", "resourceVersion": "5",
    "generation": 2, "creationTimestamp": "2024-05-01T12:00:00Z",
    "deletionTimestamp": "2024-05-02T12:00:00Z", "deletionGracePeriodSeconds": 30,
    "labels": {"a": "b"}, "annotations": {"c": "d"},
    "ownerReferences": [{"apiVersion": "v1", "kind": "K", "name": "o", "uid": "oid"}],
    "finalizers": ["f"],
    "managedFields": [{"manager": "m", "operation": "Update"}]
  }
}`)
}
