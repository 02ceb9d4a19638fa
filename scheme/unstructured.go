package scheme

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// Unstructured is an object held as its JSON document: map[string]any whose values are
// string, bool, int64, float64, nil, []any and map[string]any. It serves kinds that have
// no Go type (a schema is enough) and flows through every package like a typed object.
type Unstructured struct {
	Object map[string]any
}

// UnstructuredList is a list of Unstructured objects; Object holds the list's own fields
// (apiVersion, kind, metadata) and Items the members.
type UnstructuredList struct {
	Object map[string]any
	Items  []Unstructured
}

var (
	_ Object     = (*Unstructured)(nil)
	_ ListObject = (*UnstructuredList)(nil)
)

// GetObjectKind returns the object itself: apiVersion and kind live in the map.
func (u *Unstructured) GetObjectKind() ObjectKind { return u }

// GroupVersionKind reads apiVersion and kind from the map.
func (u *Unstructured) GroupVersionKind() GroupVersionKind {
	return FromAPIVersionAndKind(u.GetAPIVersion(), u.GetKind())
}

// SetGroupVersionKind writes apiVersion and kind into the map.
func (u *Unstructured) SetGroupVersionKind(gvk GroupVersionKind) {
	apiVersion, kind := gvk.ToAPIVersionAndKind()
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
}

// GetAPIVersion returns the apiVersion field.
func (u *Unstructured) GetAPIVersion() string { return getString(u.Object, "apiVersion") }

// SetAPIVersion sets the apiVersion field.
func (u *Unstructured) SetAPIVersion(v string) { u.setTop("apiVersion", v) }

// GetKind returns the kind field.
func (u *Unstructured) GetKind() string { return getString(u.Object, "kind") }

// SetKind sets the kind field.
func (u *Unstructured) SetKind(v string) { u.setTop("kind", v) }

func (u *Unstructured) setTop(key, v string) {
	if u.Object == nil {
		u.Object = map[string]any{}
	}
	u.Object[key] = v
}

// MarshalJSON encodes the map.
func (u *Unstructured) MarshalJSON() ([]byte, error) { return json.Marshal(u.Object) }

// UnmarshalJSON decodes a JSON object, with integral numbers as int64 and others as float64.
func (u *Unstructured) UnmarshalJSON(b []byte) error {
	m, err := decodeJSONObject(b)
	if err != nil {
		return err
	}
	u.Object = m
	return nil
}

func (u *Unstructured) meta() map[string]any {
	m, _ := u.Object["metadata"].(map[string]any)
	return m
}

func (u *Unstructured) metaForWrite() map[string]any {
	if u.Object == nil {
		u.Object = map[string]any{}
	}
	m, ok := u.Object["metadata"].(map[string]any)
	if !ok {
		m = map[string]any{}
		u.Object["metadata"] = m
	}
	return m
}

// setMeta sets metadata[key] to v, or removes the key when remove is true.
func (u *Unstructured) setMeta(key string, v any, remove bool) {
	if remove {
		if m := u.meta(); m != nil {
			delete(m, key)
		}
		return
	}
	u.metaForWrite()[key] = v
}

func (u *Unstructured) GetName() string         { return getString(u.meta(), "name") }
func (u *Unstructured) SetName(v string)        { u.setMeta("name", v, v == "") }
func (u *Unstructured) GetGenerateName() string { return getString(u.meta(), "generateName") }
func (u *Unstructured) SetGenerateName(v string) {
	u.setMeta("generateName", v, v == "")
}
func (u *Unstructured) GetNamespace() string  { return getString(u.meta(), "namespace") }
func (u *Unstructured) SetNamespace(v string) { u.setMeta("namespace", v, v == "") }
func (u *Unstructured) GetSelfLink() string   { return getString(u.meta(), "selfLink") }
func (u *Unstructured) SetSelfLink(v string)  { u.setMeta("selfLink", v, v == "") }
func (u *Unstructured) GetUID() UID           { return UID(getString(u.meta(), "uid")) }
func (u *Unstructured) SetUID(v UID)          { u.setMeta("uid", string(v), v == "") }
func (u *Unstructured) GetResourceVersion() string {
	return getString(u.meta(), "resourceVersion")
}
func (u *Unstructured) SetResourceVersion(v string) {
	u.setMeta("resourceVersion", v, v == "")
}
func (u *Unstructured) GetGeneration() int64 {
	n, _ := toInt64(u.meta()["generation"])
	return n
}
func (u *Unstructured) SetGeneration(v int64) { u.setMeta("generation", v, v == 0) }

func (u *Unstructured) GetCreationTimestamp() Time {
	var t Time
	_ = t.UnmarshalText([]byte(getString(u.meta(), "creationTimestamp")))
	return t
}
func (u *Unstructured) SetCreationTimestamp(v Time) {
	b, _ := v.MarshalText()
	u.setMeta("creationTimestamp", string(b), v.IsZero())
}
func (u *Unstructured) GetDeletionTimestamp() *Time {
	s := getString(u.meta(), "deletionTimestamp")
	if s == "" {
		return nil
	}
	var t Time
	if t.UnmarshalText([]byte(s)) != nil {
		return nil
	}
	return &t
}
func (u *Unstructured) SetDeletionTimestamp(v *Time) {
	if v == nil {
		u.setMeta("deletionTimestamp", nil, true)
		return
	}
	b, _ := v.MarshalText()
	u.setMeta("deletionTimestamp", string(b), false)
}
func (u *Unstructured) GetDeletionGracePeriodSeconds() *int64 {
	n, ok := toInt64(u.meta()["deletionGracePeriodSeconds"])
	if !ok {
		return nil
	}
	return &n
}
func (u *Unstructured) SetDeletionGracePeriodSeconds(v *int64) {
	if v == nil {
		u.setMeta("deletionGracePeriodSeconds", nil, true)
		return
	}
	u.setMeta("deletionGracePeriodSeconds", *v, false)
}
func (u *Unstructured) GetLabels() map[string]string { return getStringMap(u.meta(), "labels") }
func (u *Unstructured) SetLabels(v map[string]string) {
	u.setMeta("labels", stringMapToAny(v), len(v) == 0)
}
func (u *Unstructured) GetAnnotations() map[string]string {
	return getStringMap(u.meta(), "annotations")
}
func (u *Unstructured) SetAnnotations(v map[string]string) {
	u.setMeta("annotations", stringMapToAny(v), len(v) == 0)
}
func (u *Unstructured) GetFinalizers() []string { return getStringSlice(u.meta(), "finalizers") }
func (u *Unstructured) SetFinalizers(v []string) {
	out := make([]any, len(v))
	for i, s := range v {
		out[i] = s
	}
	u.setMeta("finalizers", out, len(v) == 0)
}

func (u *Unstructured) GetOwnerReferences() []OwnerReference {
	items, _ := u.meta()["ownerReferences"].([]any)
	if len(items) == 0 {
		return nil
	}
	out := make([]OwnerReference, 0, len(items))
	for _, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			continue
		}
		ref := OwnerReference{
			APIVersion: getString(m, "apiVersion"),
			Kind:       getString(m, "kind"),
			Name:       getString(m, "name"),
			UID:        UID(getString(m, "uid")),
		}
		if b, ok := m["controller"].(bool); ok {
			ref.Controller = &b
		}
		if b, ok := m["blockOwnerDeletion"].(bool); ok {
			ref.BlockOwnerDeletion = &b
		}
		out = append(out, ref)
	}
	return out
}

func (u *Unstructured) SetOwnerReferences(v []OwnerReference) {
	out := make([]any, len(v))
	for i, ref := range v {
		m := map[string]any{
			"apiVersion": ref.APIVersion,
			"kind":       ref.Kind,
			"name":       ref.Name,
			"uid":        string(ref.UID),
		}
		if ref.Controller != nil {
			m["controller"] = *ref.Controller
		}
		if ref.BlockOwnerDeletion != nil {
			m["blockOwnerDeletion"] = *ref.BlockOwnerDeletion
		}
		out[i] = m
	}
	u.setMeta("ownerReferences", out, len(v) == 0)
}

func (u *Unstructured) GetManagedFields() []ManagedFieldsEntry {
	items, _ := u.meta()["managedFields"].([]any)
	if len(items) == 0 {
		return nil
	}
	out := make([]ManagedFieldsEntry, 0, len(items))
	for _, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			continue
		}
		e := ManagedFieldsEntry{
			Manager:     getString(m, "manager"),
			Operation:   ManagedFieldsOperationType(getString(m, "operation")),
			APIVersion:  getString(m, "apiVersion"),
			FieldsType:  getString(m, "fieldsType"),
			Subresource: getString(m, "subresource"),
		}
		if s := getString(m, "time"); s != "" {
			var t Time
			if t.UnmarshalText([]byte(s)) == nil {
				e.Time = &t
			}
		}
		if f, ok := m["fieldsV1"]; ok && f != nil {
			if raw, err := json.Marshal(f); err == nil {
				e.FieldsV1 = &FieldsV1{Raw: raw}
			}
		}
		out = append(out, e)
	}
	return out
}

func (u *Unstructured) SetManagedFields(v []ManagedFieldsEntry) {
	out := make([]any, 0, len(v))
	for _, e := range v {
		m := map[string]any{}
		putNonEmpty(m, "manager", e.Manager)
		putNonEmpty(m, "operation", string(e.Operation))
		putNonEmpty(m, "apiVersion", e.APIVersion)
		if e.Time != nil && !e.Time.IsZero() {
			b, _ := e.Time.MarshalText()
			m["time"] = string(b)
		}
		putNonEmpty(m, "fieldsType", e.FieldsType)
		if e.FieldsV1 != nil && e.FieldsV1.Raw != nil {
			if f, err := DecodeJSONValue(e.FieldsV1.Raw); err == nil {
				m["fieldsV1"] = f
			}
		}
		putNonEmpty(m, "subresource", e.Subresource)
		out = append(out, m)
	}
	u.setMeta("managedFields", out, len(v) == 0)
}

// GetObjectKind returns the list itself: apiVersion and kind live in Object.
func (l *UnstructuredList) GetObjectKind() ObjectKind { return l }

// GroupVersionKind reads apiVersion and kind of the list.
func (l *UnstructuredList) GroupVersionKind() GroupVersionKind {
	return FromAPIVersionAndKind(getString(l.Object, "apiVersion"), getString(l.Object, "kind"))
}

// SetGroupVersionKind writes apiVersion and kind of the list.
func (l *UnstructuredList) SetGroupVersionKind(gvk GroupVersionKind) {
	if l.Object == nil {
		l.Object = map[string]any{}
	}
	l.Object["apiVersion"], l.Object["kind"] = gvk.ToAPIVersionAndKind()
}

func (l *UnstructuredList) listMeta() map[string]any {
	m, _ := l.Object["metadata"].(map[string]any)
	return m
}

func (l *UnstructuredList) setListMeta(key string, v any, remove bool) {
	if remove {
		if m := l.listMeta(); m != nil {
			delete(m, key)
		}
		return
	}
	if l.Object == nil {
		l.Object = map[string]any{}
	}
	m, ok := l.Object["metadata"].(map[string]any)
	if !ok {
		m = map[string]any{}
		l.Object["metadata"] = m
	}
	m[key] = v
}

func (l *UnstructuredList) GetResourceVersion() string {
	return getString(l.listMeta(), "resourceVersion")
}
func (l *UnstructuredList) SetResourceVersion(v string) {
	l.setListMeta("resourceVersion", v, v == "")
}
func (l *UnstructuredList) GetContinue() string  { return getString(l.listMeta(), "continue") }
func (l *UnstructuredList) SetContinue(v string) { l.setListMeta("continue", v, v == "") }
func (l *UnstructuredList) GetSelfLink() string  { return getString(l.listMeta(), "selfLink") }
func (l *UnstructuredList) SetSelfLink(v string) { l.setListMeta("selfLink", v, v == "") }
func (l *UnstructuredList) GetRemainingItemCount() *int64 {
	n, ok := toInt64(l.listMeta()["remainingItemCount"])
	if !ok {
		return nil
	}
	return &n
}
func (l *UnstructuredList) SetRemainingItemCount(v *int64) {
	if v == nil {
		l.setListMeta("remainingItemCount", nil, true)
		return
	}
	l.setListMeta("remainingItemCount", *v, false)
}

// UnstructuredContent returns the list as one document: its own fields with the items'
// maps under "items", as every encoding writes it. The maps are shared, not copied.
func (l *UnstructuredList) UnstructuredContent() map[string]any {
	m := make(map[string]any, len(l.Object)+1)
	for k, v := range l.Object {
		m[k] = v
	}
	items := make([]any, len(l.Items))
	for i := range l.Items {
		items[i] = l.Items[i].Object
	}
	m["items"] = items
	return m
}

// MarshalJSON encodes the list's own fields with the items under "items".
func (l *UnstructuredList) MarshalJSON() ([]byte, error) {
	return json.Marshal(l.UnstructuredContent())
}

// UnmarshalJSON decodes a list document; each member of "items" must be an object.
func (l *UnstructuredList) UnmarshalJSON(b []byte) error {
	m, err := decodeJSONObject(b)
	if err != nil {
		return err
	}
	return l.SetFromMap(m)
}

// SetFromMap fills the list from a decoded list document, moving "items" into Items.
func (l *UnstructuredList) SetFromMap(m map[string]any) error {
	raw, _ := m["items"].([]any)
	if v, ok := m["items"]; ok && v != nil && raw == nil {
		return fmt.Errorf("items: expected an array, got %T", v)
	}
	delete(m, "items")
	l.Object = m
	l.Items = make([]Unstructured, 0, len(raw))
	for i, it := range raw {
		obj, ok := it.(map[string]any)
		if !ok {
			return fmt.Errorf("items[%d]: expected an object, got %T", i, it)
		}
		l.Items = append(l.Items, Unstructured{Object: obj})
	}
	return nil
}

// NestedField returns the value at the path of field names, and whether it was there.
func NestedField(obj map[string]any, fields ...string) (any, bool) {
	var cur any = obj
	for _, f := range fields {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur, ok = m[f]
		if !ok {
			return nil, false
		}
	}
	return cur, true
}

// NestedString returns the string at the path; ok is false if absent or not a string.
func NestedString(obj map[string]any, fields ...string) (string, bool) {
	v, found := NestedField(obj, fields...)
	s, ok := v.(string)
	return s, found && ok
}

// NestedInt64 returns the integer at the path; ok is false if absent or not integral.
func NestedInt64(obj map[string]any, fields ...string) (int64, bool) {
	v, found := NestedField(obj, fields...)
	if !found {
		return 0, false
	}
	return toInt64(v)
}

// NestedMap returns the object at the path; ok is false if absent or not an object.
func NestedMap(obj map[string]any, fields ...string) (map[string]any, bool) {
	v, found := NestedField(obj, fields...)
	m, ok := v.(map[string]any)
	return m, found && ok
}

// NestedSlice returns the array at the path; ok is false if absent or not an array.
func NestedSlice(obj map[string]any, fields ...string) ([]any, bool) {
	v, found := NestedField(obj, fields...)
	s, ok := v.([]any)
	return s, found && ok
}

// SetNestedField sets the value at the path, creating intermediate objects; it fails if a
// value on the way is not an object.
func SetNestedField(obj map[string]any, value any, fields ...string) error {
	m := obj
	for i, f := range fields[:len(fields)-1] {
		next, ok := m[f]
		if !ok || next == nil {
			nm := map[string]any{}
			m[f] = nm
			m = nm
			continue
		}
		nm, ok := next.(map[string]any)
		if !ok {
			return fmt.Errorf("value at %v is %T, not an object", fields[:i+1], next)
		}
		m = nm
	}
	m[fields[len(fields)-1]] = value
	return nil
}

// RemoveNestedField removes the value at the path, if present.
func RemoveNestedField(obj map[string]any, fields ...string) {
	m := obj
	for _, f := range fields[:len(fields)-1] {
		next, ok := m[f].(map[string]any)
		if !ok {
			return
		}
		m = next
	}
	delete(m, fields[len(fields)-1])
}

func getString(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

func getStringMap(m map[string]any, key string) map[string]string {
	src, _ := m[key].(map[string]any)
	if len(src) == 0 {
		return nil
	}
	out := make(map[string]string, len(src))
	for k, v := range src {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}

func getStringSlice(m map[string]any, key string) []string {
	src, _ := m[key].([]any)
	if len(src) == 0 {
		return nil
	}
	out := make([]string, 0, len(src))
	for _, v := range src {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func stringMapToAny(v map[string]string) map[string]any {
	out := make(map[string]any, len(v))
	for k, s := range v {
		out[k] = s
	}
	return out
}

func putNonEmpty(m map[string]any, key, v string) {
	if v != "" {
		m[key] = v
	}
}

// toInt64 accepts the numeric forms an unstructured map may hold.
func toInt64(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case int32:
		return int64(n), true
	case float64:
		if n == math.Trunc(n) && n >= math.MinInt64 && n < math.MaxInt64 {
			return int64(n), true
		}
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	}
	return 0, false
}

// DecodeJSONValue decodes one JSON value into the shapes Unstructured holds:
// map[string]any, []any, string, bool, nil, and numbers as int64 where integral and in
// range, float64 otherwise. A number beyond float64's range is an error, as in
// encoding/json. It is the one such decoder; packages above scheme use it too.
func DecodeJSONValue(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return normalizeNumbers(v)
}

func decodeJSONObject(b []byte) (map[string]any, error) {
	v, err := DecodeJSONValue(b)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("expected a JSON object, got %T", v)
	}
	return m, nil
}

// normalizeNumbers replaces json.Number throughout v with int64 where integral and in
// range and float64 otherwise; a number beyond float64's range is an error.
func normalizeNumbers(v any) (any, error) {
	switch t := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(t), 10, 64); err == nil {
			return i, nil
		}
		f, err := t.Float64()
		if err != nil || math.IsInf(f, 0) {
			return nil, fmt.Errorf("number %s out of range", t)
		}
		return f, nil
	case map[string]any:
		for k, e := range t {
			n, err := normalizeNumbers(e)
			if err != nil {
				return nil, err
			}
			t[k] = n
		}
	case []any:
		for i, e := range t {
			n, err := normalizeNumbers(e)
			if err != nil {
				return nil, err
			}
			t[i] = n
		}
	}
	return v, nil
}
