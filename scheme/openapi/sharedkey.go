package openapi

import (
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/apikit-dev/apikit/scheme"
)

// SharedKey returns a key for the document of group version gv in s (ForGroupVersion)
// that is equal for two schemes, in one process, whose documents of gv are derived
// alike: the same kinds backed by the same Go types (a list kind without one, by its
// item's), the same resources of gv's group,
// and the same overrides and customizers. Callers that derive something costly from a
// document (the structured-merge-diff schemas of server-side apply) cache it under
// this key once per process rather than once per scheme, so that every test server
// over Kubernetes' built-in kinds shares them. ok is false when gv has a kind without
// a Go type (a custom resource, a kind given a schema with Register): such documents
// stay the scheme's own.
func SharedKey(s *scheme.Scheme, gv scheme.GroupVersion) (key string, ok bool) {
	reg := registryFor(s)
	kinds := kindsOf(s, reg, gv)
	if len(kinds) == 0 {
		return "", false
	}
	var b strings.Builder
	b.WriteString(gv.Group)
	b.WriteByte('/')
	b.WriteString(gv.Version)
	lists := &builder{s: s}
	for _, gvk := range kinds {
		if _, registered := reg.kind(gvk); registered || s.IsUnstructured(gvk) {
			return "", false
		}
		b.WriteString("|k:")
		b.WriteString(gvk.Kind)
		b.WriteByte('=')
		if t, typed := s.TypeFor(gvk); typed {
			b.WriteString(typeID(t))
			continue
		}
		// A list kind without a Go type (BindingList) is derived from its item's.
		item, isList := lists.listItemKind(gvk)
		if !isList {
			return "", false
		}
		t, typed := s.TypeFor(item)
		if !typed {
			return "", false
		}
		b.WriteString("list of ")
		b.WriteString(typeID(t))
	}
	// The resources of the group name list kinds (listItemKind), which orders the
	// definitions and so their names.
	var resources []string
	for _, r := range s.Resources() {
		if r.Group == gv.Group {
			resources = append(resources, r.Kind+"/"+r.ListKind)
		}
	}
	slices.Sort(resources)
	for _, r := range resources {
		b.WriteString("|r:")
		b.WriteString(r)
	}
	if !reg.writeFingerprint(&b) {
		return "", false
	}
	return b.String(), true
}

// writeFingerprint writes the overrides and customizers to b, by type, an override by
// its content and a customizer by its identity; false when an override cannot be
// encoded.
func (r *registry) writeFingerprint(b *strings.Builder) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var entries []string
	for t, s := range r.overrides {
		data, err := json.Marshal(s)
		if err != nil {
			return false
		}
		entries = append(entries, "o:"+typeID(t)+"="+string(data))
	}
	for t, fns := range r.customizers {
		e := "c:" + typeID(t) + "="
		for _, fn := range fns {
			e += funcID(fn) + ","
		}
		entries = append(entries, e)
	}
	slices.Sort(entries)
	for _, e := range entries {
		b.WriteByte('|')
		b.WriteString(e)
	}
	return true
}

// typeIDs numbers the Go types keys name: reflect.Type's String is not unique (two
// types declared in different functions of one package share it).
var (
	typeIDs    sync.Map // reflect.Type -> string
	nextTypeID atomic.Uint64
)

func typeID(t reflect.Type) string {
	if v, ok := typeIDs.Load(t); ok {
		return v.(string)
	}
	v, _ := typeIDs.LoadOrStore(t, strconv.FormatUint(nextTypeID.Add(1), 36))
	return v.(string)
}

// funcIDs numbers the customizers keys name by the address of the closure record a
// func value points to: one static record for a top-level function, a record of its
// own for each closure made (so two closures of one literal that capture different
// values differ, where their code address would not). The function is kept with its
// number, so that its record's address is never reused for another.
var (
	funcIDs    sync.Map // uintptr -> funcEntry
	nextFuncID atomic.Uint64
)

type funcEntry struct {
	id string
	fn func(*Schema)
}

func funcID(fn func(*Schema)) string {
	addr := *(*uintptr)(unsafe.Pointer(&fn))
	if v, ok := funcIDs.Load(addr); ok {
		return v.(funcEntry).id
	}
	v, _ := funcIDs.LoadOrStore(addr, funcEntry{id: strconv.FormatUint(nextFuncID.Add(1), 36), fn: fn})
	return v.(funcEntry).id
}
