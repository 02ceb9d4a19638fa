package structural

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// validateEmbedded checks every object with x-kubernetes-embedded-resource below the
// root, as apiextensions-apiserver's schema/objectmeta validation does: apiVersion
// and kind are required and well formed, and metadata passes ObjectMeta validation
// with path-segment names (a missing name is allowed). The root's own metadata is
// not checked here: it is the object's ObjectMeta, which the caller validates.
func validateEmbedded(p *validation.Path, x any, n *node) validation.ErrorList {
	if n == nil || !n.walkEmbedded {
		return nil
	}
	var errs validation.ErrorList
	switch x := x.(type) {
	case map[string]any:
		if n.embedded {
			errs = append(errs, validateEmbeddedResource(p, x)...)
		}
		for _, k := range sortedKeys(x) {
			if prop, ok := n.props[k]; ok {
				errs = append(errs, validateEmbedded(p.Child(k), x[k], prop)...)
			} else if n.additional != nil {
				errs = append(errs, validateEmbedded(p.Key(k), x[k], n.additional)...)
			}
		}
	case []any:
		for i, v := range x {
			errs = append(errs, validateEmbedded(p.Index(i), v, n.items)...)
		}
	}
	return errs
}

func validateEmbeddedResource(p *validation.Path, x map[string]any) validation.ErrorList {
	var errs validation.ErrorList
	apiVersion, hasAPIVersion := x["apiVersion"]
	kind, hasKind := x["kind"]
	if !hasAPIVersion {
		errs = append(errs, validation.Required(p.Child("apiVersion"), ""))
	}
	if !hasKind {
		errs = append(errs, validation.Required(p.Child("kind"), ""))
	}
	if hasAPIVersion {
		fp := p.Child("apiVersion")
		switch s, ok := apiVersion.(string); {
		case !ok:
			errs = append(errs, validation.Invalid(fp, apiVersion, "must be a string"))
		case s == "":
			errs = append(errs, validation.Invalid(fp, s, "must not be empty"))
		case s != "/" && strings.Count(s, "/") > 1:
			// apimachinery's ParseGroupVersion: "group/version" or "version".
			errs = append(errs, validation.Invalid(fp, s, "unexpected GroupVersion string: "+s))
		}
	}
	if hasKind {
		fp := p.Child("kind")
		switch s, ok := kind.(string); {
		case !ok:
			errs = append(errs, validation.Invalid(fp, kind, "must be a string"))
		case s == "":
			errs = append(errs, validation.Invalid(fp, s, "must not be empty"))
		default:
			if msgs := validation.IsDNS1035Label(strings.ToLower(s)); len(msgs) > 0 {
				errs = append(errs, validation.Invalid(fp, s, "may have mixed case, but should otherwise match: "+strings.Join(msgs, ",")))
			}
		}
	}
	if raw, ok := x["metadata"]; ok {
		fp := p.Child("metadata")
		meta, err := embeddedObjectMeta(raw)
		if err != nil {
			errs = append(errs, validation.Invalid(fp, raw, err.Error()))
		} else {
			if meta.Name == "" {
				meta.Name = "fakename" // kube-apiserver's stand-in: an embedded name is optional
			}
			errs = append(errs, validation.ValidateObjectMeta(meta, meta.Namespace != "", validation.NameIsPathSegment, fp)...)
		}
	}
	return errs
}

// objectMetaFields are the JSON names of ObjectMeta's fields. kube-apiserver decodes
// embedded metadata case-sensitively, so keys that only match in another case are
// dropped before encoding/json (which matches any case) sees them.
var objectMetaFields = map[string]bool{
	"name": true, "generateName": true, "namespace": true, "selfLink": true, "uid": true,
	"resourceVersion": true, "generation": true, "creationTimestamp": true,
	"deletionTimestamp": true, "deletionGracePeriodSeconds": true, "labels": true,
	"annotations": true, "ownerReferences": true, "finalizers": true, "managedFields": true,
}

// embeddedObjectMeta decodes embedded metadata as kube-apiserver does, through JSON,
// with its error messages for values of the wrong type.
func embeddedObjectMeta(raw any) (*scheme.ObjectMeta, error) {
	meta := &scheme.ObjectMeta{}
	switch m := raw.(type) {
	case nil:
		return meta, nil
	case map[string]any:
		known := make(map[string]any, len(m))
		for k, v := range m {
			if objectMetaFields[k] {
				known[k] = v
			}
		}
		b, err := json.Marshal(known)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, meta); err != nil {
			return nil, err
		}
		return meta, nil
	}
	return nil, errors.New("json: cannot unmarshal " + jsonKind(raw) + " into Go value of type v1.ObjectMeta")
}

func jsonKind(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "bool"
	case []any:
		return "array"
	}
	return "number"
}

// validateListsOfObject checks that the items of lists of type set are unique and
// the items of lists of type map have unique keys, as apiextensions-apiserver's
// listtype validation does.
func validateListsOfObject(p *validation.Path, n *node, obj map[string]any) validation.ErrorList {
	if n == nil || !n.walkLists || obj == nil {
		return nil
	}
	var errs validation.ErrorList
	keys := sortedKeys(obj)
	if n.additional != nil {
		for _, k := range keys {
			errs = append(errs, validateListsOfValue(p.Key(k), n.additional, obj[k])...)
		}
	}
	for _, k := range keys {
		if sub, ok := n.props[k]; ok {
			errs = append(errs, validateListsOfValue(p.Child(k), sub, obj[k])...)
		}
	}
	return errs
}

func validateListsOfValue(p *validation.Path, n *node, v any) validation.ErrorList {
	switch v := v.(type) {
	case []any:
		return validateListsOfArray(p, n, v)
	case map[string]any:
		return validateListsOfObject(p, n, v)
	}
	return nil
}

func validateListsOfArray(p *validation.Path, n *node, arr []any) validation.ErrorList {
	if n == nil || !n.walkLists {
		return nil
	}
	var errs validation.ErrorList
	switch n.listType {
	case "set":
		for _, i := range nonUniqueItems(arr) {
			errs = append(errs, validation.Duplicate(p.Index(i), arr[i]))
		}
	case "map":
		errs = append(errs, validateListMap(p, n, arr)...)
	}
	if n.items != nil {
		for i, v := range arr {
			errs = append(errs, validateListsOfValue(p.Index(i), n.items, v)...)
		}
	}
	return errs
}

// unspecifiedKey stands for the key of a list-map item that lacks the key field.
type unspecifiedKey struct{}

func validateListMap(p *validation.Path, n *node, arr []any) validation.ErrorList {
	for i, x := range arr {
		if _, ok := x.(map[string]any); x != nil && !ok {
			return validation.ErrorList{validation.Invalid(p.Index(i), x, "must be an object for an array of list-type map")}
		}
	}
	if len(arr) <= 1 {
		return nil
	}
	keys := make([]any, len(arr))
	single := len(n.listMapKeys) == 1
	for i, x := range arr {
		item, _ := x.(map[string]any)
		if single {
			if v, ok := item[n.listMapKeys[0]]; ok {
				keys[i] = v
			} else {
				keys[i] = unspecifiedKey{}
			}
			continue
		}
		key := map[string]any{}
		for _, f := range n.listMapKeys {
			if v, ok := item[f]; ok {
				key[f] = v
			}
		}
		keys[i] = key
	}
	var errs validation.ErrorList
	for _, i := range nonUniqueItems(keys) {
		bad := keys[i]
		if single {
			if _, none := bad.(unspecifiedKey); none {
				bad = map[string]any{}
			} else {
				bad = map[string]any{n.listMapKeys[0]: bad}
			}
		}
		errs = append(errs, validation.Duplicate(p.Index(i), bad))
	}
	return errs
}

// nonUniqueItems returns the index of the second occurrence of every value that
// occurs more than once. Objects and arrays compare by their JSON encoding, scalars
// by Go equality (so 1 and 1.0 differ).
func nonUniqueItems(arr []any) []int {
	if len(arr) <= 1 {
		return nil
	}
	seenScalars := make(map[any]int, len(arr))
	seenCompounds := make(map[string]int, len(arr))
	var dups []int
	for i, x := range arr {
		var times int
		switch x.(type) {
		case map[string]any, []any:
			b, _ := json.Marshal(x)
			times = seenCompounds[string(b)]
			seenCompounds[string(b)] = times + 1
		default:
			times = seenScalars[x]
			seenScalars[x] = times + 1
		}
		if times == 1 {
			dups = append(dups, i)
		}
	}
	return dups
}

// MalformedEmbedded returns the first embedded resource below the root of obj (in
// sorted key order) whose apiVersion or kind is not a string or whose metadata does
// not decode as ObjectMeta, nil when there is none. kube-apiserver's decoder refuses
// such a custom resource with 400 before validating it ("<Kind> in version "v1" cannot
// be handled as a <Kind>: <this error>"); for it Go map order picks among several.
func (s *Schema) MalformedEmbedded(obj map[string]any) *validation.Error {
	if !s.v.root.walkEmbedded {
		return nil
	}
	return malformedEmbedded(nil, obj, s.v.root)
}

func malformedEmbedded(p *validation.Path, x any, n *node) *validation.Error {
	if n == nil || !n.walkEmbedded {
		return nil
	}
	switch x := x.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			if n.embedded && p != nil {
				if err := malformedTypeOrMeta(p, k, x[k]); err != nil {
					return err
				}
			}
			var err *validation.Error
			if prop, ok := n.props[k]; ok {
				err = malformedEmbedded(p.Child(k), x[k], prop)
			} else if n.additional != nil {
				err = malformedEmbedded(p.Key(k), x[k], n.additional)
			}
			if err != nil {
				return err
			}
		}
	case []any:
		for i, v := range x {
			if err := malformedEmbedded(p.Index(i), v, n.items); err != nil {
				return err
			}
		}
	}
	return nil
}

// malformedTypeOrMeta checks one field k of an embedded resource at p.
func malformedTypeOrMeta(p *validation.Path, k string, v any) *validation.Error {
	switch k {
	case "apiVersion", "kind":
		if _, ok := v.(string); !ok {
			return validation.Invalid(p.Child(k), v, "must be a string")
		}
	case "metadata":
		if _, err := embeddedObjectMeta(v); err != nil {
			return validation.Invalid(p.Child(k), v, err.Error())
		}
	}
	return nil
}
