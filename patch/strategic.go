package patch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/apikit-dev/apikit/scheme/openapi"
)

// The directives of a strategic merge patch.
const (
	directiveMarker        = "$patch"
	retainKeysDirective    = "$retainKeys"
	deleteFromPrimitiveDir = "$deleteFromPrimitiveList/"
	setElementOrderDir     = "$setElementOrder/"
)

// StrategicMerge applies the strategic merge patch p to the JSON document doc, whose
// schema is s (the kind's expanded schema, see SchemaFor). Lists whose schema says
// x-kubernetes-patch-strategy: merge merge by x-kubernetes-patch-merge-key (primitive
// lists as sets); other lists are replaced, as in a JSON merge patch. A patch that is
// not a JSON object, or an unknown $patch directive, is ErrMalformed; a list item
// without its merge key is ErrRejected.
func StrategicMerge(doc, p []byte, s *openapi.Schema) ([]byte, error) {
	var patch map[string]any
	if err := decodeJSON(p, &patch); err != nil {
		return nil, malformed("%s", err.Error())
	}
	var orig map[string]any
	if err := decodeJSON(doc, &orig); err != nil {
		return nil, rejected("%s", err.Error())
	}
	if orig == nil {
		orig = map[string]any{}
	}
	out, err := StrategicMergeMap(orig, patch, s)
	if err != nil {
		return nil, err
	}
	return json.Marshal(out)
}

// decodeJSON decodes JSON keeping numbers exact (json.Number).
func decodeJSON(data []byte, into any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(into); err != nil {
		return err
	}
	if d.More() {
		return fmt.Errorf("invalid JSON: data after the top-level value")
	}
	return nil
}

// StrategicMergeMap is StrategicMerge on decoded JSON: it merges patch into orig (which
// it modifies and returns) by schema s.
func StrategicMergeMap(orig, patch map[string]any, s *openapi.Schema) (map[string]any, error) {
	out, err := mergeMap(orig, patch, s)
	if err != nil {
		return nil, err
	}
	if out == nil { // $patch: delete at the top level empties the object
		out = map[string]any{}
	}
	return out, nil
}

// property is the schema of key inside object schema s (nil when unknown).
func property(s *openapi.Schema, key string) *openapi.Schema {
	if s == nil {
		return nil
	}
	if p, ok := s.Properties[key]; ok {
		return p
	}
	return s.AdditionalProperties
}

// mergeMap merges patch into orig; it returns nil when the patch deletes the map.
func mergeMap(orig, patch map[string]any, s *openapi.Schema) (map[string]any, error) {
	if d, ok := patch[directiveMarker]; ok {
		switch d {
		case "replace":
			return stripDirectives(patch)
		case "delete":
			return nil, nil
		case "merge":
		default:
			return nil, malformed("unknown patch type: %v", d)
		}
	}
	if orig == nil {
		orig = map[string]any{}
	}
	if rk, ok := patch[retainKeysDirective]; ok {
		keys, ok := rk.([]any)
		if !ok {
			return nil, malformed("invalid patch: $retainKeys must be a list of strings, got %T", rk)
		}
		keep := make(map[string]bool, len(keys))
		for _, k := range keys {
			ks, ok := k.(string)
			if !ok {
				return nil, malformed("invalid patch: $retainKeys must be a list of strings, got %v", k)
			}
			keep[ks] = true
		}
		for k := range patch {
			if !strings.HasPrefix(k, "$") && !keep[k] && patch[k] != nil {
				return nil, rejected("The $retainKeys directive does not list the patched field %q", k)
			}
		}
		for k := range orig {
			if !keep[k] {
				delete(orig, k)
			}
		}
	}
	for key, pv := range patch {
		switch {
		case key == directiveMarker || key == retainKeysDirective || strings.HasPrefix(key, setElementOrderDir):
			continue
		case strings.HasPrefix(key, deleteFromPrimitiveDir):
			field := strings.TrimPrefix(key, deleteFromPrimitiveDir)
			del, ok := pv.([]any)
			if !ok {
				return nil, malformed("invalid patch: %s must be a list, got %T", key, pv)
			}
			if cur, ok := orig[field].([]any); ok {
				orig[field] = slices.DeleteFunc(cur, func(v any) bool {
					return slices.ContainsFunc(del, func(d any) bool { return jsonEqual(v, d) })
				})
			}
			continue
		}
		if pv == nil {
			delete(orig, key)
			continue
		}
		fs := property(s, key)
		switch p := pv.(type) {
		case map[string]any:
			ov, _ := orig[key].(map[string]any)
			m, err := mergeMap(ov, p, fs)
			if err != nil {
				return nil, err
			}
			if m == nil {
				delete(orig, key)
			} else {
				orig[key] = m
			}
		case []any:
			ov, _ := orig[key].([]any)
			l, err := mergeList(ov, p, fs)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", key, err)
			}
			orig[key] = l
		default:
			orig[key] = pv
		}
	}
	for key, pv := range patch {
		if !strings.HasPrefix(key, setElementOrderDir) {
			continue
		}
		field := strings.TrimPrefix(key, setElementOrderDir)
		order, ok := pv.([]any)
		if !ok {
			return nil, malformed("invalid patch: %s must be a list, got %T", key, pv)
		}
		if cur, ok := orig[field].([]any); ok {
			orig[field] = reorder(cur, order, mergeKeyOf(property(s, field)))
		}
	}
	return orig, nil
}

// mergeKeyOf returns the merge key of a list schema that merges, and whether it merges.
func mergeKeyOf(s *openapi.Schema) string {
	if s == nil {
		return ""
	}
	return s.PatchMergeKey
}

func mergesList(s *openapi.Schema) bool {
	return s != nil && slices.Contains(strings.Split(s.PatchStrategy, ","), "merge")
}

// mergeList merges a patch list into orig by the list's schema.
func mergeList(orig, patch []any, s *openapi.Schema) ([]any, error) {
	if !mergesList(s) {
		return stripList(patch)
	}
	// A {"$patch": "replace"} item replaces the whole list with the other items.
	for _, it := range patch {
		if m, ok := it.(map[string]any); ok && len(m) == 1 && m[directiveMarker] == "replace" {
			rest := slices.DeleteFunc(slices.Clone(patch), func(x any) bool {
				mm, ok := x.(map[string]any)
				return ok && len(mm) == 1 && mm[directiveMarker] != nil
			})
			return stripList(rest)
		}
	}
	key := s.PatchMergeKey
	var items *openapi.Schema
	if s != nil {
		items = s.Items
	}
	out := slices.Clone(orig)
	for _, it := range patch {
		pm, isMap := it.(map[string]any)
		if !isMap {
			if key != "" {
				return nil, rejected("the patch list item %v is not an object with the merge key %q", it, key)
			}
			if !slices.ContainsFunc(out, func(v any) bool { return jsonEqual(v, it) }) {
				out = append(out, it)
			}
			continue
		}
		if key == "" {
			if d, ok := pm[directiveMarker]; ok && d == "delete" {
				continue
			}
			m, err := stripDirectives(pm)
			if err != nil {
				return nil, err
			}
			out = append(out, m)
			continue
		}
		kv, ok := pm[key]
		if !ok {
			return nil, rejected("map: %v does not contain declared merge key: %s", displayMap(pm), key)
		}
		idx := slices.IndexFunc(out, func(v any) bool {
			om, ok := v.(map[string]any)
			return ok && jsonEqual(om[key], kv)
		})
		if d, ok := pm[directiveMarker]; ok && d == "delete" {
			if idx >= 0 {
				out = slices.Delete(out, idx, idx+1)
			}
			continue
		}
		var base map[string]any
		if idx >= 0 {
			base, _ = out[idx].(map[string]any)
		}
		m, err := mergeMap(base, pm, items)
		if err != nil {
			return nil, err
		}
		switch {
		case m == nil && idx >= 0:
			out = slices.Delete(out, idx, idx+1)
		case m == nil:
		case idx >= 0:
			out[idx] = m
		default:
			out = append(out, m)
		}
	}
	return out, nil
}

// reorder sorts list by order (merge-key values, or the values of a primitive list);
// items order does not name keep their relative order, after the named ones.
func reorder(list, order []any, key string) []any {
	pos := func(v any) int {
		if key != "" {
			m, ok := v.(map[string]any)
			if !ok {
				return len(order)
			}
			v = m[key]
		}
		if i := slices.IndexFunc(order, func(o any) bool {
			if key != "" {
				if om, ok := o.(map[string]any); ok {
					o = om[key]
				}
			}
			return jsonEqual(o, v)
		}); i >= 0 {
			return i
		}
		return len(order)
	}
	out := slices.Clone(list)
	slices.SortStableFunc(out, func(a, b any) int { return pos(a) - pos(b) })
	return out
}

// stripDirectives returns a copy of m without $-directives, recursively.
func stripDirectives(m map[string]any) (map[string]any, error) {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if strings.HasPrefix(k, "$") {
			continue
		}
		switch x := v.(type) {
		case map[string]any:
			c, err := stripDirectives(x)
			if err != nil {
				return nil, err
			}
			out[k] = c
		case []any:
			c, err := stripList(x)
			if err != nil {
				return nil, err
			}
			out[k] = c
		default:
			out[k] = v
		}
	}
	return out, nil
}

func stripList(l []any) ([]any, error) {
	out := make([]any, 0, len(l))
	for _, v := range l {
		if m, ok := v.(map[string]any); ok {
			if m[directiveMarker] == "delete" {
				continue
			}
			c, err := stripDirectives(m)
			if err != nil {
				return nil, err
			}
			out = append(out, c)
			continue
		}
		out = append(out, v)
	}
	return out, nil
}

// jsonEqual compares decoded JSON values (json.Number by its text).
func jsonEqual(a, b any) bool {
	if an, ok := a.(json.Number); ok {
		if bn, ok := b.(json.Number); ok {
			return an == bn || numberEqual(an, bn)
		}
	}
	return reflect.DeepEqual(a, b)
}

func numberEqual(a, b json.Number) bool {
	af, err1 := a.Float64()
	bf, err2 := b.Float64()
	return err1 == nil && err2 == nil && af == bf
}

func displayMap(m map[string]any) string {
	b, _ := json.Marshal(m)
	return "map" + strings.ReplaceAll(string(b), "\"", "")
}
