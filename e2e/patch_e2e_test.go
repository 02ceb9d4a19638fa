package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/apikit-dev/apikit/examples/widgets/server"
)

// TestPatch drives the four patch types through the real kubectl and client-go.
func TestPatch(t *testing.T) {
	requireKubectl(t)
	es := startExampleServer(t, server.StorageMemory)
	t.Run("kubectl patch --type json, merge and strategic", func(t *testing.T) { kubectlPatchTypes(t, es) })
	t.Run("kubectl apply client-side twice removes a part", func(t *testing.T) { kubectlApplyClientSide(t, es) })
	t.Run("kubectl apply --server-side conflicts between managers, then forces", func(t *testing.T) { kubectlApplyServerSide(t, es) })
	t.Run("kubectl apply --server-side takes over from client-side apply", func(t *testing.T) { kubectlApplyUpgrade(t, es) })
	t.Run("kubectl edit with an EDITOR script", func(t *testing.T) { kubectlEdit(t, es) })
	t.Run("client-go apply of an unstructured configuration", func(t *testing.T) { clientGoApply(t, es) })
}

// widgetJSONPath returns a jsonpath of widget name in ns.
func (es *exampleServer) widgetJSONPath(t *testing.T, ns, name, jsonpath string) string {
	t.Helper()
	return strings.TrimSpace(es.mustKubectl(t, "get", "widget", name, "-n", ns, "-o", "jsonpath="+jsonpath, "--show-managed-fields").Stdout)
}

// widgetObject returns the widget as decoded JSON.
func (es *exampleServer) widgetObject(t *testing.T, ns, name string) map[string]any {
	t.Helper()
	out := es.mustKubectl(t, "get", "widget", name, "-n", ns, "-o", "json", "--show-managed-fields").Stdout
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("kubectl get -o json: %v\n%s", err, out)
	}
	return m
}

func partNames(obj map[string]any) []string {
	spec, _ := obj["spec"].(map[string]any)
	parts, _ := spec["parts"].([]any)
	var out []string
	for _, p := range parts {
		m, _ := p.(map[string]any)
		n, _ := m["name"].(string)
		out = append(out, n)
	}
	return out
}

func kubectlPatchTypes(t *testing.T, es *exampleServer) {
	const ns = "patch-types"
	es.mustKubectl(t, "create", "-f", writeTemp(t, "w.yaml", widgetYAML(ns, "p1", "red", 1, "")))
	tests := []struct {
		name     string
		args     []string
		jsonpath string
		want     string
	}{
		{"json patch replaces a field", []string{"--type", "json", "-p", `[{"op":"replace","path":"/spec/color","value":"green"}]`}, "{.spec.color}", "green"},
		{"json patch with a passing test op applies", []string{"--type", "json", "-p", `[{"op":"test","path":"/spec/color","value":"green"},{"op":"add","path":"/metadata/labels","value":{"tier":"gold"}}]`}, "{.metadata.labels.tier}", "gold"},
		{"merge patch sets and removes labels", []string{"--type", "merge", "-p", `{"metadata":{"labels":{"tier":null,"team":"a"}}}`}, "{.metadata.labels}", `{"team":"a"}`},
		{"merge patch replaces the whole parts list", []string{"--type", "merge", "-p", `{"spec":{"parts":[{"name":"axle","count":2}]}}`}, "{.spec.parts[*].name}", "axle"},
		{"strategic patch merges parts by name", []string{"--type", "strategic", "-p", `{"spec":{"parts":[{"name":"wheel","count":4}]}}`}, "{.spec.parts[*].name}", "wheel axle"}, // new items first, as kube orders them
		{"strategic patch updates one part in place", []string{"--type", "strategic", "-p", `{"spec":{"parts":[{"name":"axle","count":3}]}}`}, "{.spec.parts[?(@.name==\"axle\")].count}", "3"},
		{"strategic $patch delete removes one part", []string{"--type", "strategic", "-p", `{"spec":{"parts":[{"name":"axle","$patch":"delete"}]}}`}, "{.spec.parts[*].name}", "wheel"},
		{"default patch type is strategic", []string{"-p", `{"spec":{"parts":[{"name":"bolt","count":9}]}}`}, "{.spec.parts[*].name}", "bolt wheel"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := es.mustKubectl(t, append([]string{"patch", "widget", "p1", "-n", ns}, tt.args...)...)
			if got := strings.TrimSpace(res.Stdout); got != "widget.toys.example.com/p1 patched" {
				t.Errorf("output = %q, want patched", got)
			}
			if got := es.widgetJSONPath(t, ns, "p1", tt.jsonpath); got != tt.want {
				t.Errorf("%s = %q, want %q", tt.jsonpath, got, tt.want)
			}
		})
	}
	failures := []struct {
		name, typ, patch, wantErr string
	}{
		{"json patch with a failing test op is rejected", "json", `[{"op":"test","path":"/spec/color","value":"blue"},{"op":"replace","path":"/spec/color","value":"pink"}]`, "testing value /spec/color failed"},
		{"json patch removing a missing path is rejected", "json", `[{"op":"remove","path":"/spec/nothing"}]`, "unable to remove nonexistent key: nothing"},
		{"strategic patch item without its merge key is rejected", "strategic", `{"spec":{"parts":[{"count":1}]}}`, "does not contain declared merge key: name"},
	}
	for _, tt := range failures {
		t.Run(tt.name, func(t *testing.T) {
			before := es.widgetJSONPath(t, ns, "p1", "{.metadata.resourceVersion}")
			res := es.kubectl(t, "", "patch", "widget", "p1", "-n", ns, "--type", tt.typ, "-p", tt.patch)
			if res.ExitCode == 0 || !strings.Contains(res.Stderr, tt.wantErr) {
				t.Errorf("exit %d, stderr %q; want a failure mentioning %q", res.ExitCode, res.Stderr, tt.wantErr)
			}
			if after := es.widgetJSONPath(t, ns, "p1", "{.metadata.resourceVersion}"); after != before {
				t.Errorf("resourceVersion changed from %s to %s on a failed patch", before, after)
			}
		})
	}
}

func kubectlApplyClientSide(t *testing.T, es *exampleServer) {
	const ns = "apply-client"
	manifest := func(parts ...string) string {
		s := "apiVersion: toys.example.com/v1\nkind: Widget\nmetadata:\n  name: ca\n  namespace: " + ns + "\nspec:\n  color: red\n  replicas: 2\n  parts:\n"
		for _, p := range parts {
			s += "  - name: " + p + "\n    count: 1\n"
		}
		return s
	}
	res := es.mustKubectl(t, "apply", "-f", writeTemp(t, "w.yaml", manifest("wheel", "bolt", "axle")))
	if got := strings.TrimSpace(res.Stdout); got != "widget.toys.example.com/ca created" {
		t.Errorf("first apply output = %q", got)
	}
	// Applying the same manifest again computes an empty patch.
	res = es.mustKubectl(t, "apply", "-f", writeTemp(t, "w.yaml", manifest("wheel", "bolt", "axle")))
	if got := strings.TrimSpace(res.Stdout); got != "widget.toys.example.com/ca unchanged" {
		t.Errorf("repeated apply output = %q, want unchanged", got)
	}
	// A part added by someone else survives the three-way merge of the second apply.
	es.mustKubectl(t, "patch", "widget", "ca", "-n", ns, "--type", "strategic", "-p", `{"spec":{"parts":[{"name":"extra","count":7}]}}`)
	res = es.mustKubectl(t, "apply", "-f", writeTemp(t, "w.yaml", manifest("wheel", "axle")))
	if got := strings.TrimSpace(res.Stdout); got != "widget.toys.example.com/ca configured" {
		t.Errorf("second apply output = %q", got)
	}
	obj := es.widgetObject(t, ns, "ca")
	// The strategic patch put "extra" first (kube puts new items before the live ones
	// that follow no patched item), and the apply keeps it before the parts it orders.
	if got, want := partNames(obj), []string{"extra", "wheel", "axle"}; !slices.Equal(got, want) {
		t.Errorf("parts after the second apply = %q, want %q (bolt removed, extra kept)", got, want)
	}
	ann := es.widgetJSONPath(t, ns, "ca", `{.metadata.annotations.kubectl\.kubernetes\.io/last-applied-configuration}`)
	if !strings.Contains(ann, `"axle"`) || strings.Contains(ann, `"bolt"`) {
		t.Errorf("last-applied-configuration = %s, want the second manifest", ann)
	}
	// The PATCHes kubectl sent were strategic merge patches (the OpenAPI carries the extensions).
	if got := es.widgetJSONPath(t, ns, "ca", `{.metadata.managedFields[?(@.manager=="kubectl-client-side-apply")].operation}`); got != "Update" {
		t.Errorf("kubectl-client-side-apply managedFields operation = %q, want Update", got)
	}
}

func kubectlApplyServerSide(t *testing.T, es *exampleServer) {
	const ns = "apply-server"
	alice := "apiVersion: toys.example.com/v1\nkind: Widget\nmetadata:\n  name: ss\n  namespace: " + ns + "\nspec:\n  color: red\n  parts:\n  - name: wheel\n    count: 4\n  - name: bolt\n    count: 8\n"
	res := es.mustKubectl(t, "apply", "--server-side", "--field-manager=alice", "-f", writeTemp(t, "a.yaml", alice))
	if got := strings.TrimSpace(res.Stdout); got != "widget.toys.example.com/ss serverside-applied" {
		t.Errorf("alice's apply output = %q", got)
	}
	bob := "apiVersion: toys.example.com/v1\nkind: Widget\nmetadata:\n  name: ss\n  namespace: " + ns + "\nspec:\n  color: blue\n  parts:\n  - name: axle\n    count: 2\n"
	bobFile := writeTemp(t, "b.yaml", bob)
	res = es.kubectl(t, "", "apply", "--server-side", "--field-manager=bob", "-f", bobFile)
	if res.ExitCode == 0 {
		t.Fatalf("bob's conflicting apply succeeded: %s", res.Stdout)
	}
	for _, want := range []string{`conflict with "alice"`, ".spec.color", "--force-conflicts"} {
		if !strings.Contains(res.Stderr, want) {
			t.Errorf("conflict output lacks %q:\n%s", want, res.Stderr)
		}
	}
	if got := es.widgetJSONPath(t, ns, "ss", "{.spec.color}"); got != "red" {
		t.Errorf("color after the failed apply = %q, want red", got)
	}
	es.mustKubectl(t, "apply", "--server-side", "--field-manager=bob", "--force-conflicts", "-f", bobFile)
	obj := es.widgetObject(t, ns, "ss")
	if got := es.widgetJSONPath(t, ns, "ss", "{.spec.color}"); got != "blue" {
		t.Errorf("color after the forced apply = %q, want blue", got)
	}
	if got, want := partNames(obj), []string{"wheel", "bolt", "axle"}; !slices.Equal(got, want) {
		t.Errorf("parts = %q, want %q (both managers' parts)", got, want)
	}
	owners := managedFieldsByManager(t, obj)
	if got := owners["bob"]; !strings.Contains(got, `"f:color"`) || !strings.Contains(got, `k:{\"name\":\"axle\"}`) {
		t.Errorf("bob's fieldsV1 = %s, want color and the axle part", got)
	}
	if got := owners["alice"]; strings.Contains(got, `"f:color"`) || !strings.Contains(got, `k:{\"name\":\"bolt\"}`) {
		t.Errorf("alice's fieldsV1 = %s, want the parts but no longer color", got)
	}
	// Alice stops applying bolt: it goes, since nobody else owns it; wheel stays.
	alice2 := strings.Replace(alice, "  - name: bolt\n    count: 8\n", "", 1)
	alice2 = strings.Replace(alice2, "color: red", "color: blue", 1)
	es.mustKubectl(t, "apply", "--server-side", "--field-manager=alice", "-f", writeTemp(t, "a2.yaml", alice2))
	if got, want := partNames(es.widgetObject(t, ns, "ss")), []string{"wheel", "axle"}; !slices.Equal(got, want) {
		t.Errorf("parts after alice dropped bolt = %q, want %q", got, want)
	}
}

// managedFieldsByManager returns each manager's fieldsV1 as JSON text.
func managedFieldsByManager(t *testing.T, obj map[string]any) map[string]string {
	t.Helper()
	md, _ := obj["metadata"].(map[string]any)
	entries, _ := md["managedFields"].([]any)
	out := map[string]string{}
	for _, e := range entries {
		m, _ := e.(map[string]any)
		b, _ := json.Marshal(m["fieldsV1"])
		out[m["manager"].(string)] = string(b)
	}
	return out
}

func kubectlEdit(t *testing.T, es *exampleServer) {
	const ns = "edit"
	es.mustKubectl(t, "create", "-f", writeTemp(t, "w.yaml", widgetYAML(ns, "ed", "red", 1, "")))
	dir := t.TempDir()
	script := filepath.Join(dir, "editor.sh")
	body := "#!/bin/sh\nsed -i -e 's/color: red/color: green/' -e 's/count: 4/count: 6/' \"$1\"\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), kubectlTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, kubectlPath, "--kubeconfig", es.KubeconfigPath, "edit", "widget", "ed", "-n", ns)
	cmd.Env = append(os.Environ(), "EDITOR="+script, "KUBE_EDITOR="+script, "HOME="+dir, "KUBECACHEDIR="+filepath.Join(dir, "cache"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("kubectl edit: %v\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
	}
	if got := strings.TrimSpace(stdout.String()); got != "widget.toys.example.com/ed edited" {
		t.Errorf("edit output = %q", got)
	}
	if got := es.widgetJSONPath(t, ns, "ed", "{.spec.color} {.spec.parts[0].count}"); got != "green 6" {
		t.Errorf("after edit: color and count = %q, want green 6", got)
	}
}

func clientGoApply(t *testing.T, es *exampleServer) {
	const ns = "client-go-apply"
	dc, err := dynamic.NewForConfig(es.restConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res := dc.Resource(gvrWidgets).Namespace(ns)
	cfg := func(color string, parts ...string) []byte {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "toys.example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"name": "cg", "namespace": ns, "labels": map[string]any{"app": "demo"}},
			"spec":     map[string]any{"color": color},
		}}
		var ps []any
		for _, p := range parts {
			ps = append(ps, map[string]any{"name": p, "count": int64(1)})
		}
		if ps != nil {
			_ = unstructured.SetNestedSlice(u.Object, ps, "spec", "parts")
		}
		b, err := u.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	got, err := res.Patch(ctx, "cg", types.ApplyPatchType, cfg("red", "wheel"), metav1.PatchOptions{FieldManager: "controller"})
	if err != nil {
		t.Fatalf("apply that creates: %v", err)
	}
	mf := got.GetManagedFields()
	if len(mf) != 1 || mf[0].Manager != "controller" || mf[0].Operation != metav1.ManagedFieldsOperationApply || mf[0].FieldsType != "FieldsV1" {
		t.Fatalf("managedFields = %+v, want one Apply entry of controller", mf)
	}
	want := `{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:color":{},"f:parts":{"k:{\"name\":\"wheel\"}":{".":{},"f:count":{},"f:name":{}}}}}`
	if string(mf[0].FieldsV1.Raw) != want {
		t.Errorf("fieldsV1 = %s\nwant        %s", mf[0].FieldsV1.Raw, want)
	}
	_, err = res.Patch(ctx, "cg", types.ApplyPatchType, cfg("blue"), metav1.PatchOptions{FieldManager: "other"})
	if !apierrors.IsConflict(err) {
		t.Fatalf("conflicting apply: err = %v, want a 409 Conflict", err)
	}
	var se *apierrors.StatusError
	if !errors.As(err, &se) || se.ErrStatus.Details == nil || len(se.ErrStatus.Details.Causes) != 1 ||
		se.ErrStatus.Details.Causes[0].Type != metav1.CauseTypeFieldManagerConflict || se.ErrStatus.Details.Causes[0].Field != ".spec.color" {
		t.Errorf("conflict status = %+v, want one FieldManagerConflict cause on .spec.color", se)
	}
	force := true
	got, err = res.Patch(ctx, "cg", types.ApplyPatchType, cfg("blue"), metav1.PatchOptions{FieldManager: "other", Force: &force})
	if err != nil {
		t.Fatalf("forced apply: %v", err)
	}
	if c, _, _ := unstructured.NestedString(got.Object, "spec", "color"); c != "blue" {
		t.Errorf("color = %q after the forced apply, want blue", c)
	}
	// The first manager re-applies without the part: it is removed, nobody else owns it.
	got, err = res.Patch(ctx, "cg", types.ApplyPatchType, cfg("blue"), metav1.PatchOptions{FieldManager: "controller"})
	if err != nil {
		t.Fatalf("re-apply without the part: %v", err)
	}
	if parts, found, _ := unstructured.NestedSlice(got.Object, "spec", "parts"); found && len(parts) > 0 {
		t.Errorf("parts = %v, want none after controller stopped applying wheel", parts)
	}
}

func kubectlApplyUpgrade(t *testing.T, es *exampleServer) {
	const ns = "apply-upgrade"
	manifest := func(color string) string {
		return "apiVersion: toys.example.com/v1\nkind: Widget\nmetadata:\n  name: up\n  namespace: " + ns + "\nspec:\n  color: " + color + "\n"
	}
	es.mustKubectl(t, "apply", "-f", writeTemp(t, "c.yaml", manifest("red")))
	// Another manager would conflict on the color the client-side apply set...
	if res := es.kubectl(t, "", "apply", "--server-side", "--field-manager=other", "-f", writeTemp(t, "o.yaml", manifest("blue"))); res.ExitCode == 0 {
		t.Errorf("another manager's server-side apply did not conflict: %s", res.Stdout)
	}
	// ...but kubectl's own server-side apply inherits it, as in kube.
	res := es.mustKubectl(t, "apply", "--server-side", "-f", writeTemp(t, "s.yaml", manifest("green")))
	if got := strings.TrimSpace(res.Stdout); got != "widget.toys.example.com/up serverside-applied" {
		t.Errorf("output = %q", got)
	}
	if got := es.widgetJSONPath(t, ns, "up", "{.spec.color}"); got != "green" {
		t.Errorf("color = %q, want green", got)
	}
	ann := es.widgetJSONPath(t, ns, "up", `{.metadata.annotations.kubectl\.kubernetes\.io/last-applied-configuration}`)
	if !strings.Contains(ann, `"color":"green"`) {
		t.Errorf("last-applied-configuration = %s, want it updated to the server-side applied configuration", ann)
	}
}
