package structural

import (
	"sort"
	"strconv"

	"github.com/apikit-dev/apikit/scheme/openapi"
)

// prune removes what kube-apiserver's decoder removes from a custom resource before
// anything else sees it, in its order:
//
//   - the fields the schema does not specify (apiextensions' pruning with the object as
//     a resource root: apiVersion, kind and metadata stay, here and in embedded
//     resources, for ObjectMeta to judge; x-kubernetes-preserve-unknown-fields keeps
//     unknown fields but prunes below the properties and additionalProperties it
//     specifies);
//   - then null values of fields that are neither nullable nor defaulted (kube's
//     PruneNonNullableNullsWithoutDefaults), which are not reported.
//
// It returns the paths of the pruned fields as kube-apiserver reports them for
// fieldValidation=Strict|Warn (`unknown field "spec.foo"`), sorted as kube sorts them.
func prune(root *openapi.Schema, obj map[string]any) []string {
	p := pruner{track: true}
	p.prune(obj, root, true)
	sort.Strings(p.unknown)
	dropNonNullableNulls(obj, root)
	return p.unknown
}

// pruner walks an object beside its schema. path is the rendered path of the current
// value ("spec.items[0]"), kept as a byte buffer and cut back after each child.
type pruner struct {
	track   bool
	path    []byte
	depth   int // how many keys and indexes path holds ("" is a key too)
	unknown []string
}

// mark is where the path stood before entering a child.
type mark struct{ n, depth int }

func (p *pruner) leave(m mark) { p.path, p.depth = p.path[:m.n], m.depth }

// pruneValue removes unknown fields from a value of s without reporting them:
// apiextensions' Prune(x, s, isResourceRoot).
func pruneValue(x any, s *openapi.Schema, isResourceRoot bool) {
	var p pruner
	p.prune(x, s, isResourceRoot)
}

// prune prunes x against s; resource says x is a resource (the root, or an embedded
// resource), whose apiVersion, kind and metadata stay as they are.
func (p *pruner) prune(x any, s *openapi.Schema, resource bool) {
	if s != nil && s.PreserveUnknownFields {
		p.keepUnknown(x, s, resource)
		return
	}
	switch x := x.(type) {
	case map[string]any:
		if s == nil {
			for k := range x {
				p.record(k)
				delete(x, k)
			}
			return
		}
		p.fields(x, s, resource, false)
	case []any:
		var items *openapi.Schema
		if s != nil {
			items = s.Items
		}
		for i, v := range x {
			m := p.enterIndex(i)
			p.prune(v, items, items != nil && items.EmbeddedResource)
			p.leave(m)
		}
	}
}

// keepUnknown walks a value that preserves unknown fields: what the schema specifies
// is pruned as usual, the rest stays.
func (p *pruner) keepUnknown(x any, s *openapi.Schema, resource bool) {
	if s == nil {
		return
	}
	switch x := x.(type) {
	case map[string]any:
		p.fields(x, s, resource, true)
	case []any:
		for i, v := range x {
			m := p.enterIndex(i)
			p.keepUnknown(v, s.Items, s.Items != nil && s.Items.EmbeddedResource)
			p.leave(m)
		}
	}
}

// fields prunes the fields of an object of s (not nil): a field the schema specifies
// is pruned against its schema; any other is removed and reported unless keepUnknown.
// A resource's apiVersion, kind and metadata are left alone.
func (p *pruner) fields(x map[string]any, s *openapi.Schema, resource, keepUnknown bool) {
	for k, v := range x {
		if resource && metaFields[k] {
			continue
		}
		if child := childSchema(s, k); child != nil {
			m := p.enterKey(k)
			p.prune(v, child, child.EmbeddedResource)
			p.leave(m)
			continue
		}
		if keepUnknown {
			continue
		}
		if !metaFields[k] || p.depth > 0 {
			p.record(k)
		}
		delete(x, k)
	}
}

// childSchema is the schema of field k of an object of s: its property, or else its
// additionalProperties.
func childSchema(s *openapi.Schema, k string) *openapi.Schema {
	if s == nil {
		return nil
	}
	if prop, ok := s.Properties[k]; ok {
		return prop
	}
	return s.AdditionalProperties
}

func (p *pruner) enterKey(k string) mark {
	m := mark{len(p.path), p.depth}
	if p.track {
		if p.depth > 0 {
			p.path = append(p.path, '.')
		}
		p.path = append(p.path, k...)
		p.depth++
	}
	return m
}

func (p *pruner) enterIndex(i int) mark {
	m := mark{len(p.path), p.depth}
	if p.track {
		p.path = append(p.path, '[')
		p.path = strconv.AppendInt(p.path, int64(i), 10)
		p.path = append(p.path, ']')
		p.depth++
	}
	return m
}

func (p *pruner) record(k string) {
	if !p.track {
		return
	}
	m := p.enterKey(k)
	p.unknown = append(p.unknown, string(p.path))
	p.leave(m)
}

// dropNonNullableNulls removes the null values of fields that are not nullable and
// have no default; a null with a default is left for defaulting to replace.
func dropNonNullableNulls(x any, s *openapi.Schema) {
	switch x := x.(type) {
	case map[string]any:
		for k, v := range x {
			child := childSchema(s, k)
			if v == nil && child != nil && !child.Nullable && child.Default == nil {
				delete(x, k)
				continue
			}
			dropNonNullableNulls(v, child)
		}
	case []any:
		var items *openapi.Schema
		if s != nil {
			items = s.Items
		}
		for _, v := range x {
			dropNonNullableNulls(v, items)
		}
	}
}
