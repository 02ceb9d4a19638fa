package openapi

import (
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/apikit-dev/apikit/scheme"
)

// Dialect is the OpenAPI version a Document renders as.
type Dialect int

const (
	// V3 is OpenAPI 3.0.0: definitions under components/schemas, what /openapi/v3/...
	// serves.
	V3 Dialect = iota
	// V2 is Swagger 2.0: definitions under definitions, what /openapi/v2 serves.
	V2
)

// Info is a document's info object.
type Info struct {
	Title   string
	Version string
}

// DefaultInfo is the info kube-apiserver's published documents carry.
var DefaultInfo = Info{Title: "Kubernetes", Version: "unversioned"}

// Document is one OpenAPI document: named schemas (definitions) and, optionally, paths.
// It renders as OpenAPI v3 or Swagger 2.0 by its Dialect; refs inside its schemas name
// its own definitions.
type Document struct {
	Dialect Dialect
	Info    Info
	// Paths holds the path items, already in the document's dialect; package rest fills
	// it with the operations it serves. Nil renders as an empty object, which is valid.
	Paths map[string]any
	// Schemas are the definitions, keyed by name.
	Schemas map[string]*Schema
}

// MarshalJSON renders the document in its dialect, keys sorted, as kube-apiserver does:
// equal documents render to equal bytes, so their Hash is stable.
func (d *Document) MarshalJSON() ([]byte, error) {
	sp := specV3
	if d.Dialect == V2 {
		sp = specV2
	}
	schemas := make(map[string]any, len(d.Schemas))
	for name, s := range d.Schemas {
		schemas[name] = s.render(sp)
	}
	paths := d.Paths
	if paths == nil {
		paths = map[string]any{}
	}
	info := map[string]any{"title": d.Info.Title, "version": d.Info.Version}
	if d.Dialect == V2 {
		return json.Marshal(map[string]any{
			"swagger":     "2.0",
			"info":        info,
			"paths":       paths,
			"definitions": schemas,
		})
	}
	return json.Marshal(map[string]any{
		"openapi":    "3.0.0",
		"info":       info,
		"paths":      paths,
		"components": map[string]any{"schemas": schemas},
	})
}

// Resolve follows a schema's Ref to the definition it names, repeatedly; a schema without
// Ref (or a Ref the document lacks) is returned as is. Siblings of the Ref are not merged:
// use Expand for that.
func (d *Document) Resolve(s *Schema) *Schema {
	for range 64 {
		if s == nil || s.Ref == "" {
			return s
		}
		def, ok := d.Schemas[s.Ref]
		if !ok {
			return s
		}
		s = def
	}
	return s
}

// Expand returns a copy of s with every reference replaced by (a copy of) the definition
// it names, the reference's own description, default and extensions laid over it. A
// reference back into a definition being expanded stays a reference, so recursive types
// terminate.
func (d *Document) Expand(s *Schema) *Schema {
	return d.expand(s, map[string]bool{})
}

func (d *Document) expand(s *Schema, visiting map[string]bool) *Schema {
	if s == nil {
		return nil
	}
	if s.Ref != "" {
		def, ok := d.Schemas[s.Ref]
		if !ok || visiting[s.Ref] {
			return s.Clone()
		}
		visiting[s.Ref] = true
		out := d.expand(def, visiting)
		delete(visiting, s.Ref)
		overlay(out, s)
		return out
	}
	c := *s
	if s.Properties != nil {
		c.Properties = make(map[string]*Schema, len(s.Properties))
		for k, p := range s.Properties {
			c.Properties[k] = d.expand(p, visiting)
		}
	}
	c.Items = d.expand(s.Items, visiting)
	c.AdditionalProperties = d.expand(s.AdditionalProperties, visiting)
	c.Not = d.expand(s.Not, visiting)
	for _, group := range []*[]*Schema{&c.AllOf, &c.AnyOf, &c.OneOf} {
		if *group != nil {
			ss := make([]*Schema, len(*group))
			for i, g := range *group {
				ss[i] = d.expand(g, visiting)
			}
			*group = ss
		}
	}
	// Copy the rest deeply so the result shares nothing with the document.
	rest := s.Clone()
	c.Required, c.Default, c.Enum, c.Extensions = rest.Required, rest.Default, rest.Enum, rest.Extensions
	c.ListMapKeys, c.GroupVersionKinds = rest.ListMapKeys, rest.GroupVersionKinds
	c.Minimum, c.Maximum, c.MultipleOf = rest.Minimum, rest.Maximum, rest.MultipleOf
	c.MinLength, c.MaxLength, c.MinItems, c.MaxItems = rest.MinLength, rest.MaxLength, rest.MinItems, rest.MaxItems
	c.MinProperties, c.MaxProperties = rest.MinProperties, rest.MaxProperties
	return &c
}

// overlay lays the siblings of a reference over the expanded definition.
func overlay(dst, ref *Schema) {
	r := ref.Clone()
	if r.Description != "" {
		dst.Description = r.Description
	}
	if r.Default != nil {
		dst.Default = r.Default
	}
	if len(r.Enum) > 0 {
		dst.Enum = r.Enum
	}
	dst.Nullable = dst.Nullable || r.Nullable
	if r.ListType != "" {
		dst.ListType, dst.ListMapKeys = r.ListType, r.ListMapKeys
	}
	if r.MapType != "" {
		dst.MapType = r.MapType
	}
	if r.PatchStrategy != "" {
		dst.PatchStrategy = r.PatchStrategy
	}
	if r.PatchMergeKey != "" {
		dst.PatchMergeKey = r.PatchMergeKey
	}
	for k, v := range r.Extensions {
		if dst.Extensions == nil {
			dst.Extensions = map[string]any{}
		}
		dst.Extensions[k] = v
	}
	dst.AllOf = append(dst.AllOf, r.AllOf...)
}

// Build returns the Swagger 2.0 document of every kind the scheme serves, in every group
// and version: what kube-apiserver serves at /openapi/v2.
func Build(s *scheme.Scheme) (*Document, error) {
	b := newBuilder(s)
	for _, group := range s.Groups() {
		for _, v := range s.Versions(group) {
			gv := scheme.GroupVersion{Group: group, Version: v}
			b.addGroupVersion(gv, kindsOf(s, b.reg, gv))
		}
	}
	b.addMeta()
	return b.document(V2)
}

// ForGroupVersion returns the OpenAPI v3 document of one group version: what
// kube-apiserver serves at /openapi/v3/apis/GROUP/VERSION (/openapi/v3/api/v1 for the
// core group). It holds a definition per kind (named like DefinitionName, with
// x-kubernetes-group-version-kind), the types they use, and the meta types.
func ForGroupVersion(s *scheme.Scheme, gv scheme.GroupVersion) (*Document, error) {
	kinds := kindsOf(s, registryFor(s), gv)
	if len(kinds) == 0 {
		return nil, fmt.Errorf("openapi: %w", &scheme.NotRegisteredError{GVK: gv.WithKind("")})
	}
	b := newBuilder(s)
	b.addGroupVersion(gv, kinds)
	b.addMeta()
	return b.document(V3)
}

// ForAllGroupVersions returns the OpenAPI v3 document of every group version the scheme
// serves, keyed by DiscoveryPath.
func ForAllGroupVersions(s *scheme.Scheme) (map[string]*Document, error) {
	out := map[string]*Document{}
	for _, gv := range GroupVersions(s) {
		doc, err := ForGroupVersion(s, gv)
		if err != nil {
			return nil, err
		}
		out[DiscoveryPath(gv)] = doc
	}
	return out, nil
}

// ForKind returns the schema of one kind with every reference expanded (see
// Document.Expand): what a validator or `kubectl explain` walks.
func ForKind(s *scheme.Scheme, gvk scheme.GroupVersionKind) (*Schema, error) {
	if !s.Recognizes(gvk) {
		if _, ok := registryFor(s).kind(gvk); !ok {
			return nil, fmt.Errorf("openapi: %w", &scheme.NotRegisteredError{GVK: gvk})
		}
	}
	b := newBuilder(s)
	b.addGroupVersion(gvk.GroupVersion(), []scheme.GroupVersionKind{gvk})
	doc, err := b.document(V3)
	if err != nil {
		return nil, err
	}
	for _, def := range doc.Schemas {
		if slices.Contains(def.GroupVersionKinds, gvk) {
			return doc.Expand(def), nil
		}
	}
	return nil, fmt.Errorf("openapi: %w", &scheme.NotRegisteredError{GVK: gvk})
}

// GroupVersions returns the external group versions that have a v3 document, sorted by
// group and then by version priority.
func GroupVersions(s *scheme.Scheme) []scheme.GroupVersion {
	reg := registryFor(s)
	var out []scheme.GroupVersion
	for _, group := range s.Groups() {
		for _, v := range s.Versions(group) {
			gv := scheme.GroupVersion{Group: group, Version: v}
			if len(kindsOf(s, reg, gv)) > 0 {
				out = append(out, gv)
			}
		}
	}
	return out
}

// kindsOf lists the kinds of a group version that documents describe: every served
// resource's kind and list kind, and every kind given a schema with Register. (The
// scheme does not enumerate its kinds, so typed kinds without a resource are left out.)
func kindsOf(s *scheme.Scheme, reg *registry, gv scheme.GroupVersion) []scheme.GroupVersionKind {
	if gv.Version == scheme.InternalVersion {
		return nil
	}
	seen := map[scheme.GroupVersionKind]bool{}
	for _, r := range s.Resources() {
		if r.Group != gv.Group || !s.Recognizes(gv.WithKind(r.Kind)) {
			continue
		}
		seen[gv.WithKind(r.Kind)] = true
		seen[gv.WithKind(r.ListKind)] = true
	}
	for _, gvk := range reg.registeredKinds() {
		if gvk.GroupVersion() == gv {
			seen[gvk] = true
		}
	}
	out := make([]scheme.GroupVersionKind, 0, len(seen))
	for gvk := range seen {
		out = append(out, gvk)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Kind < out[j].Kind })
	return out
}

// addGroupVersion adds the definitions of kinds, item kinds before list kinds.
func (b *builder) addGroupVersion(gv scheme.GroupVersion, kinds []scheme.GroupVersionKind) {
	b.gv = gv
	var lists []scheme.GroupVersionKind
	for _, gvk := range kinds {
		if _, ok := b.listItemKind(gvk); ok {
			lists = append(lists, gvk)
			continue
		}
		b.addKind(gvk)
	}
	for _, gvk := range lists {
		b.addKind(gvk)
	}
}

// listItemKind returns the kind a list kind lists, when gvk is a resource's list kind.
func (b *builder) listItemKind(gvk scheme.GroupVersionKind) (scheme.GroupVersionKind, bool) {
	for _, r := range b.s.Resources() {
		if r.Group == gvk.Group && r.ListKind == gvk.Kind && r.Kind != gvk.Kind {
			return gvk.GroupVersion().WithKind(r.Kind), true
		}
	}
	return scheme.GroupVersionKind{}, false
}

// addKind adds the definition of one kind and tags it with its group version kind.
func (b *builder) addKind(gvk scheme.GroupVersionKind) {
	var name string
	if registered, ok := b.reg.kind(gvk); ok {
		name = DefinitionName(gvk.GroupVersion(), gvk.Kind)
		_, isList := b.listItemKind(gvk)
		isList = isList || strings.HasSuffix(gvk.Kind, "List") && registered.Properties["items"] != nil
		b.defs[name] = b.kindSchema(registered.Clone(), isList)
	} else if t, ok := b.s.TypeFor(gvk); ok {
		name = b.definition(t, gvk.Kind)
	} else if item, ok := b.listItemKind(gvk); ok {
		name = DefinitionName(gvk.GroupVersion(), gvk.Kind)
		b.defs[name] = b.listSchema(item)
	} else {
		// Schema-only kind without a schema: anything goes, like a CRD without validation.
		name = DefinitionName(gvk.GroupVersion(), gvk.Kind)
		b.defs[name] = b.kindSchema(&Schema{Type: "object", PreserveUnknownFields: true}, false)
	}
	def := b.defs[name]
	if !slices.Contains(def.GroupVersionKinds, gvk) {
		def.GroupVersionKinds = append(def.GroupVersionKinds, gvk)
	}
}

// kindSchema completes a registered kind schema as kube-apiserver completes a CRD's:
// apiVersion and kind are described, metadata refers to ObjectMeta (ListMeta for lists).
func (b *builder) kindSchema(s *Schema, list bool) *Schema {
	if s.Type == "" {
		s.Type = "object"
	}
	if s.Properties == nil {
		s.Properties = map[string]*Schema{}
	}
	tm := metaDocs[typeMetaType]
	if s.Properties["apiVersion"] == nil {
		s.Properties["apiVersion"] = &Schema{Type: "string", Description: tm["apiVersion"]}
	}
	if s.Properties["kind"] == nil {
		s.Properties["kind"] = &Schema{Type: "string", Description: tm["kind"]}
	}
	meta := objectMetaType
	if list {
		meta = listMetaType
	}
	s.Properties["metadata"] = &Schema{Ref: b.definition(meta, ""), Description: fieldTypeDocs[meta]}
	return s
}

// listSchema is the schema of a list kind that has no Go type or schema of its own.
func (b *builder) listSchema(item scheme.GroupVersionKind) *Schema {
	var itemRef string
	if t, ok := b.s.TypeFor(item); ok {
		itemRef = b.definition(t, item.Kind)
	} else {
		itemRef = DefinitionName(item.GroupVersion(), item.Kind)
	}
	s := &Schema{
		Type:        "object",
		Description: item.Kind + "List is a list of " + item.Kind + " objects.",
		Properties: map[string]*Schema{
			"items": {Type: "array", Description: "List of " + item.Kind + " objects.", Items: &Schema{Ref: itemRef}},
		},
		Required: []string{"items"},
	}
	return b.kindSchema(s, true)
}

// addMeta adds the meta definitions every document carries: Status for error responses
// and, through it, ListMeta, StatusDetails and StatusCause.
func (b *builder) addMeta() {
	b.definition(statusType, "")
}

// document checks the definitions and wraps them in a Document.
func (b *builder) document(dialect Dialect) (*Document, error) {
	b.resolveRefs()
	b.checkListMaps()
	if len(b.errs) > 0 {
		return nil, errors.Join(b.errs...)
	}
	return &Document{Dialect: dialect, Info: DefaultInfo, Schemas: b.defs}, nil
}

// resolveRefs makes sure every reference names a definition: a registered schema may
// name a meta type (ObjectMeta, Condition) without the document having it yet.
func (b *builder) resolveRefs() {
	for changed := true; changed; {
		changed = false
		for _, name := range sortedKeys(b.defs) {
			b.defs[name].walk(func(s *Schema) {
				if s.Ref == "" {
					return
				}
				if _, ok := b.defs[s.Ref]; ok {
					return
				}
				if t, ok := metaTypesByName[s.Ref]; ok {
					b.definition(t, "")
					changed = true
					return
				}
				b.fail("openapi: definition %s refers to %s, which no registered kind or type defines", name, s.Ref)
				s.Ref = "" // report once
			})
		}
	}
}

// checkListMaps verifies that every list of type map names keys its items have.
func (b *builder) checkListMaps() {
	doc := &Document{Schemas: b.defs}
	for _, name := range sortedKeys(b.defs) {
		b.defs[name].walk(func(s *Schema) {
			if s.ListType != "map" {
				return
			}
			item := doc.Resolve(s.Items)
			if item == nil {
				b.fail("openapi: definition %s: a list of type map has no item schema", name)
				return
			}
			for _, k := range s.ListMapKeys {
				if item.Properties[k] == nil {
					b.fail("openapi: definition %s: list map key %q is not a field of its items", name, k)
				}
			}
		})
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// DiscoveryPath is the key of a group version in the /openapi/v3 index and the tail of
// its document's URL: "apis/toys.example.com/v1", or "api/v1" for the core group.
func DiscoveryPath(gv scheme.GroupVersion) string {
	if gv.Group == "" {
		return "api/" + gv.Version
	}
	return "apis/" + gv.Group + "/" + gv.Version
}

// Hash is the hash kube-apiserver puts in a v3 document's URL and ETag: the SHA-512 of
// the document's JSON bytes, in upper-case hex.
func Hash(data []byte) string {
	sum := sha512.Sum512(data)
	return strings.ToUpper(hex.EncodeToString(sum[:]))
}

// Discovery is the index /openapi/v3 serves:
//
//	{"paths": {"apis/toys.example.com/v1": {"serverRelativeURL": "/openapi/v3/apis/toys.example.com/v1?hash=4F2A..."}}}
type Discovery struct {
	Paths map[string]DiscoveryEntry `json:"paths"`
}

// DiscoveryEntry points at one group version's document; the hash in the URL changes
// whenever the document does, so clients may cache by URL.
type DiscoveryEntry struct {
	ServerRelativeURL string `json:"serverRelativeURL"`
}

// NewDiscovery builds the /openapi/v3 index from the JSON bytes that will be served for
// each group version, keyed by DiscoveryPath.
func NewDiscovery(docs map[string][]byte) *Discovery {
	d := &Discovery{Paths: make(map[string]DiscoveryEntry, len(docs))}
	for p, data := range docs {
		d.Paths[p] = DiscoveryEntry{ServerRelativeURL: ServerRelativeURL(p, Hash(data))}
	}
	return d
}

// ServerRelativeURL is the URL of a group version's document with its hash:
// "/openapi/v3/apis/toys.example.com/v1?hash=HASH".
func ServerRelativeURL(discoveryPath, hash string) string {
	u := url.URL{Path: path.Join("/openapi/v3", discoveryPath), RawQuery: url.Values{"hash": {hash}}.Encode()}
	return u.String()
}
