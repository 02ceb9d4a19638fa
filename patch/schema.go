package patch

import (
	"fmt"
	"slices"
	"sort"
	"sync"

	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/scheme/openapi"
)

// cacheKey keys this package's per-scheme cache in scheme.Scheme.Extension.
type cacheKey struct{}

// cache holds what is derived once per scheme: expanded kind schemas for strategic merge
// and structured-merge-diff parsers per group version for server-side apply.
type cache struct {
	kinds   sync.Map // GroupVersionKind -> kindSchema
	parsers sync.Map // GroupVersion -> parserEntry
}

type kindSchema struct {
	s   *openapi.Schema
	err error
}

type parserEntry struct {
	p     *typed.Parser
	names map[scheme.GroupVersionKind]string
	err   error
}

func cacheFor(s *scheme.Scheme) *cache {
	return s.Extension(cacheKey{}, func() any { return &cache{} }).(*cache)
}

// shared holds what is derived from the documents of group versions whose kinds are
// all Go types, once per process for every scheme with the same types
// (openapi.SharedKey): the per-scheme caches take their entries from it, so that the
// built-in kinds' schemas are not derived again for each test server. Custom
// resources' schemas stay in their scheme's cache.
var shared struct {
	kinds   sync.Map // sharedKindKey -> kindSchema
	parsers sync.Map // openapi.SharedKey -> parserEntry
}

type sharedKindKey struct {
	doc  string
	kind string
}

// SchemaFor returns the expanded OpenAPI schema strategic merge patches of kind gvk
// follow, derived from its Go type. Kinds served as unstructured objects have none, even
// with a registered schema: strategic merge on them is ErrUnsupported, as kube-apiserver
// answers 415 for custom resources. The result is cached per scheme and must not be
// modified.
func SchemaFor(s *scheme.Scheme, gvk scheme.GroupVersionKind) (*openapi.Schema, error) {
	c := cacheFor(s)
	if v, ok := c.kinds.Load(gvk); ok {
		ks := v.(kindSchema)
		return ks.s, ks.err
	}
	build := func() kindSchema {
		ks := kindSchema{}
		ks.s, ks.err = openapi.ForKind(s, gvk)
		if ks.err == nil {
			if s.IsUnstructured(gvk) {
				ks.s, ks.err = nil, &Error{Kind: ErrUnsupported, Message: fmt.Sprintf("%v is served as unstructured objects, which take no strategic merge patch", gvk)}
			}
		}
		return ks
	}
	var ks kindSchema
	if doc, ok := openapi.SharedKey(s, gvk.GroupVersion()); ok && s.Recognizes(gvk) {
		ks = loadOrBuild(&shared.kinds, sharedKindKey{doc, gvk.Kind}, build)
	} else {
		ks = build()
	}
	c.kinds.Store(gvk, ks)
	return ks.s, ks.err
}

// loadOrBuild returns m's value at key, built and stored first when there is none.
func loadOrBuild[K comparable, V any](m *sync.Map, key K, build func() V) V {
	if v, ok := m.Load(key); ok {
		return v.(V)
	}
	v, _ := m.LoadOrStore(key, build())
	return v.(V)
}

// Names of the two untyped types every structured-merge-diff schema carries, as
// k8s.io/kube-openapi's schemaconv names them.
const (
	untypedName = "__untyped_atomic_"
	deducedName = "__untyped_deduced_"
)

// parserFor returns the structured-merge-diff parser of gvk's group version and the
// type name of gvk in it.
func parserFor(s *scheme.Scheme, gvk scheme.GroupVersionKind) (typed.ParseableType, error) {
	c := cacheFor(s)
	gv := gvk.GroupVersion()
	v, ok := c.parsers.Load(gv)
	if !ok {
		build := func() parserEntry {
			e := parserEntry{}
			doc, err := openapi.ForGroupVersion(s, gv)
			if err != nil {
				e.err = err
			} else {
				e.p, e.names = toSMDSchema(doc)
			}
			return e
		}
		var e parserEntry
		if key, ok := openapi.SharedKey(s, gv); ok {
			e = loadOrBuild(&shared.parsers, key, build)
		} else {
			e = build()
		}
		v, _ = c.parsers.LoadOrStore(gv, e)
	}
	e := v.(parserEntry)
	if e.err != nil {
		return typed.ParseableType{}, e.err
	}
	name, ok := e.names[gvk]
	if !ok {
		// A kind the documents do not describe: deduce everything, as kube does for
		// types without a schema.
		return typed.DeducedParseableType, nil
	}
	return e.p.Type(name), nil
}

// toSMDSchema converts an OpenAPI document to a structured-merge-diff schema, following
// k8s.io/kube-openapi's schemaconv rules, and maps each kind to its type name.
func toSMDSchema(doc *openapi.Document) (*typed.Parser, map[scheme.GroupVersionKind]string) {
	p := &typed.Parser{}
	names := map[scheme.GroupVersionKind]string{}
	defs := make([]string, 0, len(doc.Schemas))
	for n := range doc.Schemas {
		defs = append(defs, n)
	}
	sort.Strings(defs)
	for _, n := range defs {
		def := doc.Schemas[n]
		for _, gvk := range def.GroupVersionKinds {
			names[gvk] = n
		}
		atom := toAtom(def)
		// kube-openapi's schemaconv hard-codes these two: a Quantity is any scalar
		// (a client may send "cpu: 1"), a RawExtension any value, owned as a whole.
		switch n {
		case openapi.QuantityName:
			atom = smdschema.Atom{Scalar: ptr(smdschema.Scalar("untyped"))}
		case openapi.RawExtensionName:
			atom = untypedAtom()
		}
		p.Schema.Types = append(p.Schema.Types, smdschema.TypeDef{Name: n, Atom: atom})
	}
	untyped, deduced := untypedName, deducedName
	p.Schema.Types = append(p.Schema.Types,
		smdschema.TypeDef{Name: untypedName, Atom: untypedAtom()},
		smdschema.TypeDef{Name: deducedName, Atom: smdschema.Atom{
			Scalar: ptr(smdschema.Scalar("untyped")),
			List:   &smdschema.List{ElementType: smdschema.TypeRef{NamedType: &untyped}, ElementRelationship: smdschema.Atomic},
			Map:    &smdschema.Map{ElementType: smdschema.TypeRef{NamedType: &deduced}, ElementRelationship: smdschema.Separable},
		}},
	)
	return p, names
}

// untypedAtom is __untyped_atomic_'s atom: any scalar, list or map, replaced whole.
func untypedAtom() smdschema.Atom {
	untyped := untypedName
	return smdschema.Atom{
		Scalar: ptr(smdschema.Scalar("untyped")),
		List:   &smdschema.List{ElementType: smdschema.TypeRef{NamedType: &untyped}, ElementRelationship: smdschema.Atomic},
		Map:    &smdschema.Map{ElementType: smdschema.TypeRef{NamedType: &untyped}, ElementRelationship: smdschema.Atomic},
	}
}

func ptr[T any](v T) *T { return &v }

// toTypeRef converts a property schema: a reference stays a named type (with the
// reference's own map or list type laid over it), anything else is inlined.
func toTypeRef(s *openapi.Schema) smdschema.TypeRef {
	if s == nil {
		return smdschema.TypeRef{NamedType: ptr(deducedName)}
	}
	if s.Ref != "" {
		tr := smdschema.TypeRef{NamedType: ptr(s.Ref)}
		switch {
		case s.MapType == "atomic" || s.ListType == "atomic":
			tr.ElementRelationship = ptr(smdschema.Atomic)
		case s.MapType == "granular":
			tr.ElementRelationship = ptr(smdschema.Separable)
		}
		return tr
	}
	if len(s.AllOf) == 1 && s.AllOf[0].Ref != "" && len(s.Properties) == 0 && s.Type == "" {
		c := *s.AllOf[0]
		c.MapType, c.ListType = s.MapType, s.ListType
		return toTypeRef(&c)
	}
	if isUntyped(s) {
		if s.PreserveUnknownFields || s.Type == "object" {
			return smdschema.TypeRef{NamedType: ptr(deducedName)}
		}
		return smdschema.TypeRef{NamedType: ptr(untypedName)}
	}
	return smdschema.TypeRef{Inlined: toAtom(s)}
}

// isUntyped reports a schema that constrains nothing structural.
func isUntyped(s *openapi.Schema) bool {
	if s.IntOrString {
		return false
	}
	switch s.Type {
	case "", "object":
		return len(s.Properties) == 0 && s.AdditionalProperties == nil && s.Items == nil
	}
	return false
}

// toAtom converts a schema to a structured-merge-diff atom.
func toAtom(s *openapi.Schema) smdschema.Atom {
	if s.IntOrString {
		return smdschema.Atom{Scalar: ptr(smdschema.Scalar("untyped"))}
	}
	switch s.Type {
	case "string":
		// kube-openapi's schemaconv (convertPrimitive) makes a string with a format
		// other than byte an untyped scalar: a Quantity ("quantity") also arrives
		// as a number ("cpu: 1"), a date-time as whatever a client wrote.
		if s.Format != "" && s.Format != "byte" {
			return smdschema.Atom{Scalar: ptr(smdschema.Scalar("untyped"))}
		}
		return smdschema.Atom{Scalar: ptr(smdschema.String)}
	case "integer", "number":
		return smdschema.Atom{Scalar: ptr(smdschema.Numeric)}
	case "boolean":
		return smdschema.Atom{Scalar: ptr(smdschema.Boolean)}
	case "array":
		l := &smdschema.List{ElementType: toTypeRef(s.Items), ElementRelationship: smdschema.Atomic}
		switch s.ListType {
		case "map":
			l.ElementRelationship, l.Keys = smdschema.Associative, slices.Clone(s.ListMapKeys)
		case "set":
			l.ElementRelationship = smdschema.Associative
		case "atomic":
		default:
			if slices.Contains(splitComma(s.PatchStrategy), "merge") {
				l.ElementRelationship = smdschema.Associative
				if s.PatchMergeKey != "" {
					l.Keys = []string{s.PatchMergeKey}
				}
			}
		}
		return smdschema.Atom{List: l}
	}
	if s.Ref == "" && isUntyped(s) && s.Type == "" {
		return smdschema.Atom{
			Scalar: ptr(smdschema.Scalar("untyped")),
			List:   &smdschema.List{ElementType: smdschema.TypeRef{NamedType: ptr(untypedName)}, ElementRelationship: smdschema.Atomic},
			Map:    &smdschema.Map{ElementType: smdschema.TypeRef{NamedType: ptr(deducedName)}, ElementRelationship: smdschema.Separable},
		}
	}
	m := &smdschema.Map{}
	keys := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		m.Fields = append(m.Fields, smdschema.StructField{Name: k, Type: toTypeRef(s.Properties[k])})
	}
	switch {
	case s.AdditionalProperties != nil:
		m.ElementType = toTypeRef(s.AdditionalProperties)
	case s.PreserveUnknownFields || len(s.Properties) == 0:
		m.ElementType = smdschema.TypeRef{NamedType: ptr(deducedName)}
	}
	if s.MapType == "atomic" {
		m.ElementRelationship = smdschema.Atomic
	}
	return smdschema.Atom{Map: m}
}

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}
