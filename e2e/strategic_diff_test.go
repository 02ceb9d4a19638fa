package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/mergepatch"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	kjson "sigs.k8s.io/json"

	"github.com/apikit-dev/apikit/patch"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/scheme/openapi"
)

// The fixture kinds of the strategic merge differential: one Go type each, read by
// apikit (through its OpenAPI schema) and by apimachinery (through the struct tags
// patchStrategy and patchMergeKey), so both sides merge by the same declarations.

// smpObject is a kind with every patch strategy strategic merge distinguishes.
type smpObject struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
	Spec              smpSpec `json:"spec,omitempty"`
}

type smpSpec struct {
	Name     string            `json:"name,omitempty"`
	Count    *int32            `json:"count,omitempty"`
	Enabled  bool              `json:"enabled,omitempty"`
	Labels   map[string]string `json:"labels,omitempty"`
	Items    []smpItem         `json:"items,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
	Tags     []string          `json:"tags,omitempty" patchStrategy:"merge"`
	Ports    []smpPort         `json:"ports,omitempty" patchStrategy:"merge" patchMergeKey:"port"`
	Args     []string          `json:"args,omitempty"`
	Rules    []smpPort         `json:"rules,omitempty"`
	Replaced []smpItem         `json:"replaced,omitempty" patchStrategy:"replace"`
	Source   *smpSource        `json:"source,omitempty" patchStrategy:"retainKeys"`
	Sources  []smpSource       `json:"sources,omitempty" patchStrategy:"merge,retainKeys" patchMergeKey:"name"`
	Nested   *smpNested        `json:"nested,omitempty"`
}

type smpItem struct {
	Name  string            `json:"name"`
	Value string            `json:"value,omitempty"`
	Env   []smpEnv          `json:"env,omitempty" patchStrategy:"merge" patchMergeKey:"key"`
	Opts  map[string]string `json:"opts,omitempty"`
	Flags []string          `json:"flags,omitempty" patchStrategy:"merge"`
}

type smpEnv struct {
	Key   string `json:"key"`
	Value string `json:"value,omitempty"`
}

type smpPort struct {
	Port     int32  `json:"port"`
	Protocol string `json:"protocol,omitempty"`
}

type smpSource struct {
	Name string   `json:"name,omitempty"`
	Type string   `json:"type,omitempty"`
	Host *smpHost `json:"host,omitempty"`
	Disk *smpHost `json:"disk,omitempty"`
}

type smpHost struct {
	Path string `json:"path,omitempty"`
	Size int64  `json:"size,omitempty"`
}

// smpNested nests a second level of maps and merge lists. It does not refer to
// itself: apikit's expanded schema stops at a recursive reference, so a merge list
// below the recursion is replaced, not merged (a known gap, see the report of issue 11).
type smpNested struct {
	Note  string            `json:"note,omitempty"`
	Inner *smpInner         `json:"inner,omitempty"`
	Items []smpEnv          `json:"items,omitempty" patchStrategy:"merge" patchMergeKey:"key"`
	Data  map[string]string `json:"data,omitempty"`
}

type smpInner struct {
	Note  string            `json:"note,omitempty"`
	Items []smpEnv          `json:"items,omitempty" patchStrategy:"merge" patchMergeKey:"key"`
	Data  map[string]string `json:"data,omitempty"`
}

// smpPod mirrors core/v1 Pod with k8s.io/api's own PodSpec, the richest real corpus
// of patch strategies (containers, env, ports, volume mounts, volumes with retainKeys).
type smpPod struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
	Spec              corev1.PodSpec `json:"spec,omitempty"`
}

var (
	smpObjectGVK = scheme.GroupVersionKind{Group: "diff.example.com", Version: "v1", Kind: "SMPObject"}
	smpPodGVK    = scheme.GroupVersionKind{Group: "diff.example.com", Version: "v1", Kind: "SMPPod"}
)

func smpSchema(t *testing.T, gvk scheme.GroupVersionKind, obj scheme.Kinded) *openapi.Schema {
	t.Helper()
	s := scheme.New()
	s.AddKnownTypeWithName(gvk, obj)
	sch, err := patch.SchemaFor(s, gvk)
	if err != nil {
		t.Fatalf("schema of %v: %v", gvk, err)
	}
	return sch
}

// smpMinInputs is what "done" asks of the differential: this many generated inputs
// per fixture kind, all compared.
const smpMinInputs = 10000

// TestStrategicMergeDiff_MatchesApimachinery feeds generated (live object, patch) pairs
// to apikit's StrategicMerge and to apimachinery's StrategicMergeMapPatch (the call
// kube-apiserver makes) and requires the same outcome: the same patched document
// (list order included: kube's is deterministic) or the same error as the client
// sees it (status class and message).
func TestStrategicMergeDiff_MatchesApimachinery(t *testing.T) {
	fixtures := []struct {
		name string
		gvk  scheme.GroupVersionKind
		obj  scheme.Kinded
		seed uint64
	}{
		{"fixture with every strategy", smpObjectGVK, &smpObject{}, 0x5eed0001},
		{"core/v1 PodSpec mirror", smpPodGVK, &smpPod{}, 0x5eed0002},
	}
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			sch := smpSchema(t, f.gvk, f.obj)
			typ := reflect.TypeOf(f.obj).Elem()
			g := newSMPGen(f.seed)
			ran, failed := 0, 0
			for i := 0; i < smpMinInputs; i++ {
				orig := g.original(typ)
				p := g.patch(typ, orig)
				ran++
				if msg := compareStrategic(orig, p, sch, reflect.New(typ).Interface()); msg != "" {
					failed++
					if failed <= 5 {
						t.Errorf("seed %#x input %d:\noriginal: %s\npatch:    %s\n%s", f.seed, i, orig, p, msg)
					}
				}
			}
			t.Logf("%d generated inputs, %d mismatches (seed %#x)", ran, failed, f.seed)
			if ran < smpMinInputs {
				t.Fatalf("ran %d inputs, want at least %d (seed %#x)", ran, smpMinInputs, f.seed)
			}
		})
	}
}

// smpOutcome is what a client sees of a strategic merge: the patched document, or an
// error's status code and message.
type smpOutcome struct {
	doc  any
	code int
	msg  string
}

func (o smpOutcome) String() string {
	if o.code != 0 {
		return fmt.Sprintf("%d %q", o.code, o.msg)
	}
	b, _ := json.Marshal(o.doc)
	return string(b)
}

// compareStrategic runs both implementations and describes a difference ("" if none).
func compareStrategic(orig, p []byte, sch *openapi.Schema, dataStruct any) string {
	want := kubeStrategic(orig, p, dataStruct)
	got := apikitStrategic(orig, p, sch)
	if acceptable(want, got) {
		return ""
	}
	// apimachinery visits a patch map in Go's random map order, so when a patch holds
	// two errors (or an error and a panic) it reports either, and a primitive list
	// patched both ways ends in either order: run it again, and accept any outcome
	// it can have (its
	// choices are far from uniform, hence the many runs, which only mismatches pay).
	for range 512 {
		if acceptable(kubeStrategic(orig, p, dataStruct), got) {
			return ""
		}
	}
	return fmt.Sprintf("apimachinery: %v\napikit:       %v", want, got)
}

// unknownMapDirective is the one intended difference in errors: a map's $patch
// directive other than replace or delete is a 400 "unknown patch type: X" in apikit
// (package rest's tests hold it), where kube-apiserver answers a 500 whose message
// also prints the map ("unknown patch type: X in map: map[...]").
func unknownMapDirective(want, got smpOutcome) bool {
	rest, ok := strings.CutPrefix(want.msg, "unknown patch type: ")
	directive, _, inMap := strings.Cut(rest, " in map: ")
	return ok && inMap && want.code == http.StatusUnprocessableEntity &&
		got.code == http.StatusBadRequest && got.msg == "unknown patch type: "+directive
}

// retainKeysRejected is the other intended difference: a patched field that its
// $retainKeys list leaves out is a 422 in apikit (package patch's tests hold it: the
// patch is well-formed but does not apply), a 400 in kube-apiserver; the message is
// kube's.
func retainKeysRejected(want, got smpOutcome) bool {
	const msg = "invalid patch format of retainKeys"
	return want.code == http.StatusBadRequest && want.msg == msg && got.code == http.StatusUnprocessableEntity && got.msg == msg
}

// acceptable reports whether apikit's outcome got matches kube's want, up to the
// intended differences.
func acceptable(want, got smpOutcome) bool {
	// Intended difference (patch/doc.go): strategic merge failures kube-apiserver
	// answers with a 500 (anything but its listed 400 and 422 errors) are a 422 here,
	// carrying the same message.
	if want.code == http.StatusInternalServerError {
		want.code = http.StatusUnprocessableEntity
	}
	// apimachinery panics on some malformed patches (a map in a primitive list, a list
	// in a $setElementOrder list, a null first item); kube-apiserver's panic handler
	// answers a bare 500. apikit must answer an error of its own, not a result.
	if want.code == codeKubePanicked {
		return got.code != 0
	}
	return sameOutcome(want, got) || unknownMapDirective(want, got) || retainKeysRejected(want, got)
}

func sameOutcome(want, got smpOutcome) bool {
	return want.code == got.code && want.msg == got.msg && reflect.DeepEqual(want.doc, got.doc)
}

// kubeStrategic is what kube-apiserver's strategicPatchObject does with the live
// object's map and the request body, down to the status of each error
// (interpretStrategicMergePatchError; unlisted errors become a 500).
func kubeStrategic(orig, p []byte, dataStruct any) smpOutcome {
	var om, pm map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(orig, &om); err != nil {
		panic(err)
	}
	om = exactCapacity(om).(map[string]any)
	if err := kjson.UnmarshalCaseSensitivePreserveInts(p, &pm); err != nil {
		return smpOutcome{code: http.StatusBadRequest, msg: err.Error()}
	}
	out, err := kubeMerge(om, pm, dataStruct)
	switch {
	case errors.Is(err, errKubePanicked):
		return smpOutcome{code: codeKubePanicked, msg: err.Error()}
	case err == nil:
		return smpOutcome{doc: normalizeJSON(out)}
	case slices.Contains([]error{mergepatch.ErrBadJSONDoc, mergepatch.ErrBadPatchFormatForPrimitiveList,
		mergepatch.ErrBadPatchFormatForRetainKeys, mergepatch.ErrBadPatchFormatForSetElementOrderList,
		mergepatch.ErrUnsupportedStrategicMergePatchFormat}, err):
		return smpOutcome{code: http.StatusBadRequest, msg: err.Error()}
	case err == mergepatch.ErrNoListOfLists || err == mergepatch.ErrPatchContentNotMatchRetainKeys:
		return smpOutcome{code: http.StatusUnprocessableEntity, msg: err.Error()}
	}
	return smpOutcome{code: http.StatusInternalServerError, msg: err.Error()}
}

// codeKubePanicked marks an input on which apimachinery panics (kube-apiserver's
// panic handler then answers a bare 500).
const codeKubePanicked = -2

var errKubePanicked = errors.New("apimachinery panicked")

func kubeMerge(om, pm map[string]any, dataStruct any) (out map[string]any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", errKubePanicked, r)
		}
	}()
	return strategicpatch.StrategicMergeMapPatch(om, pm, dataStruct)
}

// exactCapacity copies decoded JSON with every list's capacity equal to its length, as
// runtime.DefaultUnstructuredConverter builds the live object's map in kube-apiserver
// (apimachinery's merge appends to and deletes from the live lists in place, so the
// capacity shows in its results).
func exactCapacity(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = exactCapacity(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = exactCapacity(e)
		}
		return out
	}
	return v
}

// apikitStrategic is apikit's StrategicMerge with the status package rest gives its
// errors (patchStatus): ErrMalformed 400, ErrRejected 422, each with its Message.
func apikitStrategic(orig, p []byte, sch *openapi.Schema) smpOutcome {
	out, err := patch.StrategicMerge(orig, p, sch)
	if err != nil {
		var pe *patch.Error
		if !errors.As(err, &pe) {
			return smpOutcome{code: http.StatusInternalServerError, msg: err.Error()}
		}
		code := http.StatusUnprocessableEntity
		if errors.Is(err, patch.ErrMalformed) {
			code = http.StatusBadRequest
		}
		return smpOutcome{code: code, msg: pe.Message}
	}
	var doc any
	if err := json.Unmarshal(out, &doc); err != nil {
		return smpOutcome{code: -1, msg: "apikit produced invalid JSON: " + err.Error()}
	}
	return smpOutcome{doc: normalizeJSON(doc)}
}

// normalizeJSON turns a decoded document into plain JSON values (float64 numbers), so
// that int64, json.Number and float64 compare alike.
func normalizeJSON(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return out
}

// smpGen generates originals (a random object of the fixture type, as the server
// stores it) and patches aimed at it: merge-key collisions, nulls, every directive,
// and now and then a malformed one.
type smpGen struct {
	r *rand.Rand
}

func newSMPGen(seed uint64) *smpGen {
	return &smpGen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

func (g *smpGen) chance(p float64) bool { return g.r.Float64() < p }

func (g *smpGen) pick(options ...string) string { return options[g.r.IntN(len(options))] }

var jsonMarshalerType = reflect.TypeFor[json.Marshaler]()

// smpField is a JSON field of a struct type with its patch tags.
type smpField struct {
	name     string
	typ      reflect.Type
	strategy string
	mergeKey string
}

// fieldsOf lists the JSON fields of struct type t, skipping the embedded TypeMeta and
// ObjectMeta (the generator patches metadata on its own) and types with their own JSON
// encoding (quantities, times, int-or-strings), whose value space is not the point.
func fieldsOf(t reflect.Type) []smpField {
	var out []smpField
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			out = append(out, fieldsOf(f.Type)...) // an inlined struct
			continue
		}
		if !f.IsExported() || name == "" || name == "-" {
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if reflect.PointerTo(ft).Implements(jsonMarshalerType) || ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Uint8 {
			continue
		}
		if ft.Kind() == reflect.Slice && reflect.PointerTo(ft.Elem()).Implements(jsonMarshalerType) {
			continue
		}
		if ft.Kind() == reflect.Map && reflect.PointerTo(ft.Elem()).Implements(jsonMarshalerType) {
			continue
		}
		out = append(out, smpField{name: name, typ: f.Type, strategy: f.Tag.Get("patchStrategy"), mergeKey: f.Tag.Get("patchMergeKey")})
	}
	return out
}

func elemType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// original returns a random object of type t as the server would store it: generated
// as JSON, then decoded into t and encoded again (so it is exactly what t can hold,
// with unique merge keys as validation would leave them).
func (g *smpGen) original(t reflect.Type) []byte {
	doc := map[string]any{"metadata": g.metadata()}
	specField, _ := t.FieldByName("Spec")
	doc["spec"] = g.value(specField.Type, "", 0)
	b, err := json.Marshal(doc)
	if err != nil {
		panic(err)
	}
	v := reflect.New(t).Interface()
	if err := json.Unmarshal(b, v); err != nil {
		panic(fmt.Sprintf("generated original does not decode: %v\n%s", err, b))
	}
	out, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return out
}

func (g *smpGen) metadata() map[string]any {
	m := map[string]any{"name": "obj"}
	if g.chance(0.5) {
		m["labels"] = g.stringMap()
	}
	if g.chance(0.4) {
		m["finalizers"] = g.uniqueStrings()
	}
	return m
}

// Small value pools make merge keys and set members collide between original and patch.
var smpStrings = []string{"a", "b", "c", "d"}

func (g *smpGen) str() string { return smpStrings[g.r.IntN(len(smpStrings))] }

func (g *smpGen) stringMap() map[string]any {
	m := map[string]any{}
	for range g.r.IntN(3) {
		m[g.str()] = g.str()
	}
	return m
}

func (g *smpGen) uniqueStrings() []any {
	var out []any
	for _, s := range smpStrings {
		if g.chance(0.4) {
			out = append(out, s)
		}
	}
	g.r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// scalar returns a value of scalar kind k from a small pool.
func (g *smpGen) scalar(k reflect.Kind) any {
	switch k {
	case reflect.String:
		return g.str()
	case reflect.Bool:
		return g.chance(0.5)
	case reflect.Float32, reflect.Float64:
		return float64(g.r.IntN(4)) / 2
	default:
		return int64(g.r.IntN(4) + 1)
	}
}

// value generates a JSON value of Go type t (field depth d); mergeKey is the merge key
// of a list of t's, which stays unique in the list.
func (g *smpGen) value(t reflect.Type, mergeKey string, d int) any {
	t = elemType(t)
	switch t.Kind() {
	case reflect.Struct:
		m := map[string]any{}
		fs := fieldsOf(t)
		for _, f := range fs {
			if f.name == mergeKey || (d < 3 && g.chance(2.0/float64(len(fs)+1))) {
				m[f.name] = g.value(f.typ, f.mergeKey, d+1)
			}
		}
		return m
	case reflect.Map:
		return g.stringMapOf(t.Elem(), d)
	case reflect.Slice:
		var out []any
		seen := map[string]bool{}
		for range g.r.IntN(4) {
			v := g.value(t.Elem(), "", d+1)
			if mergeKey != "" {
				m := v.(map[string]any)
				m[mergeKey] = g.scalar(elemType(fieldType(t.Elem(), mergeKey)).Kind())
				k := fmt.Sprint(m[mergeKey])
				if seen[k] {
					continue
				}
				seen[k] = true
			}
			out = append(out, v)
		}
		return out
	}
	return g.scalar(t.Kind())
}

func (g *smpGen) stringMapOf(elem reflect.Type, d int) map[string]any {
	m := map[string]any{}
	for range g.r.IntN(3) {
		m[g.str()] = g.value(elem, "", d+1)
	}
	return m
}

// fieldType is the type of the JSON field name of struct type t.
func fieldType(t reflect.Type, name string) reflect.Type {
	for _, f := range fieldsOf(elemType(t)) {
		if f.name == name {
			return f.typ
		}
	}
	panic(fmt.Sprintf("%v has no field %q", t, name))
}

// patch generates a strategic merge patch for the object orig of type t.
func (g *smpGen) patch(t reflect.Type, orig []byte) []byte {
	var live map[string]any
	if err := json.Unmarshal(orig, &live); err != nil {
		panic(err)
	}
	p := map[string]any{}
	if g.chance(0.2) {
		meta, _ := live["metadata"].(map[string]any)
		mp := map[string]any{}
		if g.chance(0.6) {
			mp["labels"] = g.mapPatch(reflect.TypeFor[map[string]string](), asMap(meta["labels"]), 1)
		} else {
			f := smpField{name: "finalizers", typ: reflect.TypeFor[[]string](), strategy: "merge"}
			g.listPatch(mp, f, asList(meta["finalizers"]), 1)
		}
		p["metadata"] = mp
	}
	specField, _ := t.FieldByName("Spec")
	if len(p) == 0 || g.chance(0.8) {
		p["spec"] = g.structPatch(specField.Type, "", asMap(live["spec"]), 0)
	}
	if g.chance(0.01) {
		p["$patch"] = g.pick("replace", "delete", "merge")
	}
	b, err := json.Marshal(p)
	if err != nil {
		panic(err)
	}
	return b
}

func asMap(v any) map[string]any { m, _ := v.(map[string]any); return m }
func asList(v any) []any         { l, _ := v.([]any); return l }

// structPatch patches some fields of a struct of type t whose live value is live.
func (g *smpGen) structPatch(t reflect.Type, strategy string, live map[string]any, d int) map[string]any {
	t = elemType(t)
	fs := fieldsOf(t)
	p := map[string]any{}
	// Fields the live object has are patched more often than fields it lacks.
	for _, f := range fs {
		_, has := live[f.name]
		prob := 1.0 / float64(len(fs)+1)
		if has {
			prob = 0.5
		}
		if d > 3 || !g.chance(prob) {
			continue
		}
		g.fieldPatch(p, f, live[f.name], d+1)
	}
	if strings.Contains(strategy, "retainKeys") && g.chance(0.5) {
		var keys []any
		for _, f := range fs {
			if _, patched := p[f.name]; (patched && p[f.name] != nil && !g.chance(0.05)) || g.chance(0.3) {
				keys = append(keys, f.name)
			}
		}
		if g.chance(0.03) {
			p["$retainKeys"] = g.pick("x", "")
		} else {
			p["$retainKeys"] = keys
		}
	}
	if g.chance(0.05) {
		p["$patch"] = g.directive()
	}
	return p
}

// directive is a $patch value, now and then one kube does not know.
func (g *smpGen) directive() any {
	if g.chance(0.05) {
		return g.pick("boom", "Replace")
	}
	return g.pick("replace", "delete", "merge")
}

// fieldPatch sets p's patch for field f, whose live value is live.
func (g *smpGen) fieldPatch(p map[string]any, f smpField, live any, d int) {
	if g.chance(0.1) {
		p[f.name] = nil
		return
	}
	ft := elemType(f.typ)
	switch ft.Kind() {
	case reflect.Struct:
		p[f.name] = g.structPatch(ft, f.strategy, asMap(live), d)
	case reflect.Map:
		p[f.name] = g.mapPatch(ft, asMap(live), d)
	case reflect.Slice:
		g.listPatch(p, f, asList(live), d)
	default:
		p[f.name] = g.scalar(ft.Kind())
	}
}

// mapPatch patches a map[string]X: new and existing keys, nulls, a directive.
func (g *smpGen) mapPatch(t reflect.Type, live map[string]any, d int) map[string]any {
	p := map[string]any{}
	for range g.r.IntN(3) + 1 {
		k := g.str()
		switch {
		case g.chance(0.2):
			p[k] = nil
		case elemType(t.Elem()).Kind() == reflect.Struct:
			p[k] = g.structPatch(t.Elem(), "", asMap(live[k]), d+1)
		default:
			p[k] = g.value(t.Elem(), "", d+1)
		}
	}
	if g.chance(0.05) {
		p["$patch"] = g.directive()
	}
	return p
}

// listPatch sets p's patch of the list field f: for merging lists, items by merge key
// (existing or new, deleted, or with their own directives), the list's $patch replace
// item, and the parallel $setElementOrder and $deleteFromPrimitiveList lists; for other
// lists, a new list.
func (g *smpGen) listPatch(p map[string]any, f smpField, live []any, d int) {
	elem := elemType(f.typ.Elem())
	merging := slices.Contains(strings.Split(f.strategy, ","), "merge")
	if !merging {
		p[f.name] = g.value(f.typ, f.mergeKey, d)
		return
	}
	var items []any
	if elem.Kind() != reflect.Struct {
		for range g.r.IntN(3) {
			items = append(items, g.scalar(elem.Kind()))
		}
		if g.chance(0.3) {
			var del []any
			for range g.r.IntN(3) + 1 {
				del = append(del, g.scalar(elem.Kind()))
			}
			p["$deleteFromPrimitiveList/"+f.name] = del
		}
	} else {
		keyKind := elemType(fieldType(elem, f.mergeKey)).Kind()
		for range g.r.IntN(3) + 1 {
			var item map[string]any
			key := g.scalar(keyKind)
			if existing := g.existingItem(live, f.mergeKey); existing != nil && g.chance(0.5) {
				key = existing[f.mergeKey]
				item = g.structPatch(elem, "", existing, d+1)
			} else {
				item = asMap(g.value(elem, f.mergeKey, d+1))
			}
			switch {
			case g.chance(0.02):
				delete(item, f.mergeKey) // kube rejects an item without its merge key
			default:
				item[f.mergeKey] = key
			}
			if g.chance(0.1) {
				item = map[string]any{f.mergeKey: key, "$patch": "delete"}
			}
			items = append(items, item)
		}
	}
	if g.chance(0.08) {
		items = append(items, map[string]any{"$patch": "replace"})
	}
	if g.chance(0.02) {
		items = append(items, []any{"nested"}) // a list in a list
	}
	p[f.name] = items
	if g.chance(0.3) {
		p["$setElementOrder/"+f.name] = g.elementOrder(items, live, f.mergeKey)
	}
}

func (g *smpGen) existingItem(live []any, key string) map[string]any {
	if len(live) == 0 {
		return nil
	}
	m := asMap(live[g.r.IntN(len(live))])
	if m == nil || m[key] == nil {
		return nil
	}
	return m
}

// elementOrder builds a $setElementOrder list: the keys of live and patched items
// (as kubectl sends it), shuffled, sometimes with one left out.
func (g *smpGen) elementOrder(items, live []any, key string) []any {
	var keys []any
	add := func(v any) {
		if key != "" {
			m := asMap(v)
			if m == nil || m[key] == nil || m["$patch"] != nil {
				return
			}
			v = m[key]
		}
		if !slices.ContainsFunc(keys, func(k any) bool { return reflect.DeepEqual(k, v) }) {
			keys = append(keys, v)
		}
	}
	for _, v := range live {
		add(v)
	}
	for _, v := range items {
		add(v)
	}
	g.r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	if len(keys) > 0 && g.chance(0.1) {
		keys = keys[1:]
	}
	if key == "" {
		return keys
	}
	out := make([]any, len(keys))
	for i, k := range keys {
		out[i] = map[string]any{key: k}
	}
	return out
}
