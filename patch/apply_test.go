package patch_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/internal/testapi"
	"github.com/apikit-dev/apikit/patch"
	"github.com/apikit-dev/apikit/scheme"
)

var t0 = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

func newFieldManager(t testing.TB, opts patch.Options) *patch.FieldManager {
	t.Helper()
	if opts.Now == nil {
		opts.Now = func() scheme.Time { return scheme.Time{Time: t0} }
	}
	fm, err := patch.NewFieldManager(testapi.NewScheme(), widgetGVK, opts)
	if err != nil {
		t.Fatal(err)
	}
	return fm
}

// obj decodes a JSON widget with int64 numbers, as the REST layer hands objects over.
func obj(t testing.TB, js string) map[string]any {
	t.Helper()
	m, err := patch.DecodeApplyConfig([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// withManaged returns o with entries as metadata.managedFields.
func withManaged(t testing.TB, o map[string]any, entries []scheme.ManagedFieldsEntry) map[string]any {
	t.Helper()
	b, err := json.Marshal(entries)
	if err != nil {
		t.Fatal(err)
	}
	var v []any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	md := o["metadata"].(map[string]any)
	md["managedFields"] = v
	return o
}

// summary renders entries as "manager/operation[/subresource]=fieldsV1" lines.
func summary(entries []scheme.ManagedFieldsEntry) string {
	var lines []string
	for _, e := range entries {
		s := e.Manager + "/" + string(e.Operation)
		if e.Subresource != "" {
			s += "/" + e.Subresource
		}
		raw := "nil"
		if e.FieldsV1 != nil {
			raw = string(e.FieldsV1.Raw)
		}
		lines = append(lines, s+"="+raw)
	}
	return strings.Join(lines, "\n")
}

func widget(color string, parts ...string) string {
	var ps []string
	for _, p := range parts {
		ps = append(ps, fmt.Sprintf(`{"name":%q,"count":1}`, p))
	}
	return `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"default"},"spec":{"color":"` + color + `","parts":[` + strings.Join(ps, ",") + `]}}`
}

func TestFieldManager_ApplyCreatesWithKubesEncoding(t *testing.T) {
	fm := newFieldManager(t, patch.Options{ResetFields: []string{"status"}})
	cfg := obj(t, `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"w","labels":{"app":"x"}},
		"spec":{"color":"red","parts":[{"name":"wheel","count":4}]},"status":{"phase":"Ignored"}}`)
	out, managed, err := fm.Apply(nil, cfg, "kubectl", false)
	if err != nil {
		t.Fatal(err)
	}
	if got := out["spec"].(map[string]any)["color"]; got != "red" {
		t.Errorf("spec.color = %v, want red", got)
	}
	want := []scheme.ManagedFieldsEntry{{
		Manager: "kubectl", Operation: scheme.ManagedFieldsOperationApply, APIVersion: "toys.example.com/v1",
		Time: &scheme.Time{Time: t0}, FieldsType: "FieldsV1",
		// status is reset by the endpoint, so nobody owns it; name and namespace are stripped.
		FieldsV1: &scheme.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:color":{},"f:parts":{"k:{\"name\":\"wheel\"}":{".":{},"f:count":{},"f:name":{}}}}}`)},
	}}
	gotJSON, _ := json.Marshal(managed)
	wantJSON, _ := json.Marshal(want)
	if string(gotJSON) != string(wantJSON) {
		t.Errorf("managedFields =\n%s\nwant\n%s", gotJSON, wantJSON)
	}
}

func TestFieldManager_ApplyConflictsAndForce(t *testing.T) {
	fm := newFieldManager(t, patch.Options{})
	live, managed, err := fm.Apply(nil, obj(t, widget("red", "wheel", "bolt")), "alice", false)
	if err != nil {
		t.Fatal(err)
	}
	live = withManaged(t, live, managed)

	tests := []struct {
		name        string
		manager     string
		config      string
		force       bool
		wantErr     string
		wantParts   []string
		wantColor   string
		wantSummary string
	}{
		{
			name: "the same value applied by another manager is shared, no conflict", manager: "bob", config: widget("red", "axle"),
			wantParts: []string{"wheel", "bolt", "axle"}, wantColor: "red",
			wantSummary: `alice/Apply={"f:spec":{"f:color":{},"f:parts":{"k:{\"name\":\"bolt\"}":{".":{},"f:count":{},"f:name":{}},"k:{\"name\":\"wheel\"}":{".":{},"f:count":{},"f:name":{}}}}}` + "\n" +
				`bob/Apply={"f:spec":{"f:color":{},"f:parts":{"k:{\"name\":\"axle\"}":{".":{},"f:count":{},"f:name":{}}}}}`,
		},
		{
			name: "a different value conflicts with kube's message", manager: "bob", config: widget("blue"),
			wantErr: `Apply failed with 1 conflict: conflict with "alice": .spec.color`,
		},
		{
			name: "force takes the field over", manager: "bob", config: widget("blue"), force: true,
			wantParts: []string{"wheel", "bolt"}, wantColor: "blue",
			wantSummary: `alice/Apply={"f:spec":{"f:parts":{"k:{\"name\":\"bolt\"}":{".":{},"f:count":{},"f:name":{}},"k:{\"name\":\"wheel\"}":{".":{},"f:count":{},"f:name":{}}}}}` + "\n" +
				`bob/Apply={"f:spec":{"f:color":{}}}`,
		},
		{
			name: "a field the manager stops applying is removed", manager: "alice", config: widget("red", "wheel"),
			wantParts: []string{"wheel"}, wantColor: "red",
			wantSummary: `alice/Apply={"f:spec":{"f:color":{},"f:parts":{"k:{\"name\":\"wheel\"}":{".":{},"f:count":{},"f:name":{}}}}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, managed, err := fm.Apply(live, obj(t, tt.config), tt.manager, tt.force)
			if tt.wantErr != "" {
				var ce *patch.ConflictError
				if !errors.As(err, &ce) || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want a ConflictError %q", err, tt.wantErr)
				}
				if len(ce.Conflicts) != 1 || ce.Conflicts[0].Field != ".spec.color" || ce.Conflicts[0].Manager != `"alice"` {
					t.Errorf("conflicts = %+v", ce.Conflicts)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			spec := out["spec"].(map[string]any)
			if spec["color"] != tt.wantColor {
				t.Errorf("color = %v, want %s", spec["color"], tt.wantColor)
			}
			var names []string
			parts, _ := spec["parts"].([]any)
			for _, p := range parts {
				names = append(names, p.(map[string]any)["name"].(string))
			}
			if strings.Join(names, ",") != strings.Join(tt.wantParts, ",") {
				t.Errorf("parts = %v, want %v", names, tt.wantParts)
			}
			if got := summary(managed); got != tt.wantSummary {
				t.Errorf("managedFields:\n%s\nwant\n%s", got, tt.wantSummary)
			}
		})
	}
}

func TestFieldManager_ApplyRejectsBadConfigurations(t *testing.T) {
	fm := newFieldManager(t, patch.Options{})
	tests := []struct {
		name, config, wantMsg string
	}{
		{"another kind", `{"apiVersion":"toys.example.com/v1","kind":"Gadget","metadata":{"name":"w"}}`, "invalid object type: toys.example.com/v1, Kind=Gadget"},
		{"another version", `{"apiVersion":"toys.example.com/v2","kind":"Widget","metadata":{"name":"w"}}`, "invalid object type: toys.example.com/v2, Kind=Widget"},
		{"managedFields set", `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"w","managedFields":[]}}`, "metadata.managedFields must be nil"},
		{"a field the schema does not declare", `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"ns"},"spec":{"size":3}}`,
			"failed to create typed patch object (ns/w; toys.example.com/v1, Kind=Widget): .spec.size: field not declared in schema"},
		{"a value of the wrong type", `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"ns"},"spec":{"replicas":"three"}}`,
			"failed to create typed patch object (ns/w; toys.example.com/v1, Kind=Widget): .spec.replicas: expected numeric (int or float), got string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := fm.Apply(nil, obj(t, tt.config), "m", false)
			if !errors.Is(err, patch.ErrMalformed) || err.Error() != tt.wantMsg {
				t.Fatalf("err = %v, want ErrMalformed %q", err, tt.wantMsg)
			}
		})
	}
}

func TestFieldManager_NoOpApplyKeepsTheTime(t *testing.T) {
	fm := newFieldManager(t, patch.Options{})
	live, managed, err := fm.Apply(nil, obj(t, widget("red")), "m", false)
	if err != nil {
		t.Fatal(err)
	}
	later := newFieldManager(t, patch.Options{Now: func() scheme.Time { return scheme.Time{Time: t0.Add(time.Hour)} }})
	_, again, err := later.Apply(withManaged(t, live, managed), obj(t, widget("red")), "m", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != 1 || !again[0].Time.Time.Equal(t0) {
		t.Errorf("time after a no-op apply = %v, want %v", again[0].Time, t0)
	}
}

func TestFieldManager_UpdateRecordsChangedFields(t *testing.T) {
	main := newFieldManager(t, patch.Options{ResetFields: []string{"status"}})
	status := newFieldManager(t, patch.Options{Subresource: "status", ResetFields: []string{"spec"}})
	zero := obj(t, `{"metadata":{"creationTimestamp":null},"spec":{"color":""},"status":{}}`)
	created := obj(t, `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"w","labels":{"a":"b"}},"spec":{"color":"red","replicas":1},"status":{"phase":"x"}}`)
	managed, err := main.Update(zero, created, "kubectl-create")
	if err != nil {
		t.Fatal(err)
	}
	want := `kubectl-create/Update={"f:metadata":{"f:labels":{".":{},"f:a":{}}},"f:spec":{"f:color":{},"f:replicas":{}}}`
	if got := summary(managed); got != want {
		t.Fatalf("create:\n%s\nwant\n%s", got, want)
	}
	live := withManaged(t, created, managed)
	live["metadata"].(map[string]any)["uid"] = "u1"

	tests := []struct {
		name    string
		fm      *patch.FieldManager
		live    map[string]any
		newObj  string
		manager string
		want    string
	}{
		{"an update takes the fields it changed from their owner", main, live,
			`{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"w","labels":{"a":"b"}},"spec":{"color":"blue","replicas":1}}`, "editor",
			`editor/Update={"f:spec":{"f:color":{}}}` + "\n" +
				`kubectl-create/Update={"f:metadata":{"f:labels":{".":{},"f:a":{}}},"f:spec":{"f:replicas":{}}}`},
		{"an update that changes nothing records nothing", main, live,
			`{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"w","labels":{"a":"b"},"resourceVersion":"9"},"spec":{"color":"red","replicas":1}}`, "editor",
			`kubectl-create/Update={"f:metadata":{"f:labels":{".":{},"f:a":{}}},"f:spec":{"f:color":{},"f:replicas":{}}}`},
		{"a status update is recorded for the status subresource", status, live,
			`{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"w","labels":{"a":"b"}},"spec":{"color":"red","replicas":1},"status":{"phase":"Ready"}}`, "controller",
			// Same time: sorted by manager name, as kube sorts entries.
			`controller/Update/status={"f:status":{"f:phase":{}}}` + "\n" +
				`kubectl-create/Update={"f:metadata":{"f:labels":{".":{},"f:a":{}}},"f:spec":{"f:color":{},"f:replicas":{}}}`},
		{"an existing object without managedFields keeps none", main,
			obj(t, `{"metadata":{"name":"w","uid":"u1"},"spec":{"color":"red"}}`),
			`{"metadata":{"name":"w","uid":"u1"},"spec":{"color":"blue"}}`, "editor", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			managed, err := tt.fm.Update(tt.live, obj(t, tt.newObj), tt.manager)
			if err != nil {
				t.Fatal(err)
			}
			if got := summary(managed); got != tt.want {
				t.Errorf("managedFields:\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestFieldManager_CapsUpdateManagersAtTen(t *testing.T) {
	fm := newFieldManager(t, patch.Options{})
	live := obj(t, widget("red"))
	live["metadata"].(map[string]any)["uid"] = "u1"
	managed, err := fm.Update(obj(t, `{"spec":{"color":""}}`), live, "m00")
	if err != nil {
		t.Fatal(err)
	}
	labels := map[string]any{}
	for i := 1; i <= 11; i++ {
		next := obj(t, widget("red"))
		labels[fmt.Sprintf("l%02d", i)] = "x"
		next["metadata"].(map[string]any)["labels"] = maps.Clone(labels)
		cur := withManaged(t, live, managed)
		at := t0.Add(time.Duration(i) * time.Minute)
		fmi := newFieldManager(t, patch.Options{Now: func() scheme.Time { return scheme.Time{Time: at} }})
		if managed, err = fmi.Update(cur, next, fmt.Sprintf("m%02d", i)); err != nil {
			t.Fatal(err)
		}
		live = next
	}
	var names []string
	for _, e := range managed {
		names = append(names, e.Manager)
	}
	if len(managed) != patch.MaxUpdateManagers || names[0] != "ancient-changes" {
		t.Errorf("managers = %v, want %d with ancient-changes first", names, patch.MaxUpdateManagers)
	}
}

func TestConflictError_GroupsSeveralConflictsByManager(t *testing.T) {
	err := &patch.ConflictError{Conflicts: []patch.Conflict{
		{Manager: `"bob"`, Field: ".spec.color"},
		{Manager: `"alice" using v1`, Field: ".spec.replicas"},
		{Manager: `"bob"`, Field: ".spec.parts"},
	}}
	want := "Apply failed with 3 conflicts: conflicts with \"alice\" using v1:\n- .spec.replicas\nconflicts with \"bob\":\n- .spec.color\n- .spec.parts"
	if err.Error() != want {
		t.Errorf("message =\n%s\nwant\n%s", err.Error(), want)
	}
}

func TestManagerFromUserAgent(t *testing.T) {
	tests := []struct{ ua, want string }{
		{"kubectl/v1.32.4 (linux/amd64) kubernetes/abc", "kubectl"},
		{"Go-http-client/1.1", "Go-http-client"},
		{"", ""},
		{"tab\there/1", "tabhere"},
		{strings.Repeat("x", 200), strings.Repeat("x", 128)},
	}
	for _, tt := range tests {
		if got := patch.ManagerFromUserAgent(tt.ua); got != tt.want {
			t.Errorf("ManagerFromUserAgent(%q) = %q, want %q", tt.ua, got, tt.want)
		}
	}
}

func TestFieldManager_KubectlServerSideApplyInheritsClientSideApply(t *testing.T) {
	fm := newFieldManager(t, patch.Options{})
	lastApplied := `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"annotations":{},"name":"w","namespace":"default"},"spec":{"color":"red"}}` + "\n"
	created := obj(t, `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"default","uid":"u1"},"spec":{"color":"red"}}`)
	created["metadata"].(map[string]any)["annotations"] = map[string]any{patch.LastAppliedAnnotation: lastApplied}
	managed, err := fm.Update(obj(t, `{"spec":{"color":""}}`), created, "kubectl-client-side-apply")
	if err != nil {
		t.Fatal(err)
	}
	live := withManaged(t, created, managed)
	cfg := `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"default"},"spec":{"color":"blue"}}`

	if _, _, err := fm.Apply(live, obj(t, cfg), "someone-else", false); err == nil {
		t.Fatal("another manager took the client-side applied field without a conflict")
	}
	out, entries, err := fm.Apply(live, obj(t, cfg), "kubectl", false)
	if err != nil {
		t.Fatalf("kubectl server-side apply after client-side apply: %v", err)
	}
	if got := out["spec"].(map[string]any)["color"]; got != "blue" {
		t.Errorf("color = %v, want blue", got)
	}
	ann := out["metadata"].(map[string]any)["annotations"].(map[string]any)[patch.LastAppliedAnnotation]
	if want := cfg + "\n"; ann != want {
		t.Errorf("last-applied annotation = %q, want %q", ann, want)
	}
	want := `kubectl/Apply={"f:spec":{"f:color":{}}}` + "\n" +
		`kubectl-client-side-apply/Update={"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}}}}`
	if got := summary(entries); got != want {
		t.Errorf("managedFields:\n%s", got)
	}
}

func TestFieldManager_FirstApplyConflictsWithFieldsSetBefore(t *testing.T) {
	fm := newFieldManager(t, patch.Options{Empty: func() map[string]any { return obj(t, `{"spec":{"color":""},"status":{}}`) }})
	live := obj(t, `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"default","uid":"u1"},"spec":{"color":"red","replicas":2}}`)
	_, _, err := fm.Apply(live, obj(t, widget("blue")), "m", false)
	if err == nil || err.Error() != `Apply failed with 1 conflict: conflict with "before-first-apply" using toys.example.com/v1: .spec.color` {
		t.Fatalf("err = %v, want a conflict with before-first-apply", err)
	}
	_, managed, err := fm.Apply(live, obj(t, widget("blue")), "m", true)
	if err != nil {
		t.Fatal(err)
	}
	want := `m/Apply={"f:spec":{"f:color":{}}}` + "\n" + `before-first-apply/Update={"f:spec":{"f:replicas":{}}}`
	if got := summary(managed); got != want {
		t.Errorf("managedFields:\n%s\nwant\n%s", got, want)
	}
}

func TestFieldManager_UpdateWithEmptyManagedFieldsResetsThem(t *testing.T) {
	fm := newFieldManager(t, patch.Options{})
	live := obj(t, widget("red"))
	live["metadata"].(map[string]any)["uid"] = "u1"
	managed, err := fm.Update(obj(t, `{"spec":{"color":""}}`), obj(t, widget("red")), "creator")
	if err != nil || len(managed) == 0 {
		t.Fatalf("create: %v %v", managed, err)
	}
	live = withManaged(t, live, managed)
	for _, reset := range []string{`[]`, `[{}]`} {
		next := obj(t, widget("blue"))
		var v []any
		if err := json.Unmarshal([]byte(reset), &v); err != nil {
			t.Fatal(err)
		}
		next["metadata"].(map[string]any)["managedFields"] = v
		got, err := fm.Update(live, next, "editor")
		if err != nil || got != nil {
			t.Errorf("managedFields %s: got %v, %v; want them cleared", reset, got, err)
		}
	}
}

// TestFieldManager_CreateWithoutLiveComparesWithTheZeroObject: a create hands no live
// object, and the fields the new object holds at the value of the kind's zero object
// (Options.Empty) are nobody's, as when the zero object is passed as live.
func TestFieldManager_CreateWithoutLiveComparesWithTheZeroObject(t *testing.T) {
	zero := `{"metadata":{"creationTimestamp":null},"spec":{"color":""},"status":{}}`
	fm := newFieldManager(t, patch.Options{Empty: func() map[string]any { return obj(t, zero) }})
	created := `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"color":"","replicas":1}}`
	withNil, err := fm.Update(nil, obj(t, created), "creator")
	if err != nil {
		t.Fatal(err)
	}
	withZero, err := fm.Update(obj(t, zero), obj(t, created), "creator")
	if err != nil {
		t.Fatal(err)
	}
	want := `creator/Update={"f:spec":{"f:replicas":{}}}`
	if got := summary(withNil); got != want || summary(withZero) != want {
		t.Errorf("managedFields without live:\n%s\nwith the zero object:\n%s\nwant\n%s", got, summary(withZero), want)
	}
}
