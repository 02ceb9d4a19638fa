package scheme

import (
	"errors"
	"fmt"
	"reflect"
)

// Check reports the registration mistakes that would otherwise surface only when a
// request fails, each naming the kind and the fix (rest.New refuses a scheme that fails
// it):
//
//   - a resource's list kind is not registered in a version that serves the kind, so
//     every list would fail (a resource that serves neither list nor watch, such as
//     kube's create-only bindings, needs none);
//   - a kind's Go type does not have the JSON shape of a Kubernetes object: apiVersion
//     and kind at the top level (TypeMeta embedded with `json:",inline"`) and metadata
//     under "metadata" (ObjectMeta embedded with `json:"metadata,omitempty"`; without
//     the tag, encoding/json lifts name and namespace to the top level and every create
//     fails with "metadata.name: Required value");
//   - a list kind's Go type has no "metadata" (ListMeta) or "items".
//
// Only external versions are checked: the internal (hub) version is never encoded.
func (s *Scheme) Check() error {
	var errs []error
	for _, r := range s.Resources() {
		for _, v := range s.ServedVersions(r) {
			gv := GroupVersion{Group: r.Group, Version: v}
			if err := s.checkKind(gv.WithKind(r.Kind), false); err != nil {
				errs = append(errs, err)
			}
			list := gv.WithKind(r.ListKind)
			if !s.Recognizes(list) && (r.Serves("list") || r.Serves("watch")) {
				errs = append(errs, fmt.Errorf("scheme: resource %s: kind %s is not registered in %s, so lists of %s cannot be served: register a %s type (ListMeta under \"metadata\" and Items []%s under \"items\") in %s",
					r.GroupResource(), r.ListKind, gv, r.Kind, r.ListKind, r.Kind, gv))
				continue
			}
			if err := s.checkKind(list, true); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// checkKind checks the JSON shape of a kind's Go type; schema-only kinds have none.
func (s *Scheme) checkKind(gvk GroupVersionKind, isList bool) error {
	t, ok := s.TypeFor(gvk)
	if !ok {
		return nil
	}
	have := map[string]JSONField{}
	for _, f := range JSONFields(t) {
		have[f.Name] = f
	}
	what := fmt.Sprintf("scheme: kind %s in %s (Go type %s)", gvk.Kind, gvk.GroupVersion(), t)
	if _, ok := have["apiVersion"]; !ok {
		return fmt.Errorf(`%s has no "apiVersion" JSON field: embed scheme.TypeMeta with the tag json:",inline"`, what)
	}
	if _, ok := have["kind"]; !ok {
		return fmt.Errorf(`%s has no "kind" JSON field: embed scheme.TypeMeta with the tag json:",inline"`, what)
	}
	meta, tag := "ObjectMeta", `json:"metadata,omitempty"`
	if isList {
		meta, tag = "ListMeta", `json:"metadata,omitempty"`
	}
	if _, ok := have["metadata"]; !ok {
		if embedsUntagged(t, meta) {
			return fmt.Errorf(`%s embeds %s without a json tag, so encoding/json puts its fields at the top level instead of under "metadata": embed it as scheme.%s %s`, what, meta, meta, "`"+tag+"`")
		}
		return fmt.Errorf(`%s has no "metadata" JSON field: embed scheme.%s with the tag %s`, what, meta, tag)
	}
	if _, ok := have["items"]; isList && !ok {
		return fmt.Errorf(`%s has no "items" JSON field: declare Items with the tag json:"items"`, what)
	}
	return nil
}

// embedsUntagged reports whether struct type t embeds a struct named name without a
// json tag.
func embedsUntagged(t reflect.Type, name string) bool {
	for i := range t.NumField() {
		f := t.Field(i)
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && ft.Name() == name && f.Tag.Get("json") == "" {
			return true
		}
	}
	return false
}
