package structural

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPruneDecoded_DropsAndReportsUnknownMetadataFieldsAsKube: kube-apiserver decodes the
// metadata of a custom resource and of its embedded resources into ObjectMeta, so
// fields ObjectMeta lacks (case-sensitively, also inside ownerReferences and
// managedFields items) are dropped and reported: the root's first in decoding order,
// then the schema's pruned paths, then the embedded resources', sorted.
func TestPruneDecoded_DropsAndReportsUnknownMetadataFieldsAsKube(t *testing.T) {
	s := mustCompile(t, `{"type":"object","properties":{"spec":{"type":"object","properties":{
		"tpl":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true},
		"byName":{"type":"object","additionalProperties":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true}},
		"many":{"type":"array","items":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true}}}}}}`)
	obj := mustObject(t, `{"apiVersion":"x/v1","kind":"K","metadata":{"name":"n","zz":1,"Name":"N",
		"labels":{"a":"b"},"ownerReferences":[{"uid":"u","extra":true}],
		"managedFields":[{"manager":"m","fieldsV1":{"f:spec":{}},"bogus":1}],"creationTimestamp":null},
		"spec":{"unknown":1,"tpl":{"metadata":{"name":"t","foo":1},"keep":1},
		"byName":{"k":{"metadata":{"bar":1}}},"many":[{"metadata":{"baz":1,"namespace":"ns"}}]}}`)
	got := s.PruneDecoded(obj)
	want := []string{
		"metadata.Name", "metadata.managedFields[0].bogus", "metadata.ownerReferences[0].extra", "metadata.zz",
		"spec.unknown",
		"spec.byName[k].metadata.bar", "spec.many[0].metadata.baz", "spec.tpl.metadata.foo",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
	wantObj := mustObject(t, `{"apiVersion":"x/v1","kind":"K","metadata":{"name":"n",
		"labels":{"a":"b"},"ownerReferences":[{"uid":"u"}],
		"managedFields":[{"manager":"m","fieldsV1":{"f:spec":{}}}],"creationTimestamp":null},
		"spec":{"tpl":{"metadata":{"name":"t"},"keep":1},
		"byName":{"k":{"metadata":{}}},"many":[{"metadata":{"namespace":"ns"}}]}}`)
	if diff := cmp.Diff(wantObj, obj); diff != "" {
		t.Errorf("object (-want +got):\n%s", diff)
	}
}
