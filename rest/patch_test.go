package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/codec/cbor"

	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/scheme/openapi"
)

const (
	mergeCT     = "application/merge-patch+json"
	jsonPatchCT = "application/json-patch+json"
	strategicCT = "application/strategic-merge-patch+json"
	applyCT     = "application/apply-patch+yaml"
)

func applyYAML(name, color string, parts ...string) string {
	s := "apiVersion: toys.example.com/v1\nkind: Widget\nmetadata:\n  name: " + name + "\nspec:\n  color: " + color + "\n"
	if len(parts) > 0 {
		s += "  parts:\n"
		for _, p := range parts {
			s += "  - name: " + p + "\n    count: 1\n"
		}
	}
	return s
}

// managedSummary renders metadata.managedFields as "manager/operation[/subresource]=fieldsV1" lines.
func managedSummary(t *testing.T, obj map[string]any) string {
	t.Helper()
	entries, _ := get(obj, "metadata", "managedFields").([]any)
	var lines []string
	for _, e := range entries {
		m := e.(map[string]any)
		s := m["manager"].(string) + "/" + m["operation"].(string)
		if sub, ok := m["subresource"].(string); ok {
			s += "/" + sub
		}
		if m["fieldsType"] != "FieldsV1" || m["apiVersion"] != "toys.example.com/v1" || m["time"] == nil {
			t.Errorf("entry %v lacks fieldsType FieldsV1, apiVersion or time", m)
		}
		b, _ := json.Marshal(m["fieldsV1"])
		lines = append(lines, s+"="+string(b))
	}
	return strings.Join(lines, "\n")
}

func partNames(obj map[string]any) string {
	parts, _ := get(obj, "spec", "parts").([]any)
	var names []string
	for _, p := range parts {
		names = append(names, p.(map[string]any)["name"].(string))
	}
	return strings.Join(names, ",")
}

func TestPatch_EachContentTypeAppliesToTheStoredObject(t *testing.T) {
	s := newServer(t, nil)
	tests := []struct {
		name, contentType, query, body string
		wantCode                       int
		check                          func(t *testing.T, obj map[string]any)
	}{
		{"merge patch", mergeCT, "", `{"spec":{"color":"green"}}`, 200, func(t *testing.T, obj map[string]any) {
			if c := get(obj, "spec", "color"); c != "green" {
				t.Errorf("color = %v", c)
			}
		}},
		{"json patch", jsonPatchCT, "", `[{"op":"test","path":"/spec/color","value":"blue"},{"op":"replace","path":"/spec/color","value":"red"}]`, 200, func(t *testing.T, obj map[string]any) {
			if c := get(obj, "spec", "color"); c != "red" {
				t.Errorf("color = %v", c)
			}
		}},
		{"strategic merge patch merges parts by name", strategicCT, "", `{"spec":{"parts":[{"name":"bolt","count":2}]}}`, 200, func(t *testing.T, obj map[string]any) {
			// A new item comes before the live items that follow no patched item, as
			// kube-apiserver orders them.
			if got := partNames(obj); got != "bolt,wheel" {
				t.Errorf("parts = %s, want bolt,wheel", got)
			}
		}},
		{"server-side apply forced over the creator", applyCT, "?fieldManager=tool&force=true", "", 200, func(t *testing.T, obj map[string]any) {
			if c := get(obj, "spec", "color"); c != "green" {
				t.Errorf("color = %v", c)
			}
			if !strings.Contains(managedSummary(t, obj), "tool/Apply=") {
				t.Errorf("managedFields lack tool's Apply entry:\n%s", managedSummary(t, obj))
			}
		}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := "w" + string(rune('a'+i))
			r := s.do("POST", widgetsPath, "application/json", `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"`+name+`"},"spec":{"color":"blue","parts":[{"name":"wheel","count":4}]}}`)
			if r.code != http.StatusCreated {
				t.Fatalf("create: %d %s", r.code, r.body)
			}
			body := tt.body
			if tt.contentType == applyCT {
				body = applyYAML(name, "green", "wheel")
			}
			r = s.do("PATCH", widgetsPath+"/"+name+tt.query, tt.contentType, body)
			if r.code != tt.wantCode {
				t.Fatalf("PATCH: %d %s", r.code, r.body)
			}
			tt.check(t, r.json(t))
			stored := s.do("GET", widgetsPath+"/"+name, "", "")
			tt.check(t, stored.json(t))
		})
	}
}

func TestPatch_UnsupportedTypesAre415WithTheAcceptedList(t *testing.T) {
	s := newServer(t, nil)
	s.create("u", "blue")
	for _, ct := range []string{"text/plain", "application/json"} {
		r := s.do("PATCH", widgetsPath+"/u", ct, "{}")
		st := r.json(t)
		want := "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml, application/apply-patch+cbor"
		if r.code != 415 || st["reason"] != "UnsupportedMediaType" || st["message"] != want {
			t.Errorf("%s: %d %s", ct, r.code, r.body)
		}
	}
}

func TestPatch_StrategicMergeOnUnstructuredKindsIs415LikeCustomResources(t *testing.T) {
	gvk := scheme.GroupVersionKind{Group: "extra.example.com", Version: "v1", Kind: "Gadget"}
	s := newServer(t, func(o *rest.Options) {
		openapi.Register(o.Scheme, gvk, &openapi.Schema{Type: "object", Properties: map[string]*openapi.Schema{
			"spec": {Type: "object", Properties: map[string]*openapi.Schema{"size": {Type: "integer"}}},
		}})
		o.Scheme.AddUnstructuredKind(gvk.GroupVersion().WithKind("GadgetList"))
		if err := o.Scheme.AddResource(scheme.Resource{Group: gvk.Group, Kind: "Gadget", ListKind: "GadgetList", Plural: "gadgets", Singular: "gadget", Namespaced: true, StorageVersion: "v1"}); err != nil {
			t.Fatal(err)
		}
	})
	const path = "/apis/extra.example.com/v1/namespaces/default/gadgets"
	r := s.do("POST", path, "application/json", `{"apiVersion":"extra.example.com/v1","kind":"Gadget","metadata":{"name":"g"},"spec":{"size":1}}`)
	if r.code != 201 {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	r = s.do("PATCH", path+"/g", strategicCT, `{"spec":{"size":2}}`)
	want := "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/apply-patch+cbor"
	if st := r.json(t); r.code != 415 || st["message"] != want {
		t.Errorf("strategic: %d %s", r.code, r.body)
	}
	r = s.do("PATCH", path+"/g?fieldManager=m&force=true", applyCT, "apiVersion: extra.example.com/v1\nkind: Gadget\nmetadata:\n  name: g\nspec:\n  size: 3\n")
	if r.code != 200 || get(r.json(t), "spec", "size") != float64(3) {
		t.Errorf("apply on an unstructured kind: %d %s", r.code, r.body)
	}
	r = s.do("PATCH", path+"/g", mergeCT, `{"spec":{"size":4}}`)
	if r.code != 200 || get(r.json(t), "spec", "size") != float64(4) {
		t.Errorf("merge on an unstructured kind: %d %s", r.code, r.body)
	}
}

func TestPatch_FailuresNameTheProblemAndChangeNothing(t *testing.T) {
	s := newServer(t, nil)
	before := s.create("f", "blue")
	rv := get(before, "metadata", "resourceVersion")
	tooManyOps := "[" + strings.Repeat(`{"op":"test","path":"/spec/color","value":"blue"},`, 10000) + `{"op":"remove","path":"/spec"}]`
	copyBomb := `[{"op":"add","path":"/spec/pad","value":{"s":"` + strings.Repeat("x", 1024) + `"}}`
	for i := range 13 {
		copyBomb += fmt.Sprintf(`,{"op":"copy","from":"/spec/pad","path":"/spec/pad/k%d"}`, i)
	}
	copyBomb += "]"
	tests := []struct {
		name, contentType, query, body string
		wantCode                       int
		wantReason, wantMessage        string
	}{
		{"merge patch that is not JSON", mergeCT, "", `{"spec":`, 400, "BadRequest", "error decoding patch: invalid JSON document"},
		{"json patch that is not a list", jsonPatchCT, "", `{"op":"add"}`, 400, "BadRequest", ""},
		{"json patch whose test fails", jsonPatchCT, "", `[{"op":"test","path":"/spec/color","value":"red"}]`, 422, "Invalid", "the server rejected our request due to an error in our request"},
		{"json patch on a missing path", jsonPatchCT, "", `[{"op":"replace","path":"/spec/size","value":1}]`, 422, "Invalid", ""},
		{"json patch of more than 10,000 operations", jsonPatchCT, "", tooManyOps, 413, "RequestEntityTooLarge",
			"Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001"},
		{"json patch whose copies grow past 3 MiB", jsonPatchCT, "", copyBomb, 422, "Invalid", "the server rejected our request due to an error in our request"},
		{"strategic item without its merge key", strategicCT, "", `{"spec":{"parts":[{"count":1}]}}`, 422, "Invalid", ""},
		{"strategic unknown directive", strategicCT, "", `{"spec":{"$patch":"boom"}}`, 400, "BadRequest", "unknown patch type: boom"},
		{"patch that renames the object", mergeCT, "", `{"metadata":{"name":"g"}}`, 400, "BadRequest", "the name of the object (g) does not match the name on the URL (f)"},
		{"stale resourceVersion in the body", mergeCT, "", `{"metadata":{"resourceVersion":"1000"},"spec":{"color":"green"}}`, 409, "Conflict", ""},
		{"invalid result", mergeCT, "", `{"spec":{"color":"pink"}}`, 422, "Invalid", ""},
		{"unknown field under Strict", mergeCT, "?fieldValidation=Strict", `{"spec":{"size":1}}`, 400, "BadRequest", `strict decoding error: unknown field "spec.size"`},
		{"force on a non-apply patch", mergeCT, "?force=true", `{}`, 422, "Invalid", `PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch`},
		{"apply without a field manager", applyCT, "", applyYAML("f", "green"), 422, "Invalid", `PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch`},
		{"apply of another kind", applyCT, "?fieldManager=m", "apiVersion: toys.example.com/v1\nkind: Warehouse\nmetadata:\n  name: f\n", 400, "BadRequest", "invalid object type: toys.example.com/v1, Kind=Warehouse"},
		{"apply of another name", applyCT, "?fieldManager=m&force=true", applyYAML("g", "green"), 400, "BadRequest", "the name of the object (g) does not match the name on the URL (f)"},
		{"apply that is not YAML", applyCT, "?fieldManager=m", "a: [", 400, "BadRequest", ""},
		{"apply with managedFields", applyCT, "?fieldManager=m", "apiVersion: toys.example.com/v1\nkind: Widget\nmetadata:\n  name: f\n  managedFields: []\n", 400, "BadRequest", "metadata.managedFields must be nil"},
		{"apply with an undeclared field", applyCT, "?fieldManager=m", applyYAML("f", "green") + "  size: 3\n", 400, "BadRequest",
			"failed to create typed patch object (/f; toys.example.com/v1, Kind=Widget): .spec.size: field not declared in schema"},
		{"apply with a duplicate field under Strict", applyCT, "?fieldManager=m&fieldValidation=Strict", applyYAML("f", "green") + "  color: red\n", 400, "BadRequest", ""},
		{"apply conflicting with the creator", applyCT, "?fieldManager=m", applyYAML("f", "green"), 409, "Conflict",
			`Apply failed with 1 conflict: conflict with "Go-http-client" using toys.example.com/v1: .spec.color`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := s.do("PATCH", widgetsPath+"/f"+tt.query, tt.contentType, tt.body)
			st := r.json(t)
			if r.code != tt.wantCode || st["reason"] != tt.wantReason {
				t.Fatalf("got %d %s, want %d %s", r.code, r.body, tt.wantCode, tt.wantReason)
			}
			if tt.wantMessage != "" && st["message"] != tt.wantMessage {
				t.Errorf("message = %q, want %q", st["message"], tt.wantMessage)
			}
			after := s.do("GET", widgetsPath+"/f", "", "").json(t)
			if got := get(after, "metadata", "resourceVersion"); got != rv {
				t.Errorf("resourceVersion changed from %v to %v", rv, got)
			}
		})
	}
}

func TestApply_ConflictCausesForceAndPruning(t *testing.T) {
	s := newServer(t, nil)
	r := s.do("PATCH", widgetsPath+"/a?fieldManager=alice", applyCT, applyYAML("a", "red", "wheel", "bolt"))
	if r.code != http.StatusCreated {
		t.Fatalf("apply that creates: %d %s", r.code, r.body)
	}
	want := `alice/Apply={"f:spec":{"f:color":{},"f:parts":{"k:{\"name\":\"bolt\"}":{".":{},"f:count":{},"f:name":{}},"k:{\"name\":\"wheel\"}":{".":{},"f:count":{},"f:name":{}}}}}`
	if got := managedSummary(t, r.json(t)); got != want {
		t.Errorf("after create:\n%s\nwant\n%s", got, want)
	}
	r = s.do("PATCH", widgetsPath+"/a?fieldManager=bob", applyCT, applyYAML("a", "blue", "axle"))
	st := r.json(t)
	causes, _ := get(st, "details", "causes").([]any)
	if r.code != 409 || len(causes) != 1 {
		t.Fatalf("conflicting apply: %d %s", r.code, r.body)
	}
	if c := causes[0].(map[string]any); c["reason"] != "FieldManagerConflict" || c["message"] != `conflict with "alice"` || c["field"] != ".spec.color" {
		t.Errorf("cause = %v", c)
	}
	r = s.do("PATCH", widgetsPath+"/a?fieldManager=bob&force=true", applyCT, applyYAML("a", "blue", "axle"))
	obj := r.json(t)
	if r.code != 200 || get(obj, "spec", "color") != "blue" || partNames(obj) != "wheel,bolt,axle" {
		t.Fatalf("forced apply: %d %s", r.code, r.body)
	}
	r = s.do("PATCH", widgetsPath+"/a?fieldManager=alice", applyCT, applyYAML("a", "blue", "wheel"))
	obj = r.json(t)
	if r.code != 200 || partNames(obj) != "wheel,axle" {
		t.Fatalf("alice drops bolt: %d parts %s", r.code, partNames(obj))
	}
	want = `alice/Apply={"f:spec":{"f:color":{},"f:parts":{"k:{\"name\":\"wheel\"}":{".":{},"f:count":{},"f:name":{}}}}}` + "\n" +
		`bob/Apply={"f:spec":{"f:color":{},"f:parts":{"k:{\"name\":\"axle\"}":{".":{},"f:count":{},"f:name":{}}}}}`
	if got := managedSummary(t, obj); got != want {
		t.Errorf("after pruning:\n%s\nwant\n%s", got, want)
	}
}

func TestApply_ToStatusChangesOnlyStatus(t *testing.T) {
	s := newServer(t, nil)
	s.create("st", "blue")
	r := s.do("PATCH", widgetsPath+"/st/status?fieldManager=controller", applyCT,
		"apiVersion: toys.example.com/v1\nkind: Widget\nmetadata:\n  name: st\nspec:\n  color: red\nstatus:\n  phase: Ready\n")
	obj := r.json(t)
	if r.code != 200 || get(obj, "spec", "color") != "blue" || get(obj, "status", "phase") != "Ready" {
		t.Fatalf("apply to /status: %d %s", r.code, r.body)
	}
	if got := managedSummary(t, obj); !strings.Contains(got, `controller/Apply/status={"f:status":{"f:phase":{}}}`) {
		t.Errorf("managedFields:\n%s", got)
	}
	if r := s.do("PATCH", widgetsPath+"/missing/status?fieldManager=c", applyCT, applyYAML("missing", "red")); r.code != 404 {
		t.Errorf("apply to the status of a missing object: %d, want 404", r.code)
	}
}

func TestApply_DryRunCreatesNothing(t *testing.T) {
	s := newServer(t, nil)
	r := s.do("PATCH", widgetsPath+"/d?fieldManager=m&dryRun=All", applyCT, applyYAML("d", "red"))
	if r.code != http.StatusCreated || get(r.json(t), "spec", "color") != "red" {
		t.Fatalf("dry-run apply: %d %s", r.code, r.body)
	}
	if r := s.do("GET", widgetsPath+"/d", "", ""); r.code != 404 {
		t.Errorf("GET after a dry-run apply: %d, want 404", r.code)
	}
}

func TestWrites_RecordManagedFieldsForTheirManager(t *testing.T) {
	s := newServer(t, nil)
	r := s.do("POST", widgetsPath+"?fieldManager=creator", "application/json", widgetJSON("m", "blue", `"labels":{"a":"b"}`))
	want := `creator/Update={"f:metadata":{"f:labels":{".":{},"f:a":{}}},"f:spec":{"f:color":{},"f:replicas":{}}}`
	if got := managedSummary(t, r.json(t)); got != want {
		t.Errorf("create:\n%s\nwant\n%s", got, want)
	}
	obj := r.json(t)
	obj["spec"].(map[string]any)["color"] = "green"
	body, _ := json.Marshal(obj)
	r = s.do("PUT", widgetsPath+"/m", "application/json", string(body), "User-Agent", "my-tool/1.0 (linux)")
	want = `creator/Update={"f:metadata":{"f:labels":{".":{},"f:a":{}}},"f:spec":{"f:replicas":{}}}` + "\n" +
		`my-tool/Update={"f:spec":{"f:color":{}}}`
	if got := managedSummary(t, r.json(t)); got != want {
		t.Errorf("update:\n%s\nwant\n%s", got, want)
	}
	r = s.do("PATCH", widgetsPath+"/m/status?fieldManager=controller", mergeCT, `{"status":{"phase":"Ready"},"spec":{"color":"red"}}`)
	obj = r.json(t)
	if get(obj, "spec", "color") != "green" || get(obj, "status", "phase") != "Ready" {
		t.Errorf("status patch changed spec or not status: %s", r.body)
	}
	if got := managedSummary(t, obj); !strings.Contains(got, `controller/Update/status={"f:status":{"f:phase":{}}}`) {
		t.Errorf("status patch entry missing:\n%s", got)
	}
	r = s.do("PATCH", widgetsPath+"/m/scale?fieldManager=scaler", mergeCT, `{"spec":{"replicas":5}}`)
	if r.code != 200 || get(r.json(t), "spec", "replicas") != float64(5) {
		t.Fatalf("scale patch: %d %s", r.code, r.body)
	}
	obj = s.do("GET", widgetsPath+"/m", "", "").json(t)
	if got := managedSummary(t, obj); !strings.Contains(got, `scaler/Update/scale={"f:spec":{"f:replicas":{}}}`) {
		t.Errorf("scale entry missing:\n%s", got)
	}
	r = s.do("PATCH", widgetsPath+"/m", mergeCT, `{"metadata":{"managedFields":[{}]},"spec":{"color":"blue"}}`)
	if got := get(r.json(t), "metadata", "managedFields"); r.code != 200 || got != nil {
		t.Errorf("managedFields [{}] should clear them: %d %v", r.code, got)
	}
	r = s.do("PATCH", widgetsPath+"/m", mergeCT, `{"spec":{"color":"green"}}`)
	if got := get(r.json(t), "metadata", "managedFields"); r.code != 200 || got != nil {
		t.Errorf("an object without managedFields starts no tracking on update: %d %v", r.code, got)
	}
	r = s.do("POST", widgetsPath+"?fieldManager="+url.QueryEscape(strings.Repeat("x", 129)), "application/json", widgetJSON("n", "blue"))
	if r.code != 422 {
		t.Errorf("a 129-byte fieldManager: %d %s, want 422", r.code, r.body)
	}
}

// FuzzPatch checks that no patch body crashes the server or answers 500, and that a
// patch that fails leaves the object as it was.
func FuzzPatch(f *testing.F) {
	cts := []string{mergeCT, jsonPatchCT, strategicCT, applyCT}
	seeds := []string{
		`{"spec":{"color":"green"}}`, `[{"op":"replace","path":"/spec/color","value":"red"}]`,
		`{"spec":{"parts":[{"name":"x","$patch":"delete"}],"$setElementOrder/parts":[{"name":"x"}]}}`,
		`{"metadata":{"$deleteFromPrimitiveList/finalizers":["example.com/a"]}}`, `{"$retainKeys":["spec"]}`,
		applyYAML("fz", "green", "wheel"), `null`, `[]`, `{"spec":null}`, `{"metadata":{"name":"other"}}`,
		`[{"op":"move","from":"/spec","path":"/spec/color"}]`, "kind: Widget\napiVersion: toys.example.com/v1\nmetadata: {name: fz}\nspec: {parts: [{count: 1}]}",
		`{"spec":{"parts":[{"$patch":"replace"}]}}`, `{"spec":{"replicas":1e400}}`,
	}
	for i, s := range seeds {
		f.Add(uint8(i), s)
	}
	s := newServer(f, nil)
	r := s.do("POST", widgetsPath, "application/json", `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"fz","finalizers":["example.com/a"]},"spec":{"color":"blue","parts":[{"name":"wheel","count":4}]}}`)
	if r.code != http.StatusCreated {
		f.Fatalf("create: %d %s", r.code, r.body)
	}
	f.Fuzz(func(t *testing.T, which uint8, body string) {
		ts := &testServer{t: t, url: s.url, store: s.store}
		before := ts.do("GET", widgetsPath+"/fz", "", "")
		r := ts.do("PATCH", widgetsPath+"/fz?fieldManager=fuzz&force=true", cts[int(which)%len(cts)], body)
		if r.code >= 500 {
			t.Fatalf("PATCH %s %q: %d %s", cts[int(which)%len(cts)], body, r.code, r.body)
		}
		if r.code != 200 {
			after := ts.do("GET", widgetsPath+"/fz", "", "")
			if string(after.body) != string(before.body) {
				t.Fatalf("a failed patch (%d %s) changed the object:\n%s\n%s", r.code, r.body, before.body, after.body)
			}
		}
	})
}

// BenchmarkPatch measures a PATCH of each type through the whole HTTP pipeline on a
// Widget with 50 parts (decode, patch, managedFields, validation, storage, encode).
func BenchmarkPatch(b *testing.B) {
	parts := func(count int) string {
		var ps []string
		for i := 0; i < 50; i++ {
			ps = append(ps, fmt.Sprintf(`{"name":"part-%02d","count":%d}`, i, count))
		}
		return strings.Join(ps, ",")
	}
	applyBody := func(count int) string {
		return `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"bench"},"spec":{"color":"red","parts":[` + parts(count) + `]}}`
	}
	cases := []struct {
		name, contentType, query string
		body                     func(i int) string
	}{
		{"merge", mergeCT, "", func(i int) string { return fmt.Sprintf(`{"metadata":{"labels":{"n":"%d"}}}`, i%2) }},
		{"json", jsonPatchCT, "", func(i int) string {
			return fmt.Sprintf(`[{"op":"replace","path":"/spec/parts/10/count","value":%d}]`, i%2+1)
		}},
		{"strategic", strategicCT, "", func(i int) string { return fmt.Sprintf(`{"spec":{"parts":[{"name":"part-10","count":%d}]}}`, i%2+1) }},
		{"apply-50-parts", applyCT, "?fieldManager=bench&force=true", func(i int) string { return applyBody(i%2 + 1) }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			s := newServer(b, nil)
			if r := s.do("PATCH", widgetsPath+"/bench?fieldManager=bench", applyCT, applyBody(1)); r.code != http.StatusCreated {
				b.Fatalf("create: %d %s", r.code, r.body)
			}
			i := 0
			for b.Loop() {
				if r := s.do("PATCH", widgetsPath+"/bench"+c.query, c.contentType, c.body(i)); r.code != 200 {
					b.Fatalf("%d %s", r.code, r.body)
				}
				i++
			}
		})
	}
}

func TestPatch_ApplyInCBORCreatesAndUpdatesLikeYAML(t *testing.T) {
	s := newServer(t, nil)
	cfg := func(color string) string {
		b, err := cbor.Marshal(map[string]any{
			"apiVersion": "toys.example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"name": "cb"},
			"spec":     map[string]any{"color": color, "replicas": int64(2)},
		})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	const ct = "application/apply-patch+cbor"
	r := s.do("PATCH", widgetsPath+"/cb?fieldManager=cbor-applier", ct, cfg("red"))
	if r.code != 201 || get(r.json(t), "spec", "color") != "red" {
		t.Fatalf("apply that creates: %d %s", r.code, r.body)
	}
	r = s.do("PATCH", widgetsPath+"/cb?fieldManager=cbor-applier", ct, cfg("blue"))
	m := r.json(t)
	if r.code != 200 || get(m, "spec", "color") != "blue" || get(m, "spec", "replicas") != float64(2) {
		t.Fatalf("apply that updates: %d %s", r.code, r.body)
	}
	mf, _ := get(m, "metadata", "managedFields").([]any)
	if len(mf) != 1 || mf[0].(map[string]any)["manager"] != "cbor-applier" || mf[0].(map[string]any)["operation"] != "Apply" {
		t.Errorf("managedFields = %v", mf)
	}
	if r := s.do("PATCH", widgetsPath+"/cb", ct, cfg("green")); r.code != 422 {
		t.Errorf("apply without fieldManager: %d %s", r.code, r.body)
	}
	if r := s.do("PATCH", widgetsPath+"/cb?fieldManager=m", ct, "\xff\x00"); r.code != 400 {
		t.Errorf("malformed CBOR apply body: %d %s", r.code, r.body)
	}
}
