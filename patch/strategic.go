package patch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
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

// The messages kube-apiserver answers 400 for (k8s.io/apimachinery's mergepatch errors).
const (
	msgBadRetainKeys      = "invalid patch format of retainKeys"
	msgBadSetElementOrder = "invalid patch format of setElementOrder list"
	msgNoListOfLists      = "lists of lists are not supported"
)

// StrategicMerge applies the strategic merge patch p to the JSON document doc, whose
// schema is s (the kind's expanded schema, see SchemaFor). It follows
// k8s.io/apimachinery's StrategicMergeMapPatch, the merge kube-apiserver runs, down to
// list order and error messages: lists whose schema says x-kubernetes-patch-strategy:
// merge merge by x-kubernetes-patch-merge-key (primitive lists as sets); patch items
// come in the patch's order (or $setElementOrder's), live-only items keep their place
// among them; other lists are replaced, as in a JSON merge patch. A patch that is not
// a JSON object, or an unknown $patch directive, is ErrMalformed; a list item without
// its merge key is ErrRejected.
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
	if patch == nil {
		patch = map[string]any{}
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

// StrategicMergeMap is StrategicMerge on decoded JSON: it merges patch into orig (both of
// which it may modify) by schema s.
func StrategicMergeMap(orig, patch map[string]any, s *openapi.Schema) (map[string]any, error) {
	clipLists(orig)
	return mergeMap(orig, patch, s)
}

// clipLists sets every list's capacity in v to its length, as kube-apiserver's live
// object map has them: its merge appends to live lists and reads them afterwards, so
// spare capacity would change the order of a result.
func clipLists(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if l, ok := e.([]any); ok {
				x[k] = slices.Clip(l)
			}
			clipLists(x[k])
		}
	case []any:
		for i, e := range x {
			if l, ok := e.([]any); ok {
				x[i] = slices.Clip(l)
			}
			clipLists(x[i])
		}
	}
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

// strategyOf is the patch strategy of a field without retainKeys: "merge", "replace"
// or "".
func strategyOf(s *openapi.Schema) string {
	if s == nil {
		return ""
	}
	for _, st := range strings.Split(s.PatchStrategy, ",") {
		if st != "retainKeys" {
			return st
		}
	}
	return ""
}

func mergeKeyOf(s *openapi.Schema) string {
	if s == nil {
		return ""
	}
	return s.PatchMergeKey
}

func itemsOf(s *openapi.Schema) *openapi.Schema {
	if s == nil {
		return nil
	}
	return s.Items
}

// mergeMap merges patch into orig (modifying both). A map-level $patch: replace
// yields the patch itself, $patch: delete an empty map.
func mergeMap(orig, patch map[string]any, s *openapi.Schema) (map[string]any, error) {
	if d, ok := patch[directiveMarker]; ok {
		switch d {
		case "replace":
			delete(patch, directiveMarker)
			return patch, nil
		case "delete":
			return map[string]any{}, nil
		}
		return nil, malformed("unknown patch type: %v", d)
	}
	if orig == nil {
		orig = map[string]any{}
	}
	if err := retainKeys(orig, patch); err != nil {
		return nil, err
	}
	if err := orderLists(orig, patch, s); err != nil {
		return nil, err
	}
	for key, pv := range patch {
		field, isDeleteList := strings.CutPrefix(key, deleteFromPrimitiveDir)
		if pv == nil {
			delete(orig, field)
			continue
		}
		ov, ok := orig[field]
		if !ok || kubeType(ov) != kubeType(pv) {
			if !isDeleteList {
				replaceValue(orig, field, pv)
			}
			continue
		}
		fs := property(s, field)
		var err error
		switch o := ov.(type) {
		case map[string]any:
			if strategyOf(fs) == "replace" {
				orig[field] = pv
				break
			}
			orig[field], err = mergeMap(o, pv.(map[string]any), fs)
		case []any:
			if strategyOf(fs) != "merge" && !isDeleteList {
				orig[field] = pv
				break
			}
			orig[field], err = mergeList(o, pv.([]any), itemsOf(fs), mergeKeyOf(fs), isDeleteList)
		default:
			orig[field] = pv
		}
		if err != nil {
			return nil, err
		}
	}
	return orig, nil
}

// replaceValue sets orig[key] to a patch value that has nothing to merge with: its
// null fields and directive-carrying maps dropped (a value that is itself a
// directive map removes the key).
func replaceValue(orig map[string]any, key string, pv any) {
	dropNulls(pv)
	if v, keep := withoutDirectiveMaps(pv); keep {
		orig[key] = v
	} else {
		delete(orig, key)
	}
}

// dropNulls removes null-valued keys from every map in v.
func dropNulls(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil {
				delete(x, k)
			} else {
				dropNulls(e)
			}
		}
	case []any:
		for _, e := range x {
			dropNulls(e)
		}
	}
}

// withoutDirectiveMaps drops every map with a $patch key from v, recursively; it
// reports false when v itself is one.
func withoutDirectiveMaps(v any) (any, bool) {
	switch x := v.(type) {
	case map[string]any:
		if _, ok := x[directiveMarker]; ok {
			return nil, false
		}
		for k, e := range x {
			if c, keep := withoutDirectiveMaps(e); keep {
				x[k] = c
			} else {
				delete(x, k)
			}
		}
		return x, true
	case []any:
		out := []any{}
		for _, e := range x {
			if c, keep := withoutDirectiveMaps(e); keep {
				out = append(out, c)
			}
		}
		return out, true
	}
	return v, true
}

// retainKeys applies a $retainKeys directive: orig keeps only the listed keys, and
// every non-null patched field must be listed.
func retainKeys(orig, patch map[string]any) error {
	rk, ok := patch[retainKeysDirective]
	if !ok {
		return nil
	}
	delete(patch, retainKeysDirective)
	keys, ok := rk.([]any)
	if !ok {
		return malformed(msgBadRetainKeys)
	}
	listed := func(k string) bool { return slices.Contains(keys, any(k)) }
	for k, v := range patch {
		if v == nil || strings.HasPrefix(k, deleteFromPrimitiveDir) || strings.HasPrefix(k, setElementOrderDir) {
			continue
		}
		if !listed(k) {
			return rejected(msgBadRetainKeys)
		}
	}
	for k := range orig {
		if !listed(k) {
			delete(orig, k)
		}
	}
	return nil
}

// orderLists merges each list that has a $setElementOrder directive, and orders it:
// the listed items in the directive's order, the live-only items where they were.
// Both the directive and the list leave patch.
func orderLists(orig, patch map[string]any, s *openapi.Schema) error {
	for key, pv := range patch {
		field, ok := strings.CutPrefix(key, setElementOrderDir)
		if !ok {
			continue
		}
		delete(patch, key)
		order, ok := pv.([]any)
		if !ok {
			return badArgType([]any(nil), pv)
		}
		var ol, pl []any
		ov, inOrig := orig[field]
		if inOrig {
			if ol, ok = ov.([]any); !ok {
				return badArgType([]any(nil), ov)
			}
		}
		plv, inPatch := patch[field]
		if inPatch {
			if pl, ok = plv.([]any); !ok {
				return badArgType([]any(nil), plv)
			}
		}
		fs := property(s, field)
		key := mergeKeyOf(fs)
		if err := checkOrder(pl, order, key); err != nil {
			return err
		}
		var merged []any
		switch {
		case inOrig && !inPatch:
			merged = ol
		case !inOrig && inPatch:
			v, _ := withoutDirectiveMaps(pl)
			merged = v.([]any)
		case inOrig && inPatch:
			var err error
			if strategyOf(fs) == "merge" {
				merged, err = mergeList(ol, pl, itemsOf(fs), key, false)
			} else {
				merged = pl
			}
			if err != nil {
				return err
			}
		default:
			continue
		}
		listed, rest, err := partition(merged, order, key)
		if err != nil {
			return err
		}
		isMap, err := elementKind(ol, pl)
		if err != nil {
			return err
		}
		out, err := orderElements(listed, rest, order, ol, key, isMap)
		if err != nil {
			return err
		}
		orig[field] = out
		delete(patch, field)
	}
	return nil
}

// checkOrder rejects a $setElementOrder list that does not hold the patch list's
// items (deletions aside) in the same relative order.
func checkOrder(pl, order []any, key string) error {
	if len(order) == 0 || len(pl) == 0 {
		return nil
	}
	items := pl
	if key != "" {
		var err error
		if items, _, err = splitDeletions(pl); err != nil {
			return err
		}
	}
	pi, oi := 0, 0
	for pi < len(items) && oi < len(order) {
		if m, ok := items[pi].(map[string]any); ok && m[directiveMarker] != nil {
			pi++
			continue
		}
		eq, err := sameKey(items[pi], order[oi], key)
		if err != nil {
			return err
		}
		if eq {
			pi++
		}
		oi++
	}
	if pi < len(items) && oi >= len(order) {
		return rejected("The order in patch list:\n%v\n doesn't match %s list:\n%v\n", goFormat(pl), strings.TrimSuffix(setElementOrderDir, "/"), goFormat(order))
	}
	return nil
}

// sameKey compares two list items by their merge key (by value without one).
func sameKey(a, b any, key string) (bool, error) {
	if key == "" {
		return scalarEqual(a, b), nil
	}
	am, ok := a.(map[string]any)
	if !ok {
		return false, badArgType(map[string]any(nil), a)
	}
	bm, ok := b.(map[string]any)
	if !ok {
		return false, badArgType(map[string]any(nil), b)
	}
	av, ok := am[key]
	if !ok {
		return false, noMergeKey(am, key)
	}
	bv, ok := bm[key]
	if !ok {
		return false, noMergeKey(bm, key)
	}
	return scalarEqual(av, bv), nil
}

// mergeList merges a patch list into orig for a list with the merge strategy (or a
// $deleteFromPrimitiveList list), then orders the result.
func mergeList(orig, patch []any, items *openapi.Schema, key string, isDeleteList bool) ([]any, error) {
	if len(orig) == 0 && len(patch) == 0 {
		return orig, nil
	}
	isMap, err := elementKind(orig, patch)
	if err != nil {
		return nil, err
	}
	var merged []any
	if !isMap {
		if isDeleteList {
			// A new list with the live list's length as capacity, as kube makes it (a
			// later union in the same patch appends into it).
			kept := make([]any, 0, len(orig))
			for _, v := range orig {
				if !slices.ContainsFunc(patch, func(d any) bool { return scalarEqual(v, d) }) {
					kept = append(kept, v)
				}
			}
			return kept, nil
		}
		// Like kube, this appends to (and dedupes in) the live list's spare capacity,
		// which the caller's list may share: that decides the order below.
		merged = dedupe(append(orig, patch...))
	} else {
		if key == "" {
			return nil, rejected("cannot merge lists without merge key for %s", goTypeName(items))
		}
		if orig, patch, err = applyListDirectives(orig, patch, key); err != nil {
			return nil, err
		}
		if merged, err = mergeItems(orig, patch, items, key); err != nil {
			return nil, err
		}
	}
	listed, rest, err := partition(merged, patch, key)
	if err != nil {
		return nil, err
	}
	return orderElements(listed, rest, patch, orig, key, isMap)
}

// applyListDirectives handles the $patch items of a list of maps: delete removes the
// live items with that key, replace makes the other patch items the whole list. It
// returns the live list and the patch without those items.
func applyListDirectives(orig, patch []any, key string) ([]any, []any, error) {
	plain := []any{}
	replace := false
	for _, v := range patch {
		m := v.(map[string]any)
		d, ok := m[directiveMarker]
		if !ok {
			plain = append(plain, v)
			continue
		}
		switch d {
		case "delete":
			kv, ok := m[key]
			if !ok {
				return nil, nil, noMergeKey(m, key)
			}
			for {
				i := slices.IndexFunc(orig, func(o any) bool {
					om, ok := o.(map[string]any)
					ov, has := om[key]
					return ok && has && scalarEqual(ov, kv)
				})
				if i < 0 {
					break
				}
				orig = append(orig[:i], orig[i+1:]...)
			}
		case "replace":
			replace = true
		case "merge":
			return nil, nil, rejected("merging lists cannot yet be specified in the patch")
		default:
			return nil, nil, malformed("unknown patch type: %v", d)
		}
	}
	if replace {
		return plain, nil, nil
	}
	return orig, plain, nil
}

// mergeItems merges each patch item into the live item with its merge key, or appends
// it.
func mergeItems(orig, patch []any, items *openapi.Schema, key string) ([]any, error) {
	for _, v := range patch {
		m := v.(map[string]any)
		kv, ok := m[key]
		if !ok {
			return nil, noMergeKey(m, key)
		}
		i, err := indexByKey(orig, key, kv)
		if err != nil {
			return nil, err
		}
		if i < 0 {
			orig = append(orig, v)
			continue
		}
		if orig[i], err = mergeMap(orig[i].(map[string]any), m, items); err != nil {
			return nil, err
		}
	}
	return orig, nil
}

func indexByKey(list []any, key string, kv any) (int, error) {
	for i, v := range list {
		m, ok := v.(map[string]any)
		if !ok {
			return 0, rejected("value for key %v is not a map", i)
		}
		if mv, ok := m[key]; ok && scalarEqual(mv, kv) {
			return i, nil
		}
	}
	return -1, nil
}

// elementKind reports whether the items of the lists are maps; the items must all be
// of one JSON type, and not lists.
func elementKind(lists ...[]any) (bool, error) {
	var first string
	for _, l := range lists {
		for _, v := range l {
			t := kubeType(v)
			switch {
			case first == "" && t == "list":
				return false, rejected(msgNoListOfLists)
			case first == "":
				first = t
			case t != first:
				return false, rejected("list element types are not identical: %v", goFormat(lists))
			}
		}
	}
	if first == "" {
		return false, rejected("no elements in any of the given slices")
	}
	return first == "map", nil
}

// dedupe removes repeated scalars the way kube does, moving the last item into each
// hole (so the result is in kube's order before it is sorted).
func dedupe(s []any) []any {
	last := len(s) - 1
	for i := 0; i < last; i++ {
		for j := i + 1; j <= last; j++ {
			if scalarEqual(s[i], s[j]) {
				s[j] = s[last]
				s = s[:last]
				last--
				j--
			}
		}
	}
	return s
}

// partition splits list into the items present in by (by merge key, or by value) and
// the others.
func partition(list, by []any, key string) (in, out []any, err error) {
	in, out = make([]any, 0, len(list)), make([]any, 0, len(list))
	for _, v := range list {
		var found bool
		if key == "" {
			found = slices.ContainsFunc(by, func(b any) bool { return scalarEqual(b, v) })
		} else {
			m, ok := v.(map[string]any)
			if !ok {
				return nil, nil, badArgType(map[string]any(nil), v)
			}
			kv, ok := m[key]
			if !ok {
				return nil, nil, noMergeKey(m, key)
			}
			i, err := indexByKey(by, key, kv)
			if err != nil {
				return nil, nil, err
			}
			found = i >= 0
		}
		if found {
			in = append(in, v)
		} else {
			out = append(out, v)
		}
	}
	return in, out, nil
}

// orderElements sorts the patch items by patchOrder and the live-only items by
// liveOrder, then interleaves them: each live-only item goes before the first patch
// item it preceded in the live list.
func orderElements(patchItems, liveOnly, patchOrder, liveOrder []any, key string, isMap bool) ([]any, error) {
	patchItems, err := sortByOrder(patchItems, patchOrder, key, isMap)
	if err != nil {
		return nil, err
	}
	if liveOnly, err = sortByOrder(liveOnly, liveOrder, key, isMap); err != nil {
		return nil, err
	}
	out := make([]any, 0, len(patchItems)+len(liveOnly))
	i, j := 0, 0
	for i < len(liveOnly) || j < len(patchItems) {
		switch {
		case j >= len(patchItems):
			out = append(out, liveOnly[i])
			i++
		case i >= len(liveOnly):
			out = append(out, patchItems[j])
			j++
		default:
			li, ri := position(liveOrder, liveOnly[i], key, isMap), position(liveOrder, patchItems[j], key, isMap)
			if li >= 0 && ri >= 0 && li < ri {
				out = append(out, liveOnly[i])
				i++
			} else {
				out = append(out, patchItems[j])
				j++
			}
		}
	}
	return out, nil
}

// sortByOrder sorts list by the positions of its items in order, with kube's
// comparison (an item order does not name sorts before anything), deletion items last.
func sortByOrder(list, order []any, key string, isMap bool) ([]any, error) {
	var deletions []any
	if isMap {
		for _, l := range [][]any{list, order} {
			for _, v := range l {
				m, ok := v.(map[string]any)
				if !ok {
					return nil, badArgType(map[string]any(nil), v)
				}
				if _, ok := m[key]; !ok {
					return nil, noMergeKey(m, key)
				}
			}
		}
		var err error
		if list, deletions, err = splitDeletions(list); err != nil {
			return nil, err
		}
	}
	sort.SliceStable(list, func(i, j int) bool {
		if pi := position(order, list[i], key, isMap); pi >= 0 {
			if pj := position(order, list[j], key, isMap); pj >= 0 {
				return pi < pj
			}
		}
		return true
	})
	return append(list, deletions...), nil
}

// splitDeletions separates the $patch: delete items of a list of maps.
func splitDeletions(list []any) (keep, deletions []any, err error) {
	for _, v := range list {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, nil, badArgType(map[string]any(nil), v)
		}
		if m[directiveMarker] == "delete" {
			deletions = append(deletions, v)
		} else {
			keep = append(keep, v)
		}
	}
	return keep, deletions, nil
}

// position is the index in list of v (by merge key for maps), or -1.
func position(list []any, v any, key string, isMap bool) int {
	val := func(x any) any {
		if !isMap {
			return x
		}
		m, _ := x.(map[string]any)
		return m[key]
	}
	want := val(v)
	return slices.IndexFunc(list, func(x any) bool { return scalarEqual(val(x), want) })
}

// kubeType names the Go type k8s.io/apimachinery decodes a JSON value to, which its
// merge compares: integers (int64) and other numbers (float64) differ.
func kubeType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "map"
	case []any:
		return "list"
	case json.Number:
		if _, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return "int"
		}
		return "float"
	}
	return fmt.Sprintf("%T", v)
}

// scalarEqual is Go's == on the values kube decodes: numbers by type and value, maps
// and lists never equal.
func scalarEqual(a, b any) bool {
	an, aok := a.(json.Number)
	bn, bok := b.(json.Number)
	if aok || bok {
		if !aok || !bok || kubeType(a) != kubeType(b) {
			return false
		}
		if kubeType(a) == "int" {
			return an == bn || numberEqual(an, bn)
		}
		return numberEqual(an, bn)
	}
	switch a.(type) {
	case map[string]any, []any:
		return false
	}
	return a == b
}

func numberEqual(a, b json.Number) bool {
	af, err1 := a.Float64()
	bf, err2 := b.Float64()
	return err1 == nil && err2 == nil && af == bf
}

// goFormat renders decoded JSON as Go's %v prints kube's decoded values: maps as
// map[k:v] with sorted keys, lists as [a b], nulls as <nil>.
func goFormat(v any) string {
	switch x := v.(type) {
	case nil:
		return "<nil>"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ":" + goFormat(x[k])
		}
		return "map[" + strings.Join(parts, " ") + "]"
	case []any:
		return formatList(x)
	case [][]any:
		parts := make([]string, len(x))
		for i, l := range x {
			parts[i] = formatList(l)
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	return fmt.Sprint(v)
}

func formatList(l []any) string {
	parts := make([]string, len(l))
	for i, e := range l {
		parts[i] = goFormat(e)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// goTypeName is the Go type name kube's struct-driven schema gives list items of
// schema s, as far as the OpenAPI schema tells it.
func goTypeName(s *openapi.Schema) string {
	if s == nil {
		return ""
	}
	switch s.Type {
	case "string":
		return "string"
	case "boolean":
		return "bool"
	case "integer":
		if s.Format != "" {
			return s.Format
		}
		return "int64"
	case "number":
		return "float64"
	}
	return "map[string]interface {}"
}

func noMergeKey(m map[string]any, key string) error {
	return rejected("map: %s does not contain declared merge key: %s", goFormat(m), key)
}

// badArgType is kube's message for a value of the wrong JSON type where a map or a
// list must be.
func badArgType(want, got any) error {
	return rejected("expected a %s, but received a %s", reflect.TypeOf(want), kubeTypeName(got))
}

func kubeTypeName(v any) string {
	switch kubeType(v) {
	case "null":
		return "%!s(<nil>)"
	case "int":
		return "int64"
	case "float":
		return "float64"
	}
	return reflect.TypeOf(v).String()
}
