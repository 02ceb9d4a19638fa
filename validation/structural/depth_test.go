package structural

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// nestedSchema is a schema of depth objects, each the only property "a" of the one
// above, over leaf; nestedObject is an object of that shape over value.
func nestedSchema(depth int, leaf string) string {
	return `{"type":"object","properties":{"spec":` + strings.Repeat(`{"type":"object","properties":{"a":`, depth) + leaf + strings.Repeat(`}}`, depth) + `}}`
}

func nestedObject(depth int, value string) string {
	return `{"spec":` + strings.Repeat(`{"a":`, depth) + value + strings.Repeat(`}`, depth) + `}`
}

func allocated(f func()) uint64 {
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	f()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}

// Compiling a deep schema and validating an object as deep, with an error at the
// bottom, costs the same a level at any depth: a path is rendered in one pass (it was
// rendered by concatenating the parent's rendering at every level, the square of the
// depth for one error).
func TestDepth_CompileAndValidateCostIsLinearInDepth(t *testing.T) {
	perLevel := map[string]map[int]float64{"compile": {}, "validate": {}}
	for _, depth := range []int{1000, 4000} {
		doc := nestedSchema(depth, `{"type":"integer"}`)
		var s *Schema
		n := allocated(func() { s = mustCompile(t, doc) })
		perLevel["compile"][depth] = float64(n) / float64(depth)
		obj := mustObject(t, nestedObject(depth, `"x"`))
		var errs int
		m := allocated(func() { errs = len(s.Validate(obj)) })
		if errs != 1 {
			t.Fatalf("depth %d: %d errors, want 1", depth, errs)
		}
		perLevel["validate"][depth] = float64(m) / float64(depth)
		t.Logf("depth %d: compile %d bytes allocated, validate %d", depth, n, m)
	}
	for what, pl := range perLevel {
		if ratio := pl[4000] / pl[1000]; ratio > 1.5 {
			t.Errorf("%s: a level costs %.1f times more at depth 4000 than at 1000, want the same", what, ratio)
		}
	}
}

// vpathString is how a path renders, one element at a time: kube-openapi's names.
func vpathString(p *vpath) string {
	if p == nil {
		return ""
	}
	parent := vpathString(p.parent)
	switch p.kind {
	case pathIndex:
		return parent + "[" + strconv.Itoa(p.index) + "]"
	case pathAdditional:
		return parent + "." + p.name
	}
	if parent == "" {
		return p.name
	}
	return parent + "." + p.name
}

func TestVpath_RendersAsKubeOpenAPINamesFields(t *testing.T) {
	prop := func(p *vpath, name string) *vpath { return &vpath{parent: p, name: name, kind: pathProperty} }
	add := func(p *vpath, name string) *vpath { return &vpath{parent: p, name: name, kind: pathAdditional} }
	index := func(p *vpath, i int) *vpath { return &vpath{parent: p, index: i, kind: pathIndex} }
	for _, tc := range []struct {
		p    *vpath
		want string
	}{
		{nil, ""},
		{prop(nil, "spec"), "spec"},
		{index(prop(prop(nil, "spec"), "items"), 12), "spec.items[12]"},
		{prop(index(prop(nil, "list"), 0), "name"), "list[0].name"},
		{add(nil, "k"), ".k"},
		{add(prop(nil, "labels"), "app"), "labels.app"},
		{index(nil, 3), "[3]"},
		{prop(index(nil, 3), "a"), "[3].a"},
		{prop(prop(nil, ""), "a"), "a"},
	} {
		if got := tc.p.String(); got != tc.want || got != vpathString(tc.p) {
			t.Errorf("String() = %q, want %q (element by element %q)", got, tc.want, vpathString(tc.p))
		}
	}
}
