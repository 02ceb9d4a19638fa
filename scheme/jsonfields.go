package scheme

import (
	"reflect"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// JSONField is one member of a struct type as encoding/json sees it: after embedded
// structs are flattened and name conflicts resolved. Every package that walks Go types by
// their JSON shape (codec, conversion, rest, scheme/openapi) takes its fields from
// JSONFields, so the wire encoding and the published schema cannot disagree about one.
type JSONField struct {
	// Name is the JSON key: the tag name, or the Go field name when the tag has none.
	Name string
	// Index is the path for reflect.Value.FieldByIndex, through embedded structs.
	Index []int
	// Type is the Go type of the field.
	Type reflect.Type
	// Tagged reports whether the name came from a json tag.
	Tagged bool
	// OmitEmpty, OmitZero and Quoted are the tag's ",omitempty", ",omitzero" and
	// ",string" options (Quoted only on a bool, number or string, or a pointer to one).
	OmitEmpty, OmitZero, Quoted bool
	// GoName and Tag are the field's declared Go name and whole struct tag: tags other
	// than json carry schema hints (description, listType, ...) for scheme/openapi.
	GoName string
	Tag    reflect.StructTag
	// Owner is the struct type that declares the field: the type asked about, or a struct
	// embedded in it.
	Owner reflect.Type
	// ViaPointer reports that the field is promoted through an embedded pointer, so the
	// member is absent from the encoding when that pointer is nil.
	ViaPointer bool
}

var jsonFieldsCache sync.Map // reflect.Type -> []JSONField

// JSONFields returns the JSON members of a struct type in field order, by
// encoding/json's rules, cached per type. The result is shared: do not modify it.
func JSONFields(t reflect.Type) []JSONField {
	if f, ok := jsonFieldsCache.Load(t); ok {
		return f.([]JSONField)
	}
	f, _ := jsonFieldsCache.LoadOrStore(t, jsonFieldsOf(t))
	return f.([]JSONField)
}

// jsonFieldsOf lists the JSON members of a struct type by encoding/json's rules: exported
// fields named by their tag (or Go name), "-" skipped, the fields of untagged embedded
// structs promoted, and of several fields with one name the shallowest wins if it is
// alone at its depth or the only tagged one there; otherwise none does.
func jsonFieldsOf(t reflect.Type) []JSONField {
	type queued struct {
		typ        reflect.Type
		index      []int
		viaPointer bool
	}
	var out []JSONField
	current, next := []queued{}, []queued{{typ: t}}
	count, nextCount := map[reflect.Type]int{}, map[reflect.Type]int{t: 1}
	visited := map[reflect.Type]bool{}
	for len(next) > 0 {
		current, next = next, current[:0]
		count, nextCount = nextCount, map[reflect.Type]int{}
		for _, q := range current {
			if visited[q.typ] {
				continue
			}
			visited[q.typ] = true
			for i := 0; i < q.typ.NumField(); i++ {
				sf := q.typ.Field(i)
				if sf.Anonymous {
					et := sf.Type
					if et.Kind() == reflect.Pointer {
						et = et.Elem()
					}
					if !sf.IsExported() && et.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if !ValidJSONTagName(name) {
					name = ""
				}
				index := append(slices.Clone(q.index), i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					f := JSONField{Name: name, Tagged: name != "", Index: index, Type: sf.Type,
						OmitEmpty: hasTagOption(opts, "omitempty"), OmitZero: hasTagOption(opts, "omitzero"),
						GoName: sf.Name, Tag: sf.Tag, Owner: q.typ, ViaPointer: q.viaPointer}
					if hasTagOption(opts, "string") {
						switch ft.Kind() {
						case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
							reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
							reflect.Float32, reflect.Float64, reflect.String:
							f.Quoted = true
						}
					}
					if f.Name == "" {
						f.Name = sf.Name
					}
					out = append(out, f)
					if count[q.typ] > 1 {
						// The embedding type appears twice at this depth: its fields
						// annihilate each other.
						out = append(out, f)
					}
					continue
				}
				nextCount[ft]++
				if nextCount[ft] == 1 {
					next = append(next, queued{typ: ft, index: index,
						viaPointer: q.viaPointer || sf.Type.Kind() == reflect.Pointer})
				}
			}
		}
	}
	slices.SortStableFunc(out, func(a, b JSONField) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		if c := len(a.Index) - len(b.Index); c != 0 {
			return c
		}
		if a.Tagged != b.Tagged {
			if a.Tagged {
				return -1
			}
			return 1
		}
		return slices.Compare(a.Index, b.Index)
	})
	kept := out[:0]
	for i := 0; i < len(out); {
		j := i + 1
		for j < len(out) && out[j].Name == out[i].Name {
			j++
		}
		group := out[i:j]
		if len(group) == 1 || len(group[0].Index) < len(group[1].Index) || group[0].Tagged != group[1].Tagged {
			kept = append(kept, group[0])
		}
		i = j
	}
	slices.SortFunc(kept, func(a, b JSONField) int { return slices.Compare(a.Index, b.Index) })
	return kept
}

// ValidJSONTagName reports whether a json tag name is usable, by encoding/json's rule:
// letters, digits and the punctuation below; anything else makes the Go name count.
func ValidJSONTagName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

// hasTagOption reports whether the comma-separated options of a json tag hold opt.
func hasTagOption(opts, opt string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == opt {
			return true
		}
	}
	return false
}
