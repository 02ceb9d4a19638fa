package openapi

import (
	"encoding"
	"encoding/json"
	"fmt"
	"path"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/apikit-dev/apikit/quantity"
	"github.com/apikit-dev/apikit/scheme"
)

// builder derives the definitions of one document. A Go struct type gets one definition
// per document, named after the group version it is first reached from.
type builder struct {
	s     *scheme.Scheme
	reg   *registry
	gv    scheme.GroupVersion // naming context: the group version being added
	defs  map[string]*Schema
	names map[reflect.Type]string
	owner map[string]reflect.Type
	errs  []error
}

func newBuilder(s *scheme.Scheme) *builder {
	return &builder{
		s:     s,
		reg:   registryFor(s),
		defs:  map[string]*Schema{},
		names: map[reflect.Type]string{},
		owner: map[string]reflect.Type{},
	}
}

func (b *builder) fail(format string, args ...any) {
	b.errs = append(b.errs, fmt.Errorf(format, args...))
}

var (
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	rawMessageType    = reflect.TypeFor[json.RawMessage]()
	timeType          = reflect.TypeFor[time.Time]()
	unstructuredType  = reflect.TypeFor[scheme.Unstructured]()
	typeMetaType      = reflect.TypeFor[scheme.TypeMeta]()
	objectMetaType    = reflect.TypeFor[scheme.ObjectMeta]()
	listMetaType      = reflect.TypeFor[scheme.ListMeta]()
	statusType        = reflect.TypeFor[scheme.Status]()
)

// openAPITyper is the convention of k8s.io/apimachinery types with custom JSON encodings
// (Quantity, IntOrString, Duration): they say their OpenAPI type and format themselves.
type openAPITyper interface {
	OpenAPISchemaType() []string
	OpenAPISchemaFormat() string
}

// swaggerDocer is the convention of Kubernetes API types: SwaggerDoc returns the type's
// description under "" and each field's under its JSON name.
type swaggerDocer interface {
	SwaggerDoc() map[string]string
}

// friendlyGroupVersion is the prefix kube-apiserver gives a custom resource's
// definitions: the group's DNS labels reversed, then the version
// ("toys.example.com", "v1" => "com.example.toys.v1"). The core group has no prefix.
func friendlyGroupVersion(gv scheme.GroupVersion) string {
	if gv.Group == "" {
		return gv.Version
	}
	parts := strings.Split(gv.Group, ".")
	slices.Reverse(parts)
	return strings.Join(parts, ".") + "." + gv.Version
}

// DefinitionName is the name a kind (or a Go type named kind) of group version gv gets in
// the documents: "com.example.toys.v1.Widget" for toys.example.com/v1, the way
// kube-apiserver names custom resources.
func DefinitionName(gv scheme.GroupVersion, kind string) string {
	return friendlyGroupVersion(gv) + "." + sanitizeName(kind)
}

// sanitizeName keeps a Go type name usable in a JSON pointer and a URL: generic type
// arguments ("List[pkg.Widget]") become "List_pkg.Widget_".
func sanitizeName(n string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			return r
		}
		return '_'
	}, n)
}

// nameFor picks the definition name of a named struct type, preferring kind (when the
// type backs a kind) and resolving clashes between distinct Go types of the same name by
// adding the package name.
func (b *builder) nameFor(t reflect.Type, kind string) string {
	if n, ok := metaNames[t]; ok {
		return n
	}
	base := kind
	if base == "" {
		base = t.Name()
	}
	name := DefinitionName(b.gv, base)
	if owner, taken := b.owner[name]; taken && owner != t {
		name = friendlyGroupVersion(b.gv) + "." + sanitizeName(path.Base(t.PkgPath())) + "." + sanitizeName(t.Name())
		for i := 2; ; i++ {
			if owner, taken := b.owner[name]; !taken || owner == t {
				break
			}
			name = fmt.Sprintf("%s.%s%d", friendlyGroupVersion(b.gv), sanitizeName(t.Name()), i)
		}
	}
	return name
}

// definition makes sure named struct type t has a definition and returns its name.
func (b *builder) definition(t reflect.Type, kind string) string {
	if n, ok := b.names[t]; ok {
		return n
	}
	name := b.nameFor(t, kind)
	b.names[t] = name
	b.owner[name] = t
	def := &Schema{}
	b.defs[name] = def // placed before filling, so recursive references find it
	*def = *b.defSchema(t)
	return name
}

// defSchema derives the body of a definition.
func (b *builder) defSchema(t reflect.Type) *Schema {
	var s *Schema
	switch t {
	case reflect.TypeFor[scheme.Time]():
		s = &Schema{Type: "string", Format: "date-time"}
	case reflect.TypeFor[scheme.FieldsV1](), reflect.TypeFor[scheme.RawExtension]():
		s = &Schema{Type: "object"}
	case reflect.TypeFor[quantity.Quantity](), reflect.TypeFor[scheme.IntOrString]():
		ty := typerOf(t)
		s = &Schema{Type: ty.OpenAPISchemaType()[0], Format: ty.OpenAPISchemaFormat()}
	default:
		s = b.structSchema(t)
	}
	if s.Description == "" {
		s.Description = docsOf(t)[""]
	}
	if fn, ok := metaTypeTags[t]; ok {
		fn(s)
	}
	b.reg.customize(t, s)
	return s
}

// isDefinition reports whether values of t are described by a named definition.
func (b *builder) isDefinition(t reflect.Type) bool {
	if _, ok := metaNames[t]; ok {
		return true
	}
	if _, ok := b.reg.override(t); ok {
		return false
	}
	return t.Kind() == reflect.Struct && t.Name() != "" && !hasCustomEncoding(t)
}

func hasCustomEncoding(t reflect.Type) bool {
	if t == unstructuredType || t == timeType {
		return true
	}
	if t.Implements(jsonMarshalerType) || reflect.PointerTo(t).Implements(jsonMarshalerType) ||
		t.Implements(textMarshalerType) || reflect.PointerTo(t).Implements(textMarshalerType) {
		return true
	}
	return typerOf(t) != nil
}

func typerOf(t reflect.Type) openAPITyper {
	if t.Implements(reflect.TypeFor[openAPITyper]()) {
		return reflect.Zero(t).Interface().(openAPITyper)
	}
	if reflect.PointerTo(t).Implements(reflect.TypeFor[openAPITyper]()) {
		return reflect.New(t).Interface().(openAPITyper)
	}
	return nil
}

// schemaFor returns a fresh schema describing a value of type t where it appears: a
// reference for named structs, an inline schema otherwise.
func (b *builder) schemaFor(t reflect.Type) *Schema {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if o, ok := b.reg.override(t); ok {
		return o.Clone()
	}
	if b.isDefinition(t) {
		return &Schema{Ref: b.definition(t, "")}
	}
	s := b.inlineSchema(t)
	b.reg.customize(t, s)
	return s
}

func (b *builder) inlineSchema(t reflect.Type) *Schema {
	switch t {
	case timeType:
		return &Schema{Type: "string", Format: "date-time"}
	case rawMessageType:
		return &Schema{PreserveUnknownFields: true}
	case unstructuredType:
		return &Schema{Type: "object", PreserveUnknownFields: true, EmbeddedResource: true}
	}
	if ty := typerOf(t); ty != nil {
		s := &Schema{Format: ty.OpenAPISchemaFormat()}
		if types := ty.OpenAPISchemaType(); len(types) == 1 {
			s.Type = types[0]
		}
		return s
	}
	if t.Implements(jsonMarshalerType) || reflect.PointerTo(t).Implements(jsonMarshalerType) {
		// A custom JSON encoding can produce anything; say so rather than guess.
		return &Schema{PreserveUnknownFields: true}
	}
	if t.Implements(textMarshalerType) || reflect.PointerTo(t).Implements(textMarshalerType) {
		return &Schema{Type: "string"}
	}
	switch t.Kind() {
	case reflect.Bool:
		return &Schema{Type: "boolean"}
	case reflect.Int8, reflect.Uint8:
		return &Schema{Type: "integer", Format: "byte"}
	case reflect.Int, reflect.Int16, reflect.Int32, reflect.Uint, reflect.Uint16:
		return &Schema{Type: "integer", Format: "int32"}
	case reflect.Int64, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return &Schema{Type: "integer", Format: "int64"}
	case reflect.Float32:
		return &Schema{Type: "number", Format: "float"}
	case reflect.Float64:
		return &Schema{Type: "number", Format: "double"}
	case reflect.String:
		return &Schema{Type: "string"}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && t.Kind() == reflect.Slice {
			return &Schema{Type: "string", Format: "byte"}
		}
		return &Schema{Type: "array", Items: b.elemSchema(t.Elem())}
	case reflect.Map:
		if t.Elem().Kind() == reflect.Interface {
			return &Schema{Type: "object", PreserveUnknownFields: true}
		}
		return &Schema{Type: "object", AdditionalProperties: b.elemSchema(t.Elem())}
	case reflect.Interface:
		return &Schema{PreserveUnknownFields: true}
	case reflect.Struct:
		return b.structSchema(t)
	}
	b.fail("openapi: Go type %v (%v) has no JSON form", t, t.Kind())
	return &Schema{}
}

// elemSchema describes a list item or map value. Like openapi-gen, a non-pointer item
// that is a primitive or a struct definition carries its zero value as default.
func (b *builder) elemSchema(t reflect.Type) *Schema {
	s := b.schemaFor(t)
	if t.Kind() != reflect.Pointer {
		s.Default = b.zeroDefault(t, false)
	}
	return s
}

// zeroDefault is openapi-gen's enforced default for a non-pointer value of type t: {} for
// a struct definition, the zero value for a primitive unless omitempty, none otherwise.
func (b *builder) zeroDefault(t reflect.Type, omitEmpty bool) any {
	if _, ok := b.reg.override(t); ok {
		return nil
	}
	if _, ok := metaNames[t]; ok {
		if hasCustomEncoding(t) {
			return nil // Time, FieldsV1, Quantity, ...: {} is not their JSON
		}
		return map[string]any{}
	}
	if hasCustomEncoding(t) {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		if t.Name() != "" {
			return map[string]any{}
		}
	case reflect.Bool:
		if !omitEmpty {
			return false
		}
	case reflect.String:
		if !omitEmpty {
			return ""
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if !omitEmpty {
			return int64(0)
		}
	case reflect.Float32, reflect.Float64:
		if !omitEmpty {
			return float64(0)
		}
	}
	return nil
}

// structSchema describes a struct as an object with one property per JSON field. The
// fields are the codec's own (scheme.JSONFields), so the schema names exactly the
// members the wire encoding writes.
func (b *builder) structSchema(t reflect.Type) *Schema {
	s := &Schema{Type: "object"}
	for _, f := range scheme.JSONFields(t) {
		p := b.fieldSchema(f)
		if s.Properties == nil {
			s.Properties = map[string]*Schema{}
		}
		s.Properties[f.Name] = p
		if !optional(f) {
			s.Required = append(s.Required, f.Name)
		}
	}
	return s
}

// optional applies the Kubernetes convention: omitempty, omitzero or a pointer (the
// field's own or an embedded one it is promoted through) make a field optional; every
// other field is required.
func optional(f scheme.JSONField) bool {
	return f.OmitEmpty || f.OmitZero || f.ViaPointer || f.Type.Kind() == reflect.Pointer
}

// fieldSchema describes one property, from its type and its struct tags:
//
//	description:"..."       description (else the declaring type's SwaggerDoc entry)
//	listType:"map|set|atomic"           x-kubernetes-list-type
//	listMapKeys:"name,port"             x-kubernetes-list-map-keys
//	mapType:"atomic|granular"           x-kubernetes-map-type
//	patchStrategy:"merge"               x-kubernetes-patch-strategy
//	patchMergeKey:"name"                x-kubernetes-patch-merge-key
//	enum:"red,green,blue"               enum (string values)
func (b *builder) fieldSchema(f scheme.JSONField) *Schema {
	ft := f.Type
	s := b.schemaFor(ft)
	base := ft
	for base.Kind() == reflect.Pointer {
		base = base.Elem()
	}
	if f.Quoted {
		s.Type, s.Format = "string", ""
	}
	if ft.Kind() != reflect.Pointer && !f.Quoted {
		s.Default = b.zeroDefault(base, f.OmitEmpty || f.OmitZero)
	}
	tag := f.Tag
	if d, ok := tag.Lookup("description"); ok {
		s.Description = d
	} else if d := docsOf(f.Owner)[f.Name]; d != "" {
		s.Description = d
	} else if d := fieldTypeDocs[base]; d != "" {
		s.Description = d
	}
	if v := tag.Get("listType"); v != "" {
		s.ListType = v
	}
	if v := tag.Get("listMapKeys"); v != "" {
		s.ListMapKeys = splitList(v)
	}
	if v := tag.Get("mapType"); v != "" {
		s.MapType = v
	}
	if v := tag.Get("patchStrategy"); v != "" {
		s.PatchStrategy = v
	}
	if v := tag.Get("patchMergeKey"); v != "" {
		s.PatchMergeKey = v
	}
	if v, ok := tag.Lookup("enum"); ok {
		for _, e := range splitList(v) {
			s.Enum = append(s.Enum, e)
		}
	}
	if s.ListType == "map" && len(s.ListMapKeys) == 0 && s.PatchMergeKey != "" {
		s.ListMapKeys = []string{s.PatchMergeKey}
	}
	if s.ListType != "" && s.Type != "array" {
		b.fail("openapi: field %s.%s: listType %q on a %s, not a list", f.Owner, f.GoName, s.ListType, describeType(s))
	}
	if s.ListType == "map" && len(s.ListMapKeys) == 0 {
		b.fail("openapi: field %s.%s: listType map needs listMapKeys (or patchMergeKey)", f.Owner, f.GoName)
	}
	return s
}

func describeType(s *Schema) string {
	switch {
	case s.Type != "":
		return s.Type
	case s.Ref != "":
		return s.Ref
	}
	return "untyped value"
}

func splitList(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// docsOf returns the descriptions of a type: its SwaggerDoc method, or this package's
// table for scheme's meta types.
func docsOf(t reflect.Type) map[string]string {
	if d, ok := metaDocs[t]; ok {
		return d
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	if t.Implements(reflect.TypeFor[swaggerDocer]()) {
		return reflect.Zero(t).Interface().(swaggerDocer).SwaggerDoc()
	}
	if reflect.PointerTo(t).Implements(reflect.TypeFor[swaggerDocer]()) {
		return reflect.New(t).Interface().(swaggerDocer).SwaggerDoc()
	}
	return nil
}
