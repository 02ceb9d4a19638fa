package structural

import (
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"strconv"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// objectMetaType is what kube-apiserver decodes a custom resource's metadata (and an
// embedded resource's) into: the fields it does not have are dropped and, under
// fieldValidation=Strict|Warn, reported.
var objectMetaType = reflect.TypeFor[scheme.ObjectMeta]()

var jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()

// pruneRootMeta removes the fields of obj's metadata that ObjectMeta does not have and
// returns their paths ("metadata.foo", "metadata.ownerReferences[0].bar") in the order
// kube's strict decoder meets them: keys sorted, depth first.
func pruneRootMeta(obj map[string]any) []string {
	return pruneUnknownJSON(nil, "metadata", obj["metadata"], objectMetaType)
}

// pruneEmbeddedMeta does what pruneRootMeta does for the metadata of every embedded
// resource below the root (x-kubernetes-embedded-resource) that the schema reaches
// through properties, additionalProperties and items, as apiextensions' objectmeta
// coercion does. Its paths name map keys in brackets ("spec.m[k].metadata.foo") as
// kube's do, and are sorted as kube sorts them.
func pruneEmbeddedMeta(obj map[string]any, root *node) []string {
	unknown := embeddedMeta(nil, obj, root, nil)
	sort.Strings(unknown)
	return unknown
}

// embeddedMeta walks x, the value at p (nil at the root, whose metadata is
// pruneRootMeta's) of schema n, pruning the metadata of the embedded resources in it.
func embeddedMeta(p *validation.Path, x any, n *node, unknown []string) []string {
	if n == nil || !n.walkEmbedded {
		return unknown
	}
	switch x := x.(type) {
	case map[string]any:
		if n.embedded && p != nil {
			unknown = pruneUnknownJSON(unknown, p.Child("metadata").String(), x["metadata"], objectMetaType)
		}
		for k, v := range x {
			if prop, ok := n.props[k]; ok {
				unknown = embeddedMeta(p.Child(k), v, prop, unknown)
			} else {
				unknown = embeddedMeta(p.Key(k), v, n.additional, unknown)
			}
		}
	case []any:
		for i, v := range x {
			unknown = embeddedMeta(p.Index(i), v, n.items, unknown)
		}
	}
	return unknown
}

// pruneUnknownJSON removes from x, the JSON value at path, the object members that
// decoding it into a value of type t would not know (case-sensitively, as kube's
// strict decoder matches), appending their paths to unknown. It descends into
// structs, slices and maps, but not into types that decode themselves (Time,
// FieldsV1). A value of the wrong shape is left for decoding to refuse.
func pruneUnknownJSON(unknown []string, path string, x any, t reflect.Type) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(jsonUnmarshaler) {
		return unknown
	}
	switch t.Kind() {
	case reflect.Struct:
		m, _ := x.(map[string]any)
		fields := scheme.JSONFields(t)
		for _, k := range sortedKeys(m) {
			i := slices.IndexFunc(fields, func(f scheme.JSONField) bool { return f.Name == k })
			if i < 0 {
				unknown = append(unknown, path+"."+k)
				delete(m, k)
				continue
			}
			unknown = pruneUnknownJSON(unknown, path+"."+k, m[k], fields[i].Type)
		}
	case reflect.Map:
		m, _ := x.(map[string]any)
		for _, k := range sortedKeys(m) {
			unknown = pruneUnknownJSON(unknown, path+"."+k, m[k], t.Elem())
		}
	case reflect.Slice:
		items, _ := x.([]any)
		for i, v := range items {
			unknown = pruneUnknownJSON(unknown, path+"["+strconv.Itoa(i)+"]", v, t.Elem())
		}
	}
	return unknown
}
