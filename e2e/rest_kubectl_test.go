package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// widgetYAML returns a Widget manifest; extra is inserted verbatim into metadata (already
// indented by four spaces per line, e.g. "  labels:\n    a: b\n").
func widgetYAML(namespace, name, color string, replicas int, extraMeta string) string {
	return fmt.Sprintf(`apiVersion: toys.example.com/v1
kind: Widget
metadata:
  name: %s
  namespace: %s
%sspec:
  color: %s
  replicas: %d
  parts:
  - name: wheel
    count: 4
`, name, namespace, extraMeta, color, replicas)
}

// lines returns the non-empty lines of s.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// names returns the sorted names printed by `kubectl get -o name` ("kind.group/name" lines).
func names(out string) []string {
	var ns []string
	for _, l := range lines(out) {
		if i := strings.LastIndex(l, "/"); i >= 0 {
			l = l[i+1:]
		}
		ns = append(ns, strings.TrimSpace(l))
	}
	slices.Sort(ns)
	return ns
}

// TestKubectl drives the example server with the real kubectl, once per storage backend.
func TestKubectl(t *testing.T) {
	requireKubectl(t)
	for _, backend := range storageBackends {
		t.Run("storage="+backend, func(t *testing.T) {
			es := startExampleServer(t, backend)
			t.Run("create -f then get shows the printer columns", func(t *testing.T) { kubectlCreateGet(t, es) })
			t.Run("get -o yaml and -o json show server-set fields", func(t *testing.T) { kubectlGetOutputFormats(t, es) })
			t.Run("label and annotate change metadata", func(t *testing.T) { kubectlLabelAnnotate(t, es) })
			t.Run("scale changes spec.replicas through /scale", func(t *testing.T) { kubectlScale(t, es) })
			t.Run("delete without finalizers removes the object", func(t *testing.T) { kubectlDeletePlain(t, es) })
			t.Run("delete with a finalizer waits for its removal", func(t *testing.T) { kubectlDeleteFinalizer(t, es) })
			t.Run("dry-run=server stores nothing", func(t *testing.T) { kubectlDryRun(t, es) })
			t.Run("validate strict rejects and warn warns about unknown fields", func(t *testing.T) { kubectlValidate(t, es) })
			t.Run("chunk-size pages through every object", func(t *testing.T) { kubectlChunkSize(t, es) })
			t.Run("label selectors of every operator", func(t *testing.T) { kubectlLabelSelectors(t, es) })
			t.Run("field selectors on registered and unsupported fields", func(t *testing.T) { kubectlFieldSelectors(t, es) })
			t.Run("explain widgets.spec lists its fields", func(t *testing.T) { kubectlExplain(t, es) })
			t.Run("api-resources lists widgets and warehouses", func(t *testing.T) { kubectlAPIResources(t, es) })
			t.Run("wait for jsonpath sees a status change", func(t *testing.T) { kubectlWaitJSONPath(t, es) })
			t.Run("cluster-scoped warehouse create and get", func(t *testing.T) { kubectlWarehouse(t, es) })
			t.Run("short name, category and all-namespaces listing", func(t *testing.T) { kubectlShortNameCategoryAllNamespaces(t, es) })
			t.Run("replace with a stale resourceVersion conflicts", func(t *testing.T) { kubectlReplaceConflict(t, es) })
			t.Run("apply, describe and another version", func(t *testing.T) { kubectlApplyDescribeVersions(t, es) })
			t.Run("delete by selector, --all and --cascade=orphan", func(t *testing.T) { kubectlDeleteMany(t, es) })
			t.Run("sort-by, custom-columns and wide output", func(t *testing.T) { kubectlSortAndColumns(t, es) })
			t.Run("a wrong token is Unauthorized", func(t *testing.T) {
				res := es.kubectl(t, "", "get", "widgets", "--token=wrong")
				if res.ExitCode == 0 || !strings.Contains(res.Stderr, "Unauthorized") {
					t.Errorf("kubectl with a wrong token: exit %d, stderr %q; want Unauthorized", res.ExitCode, res.Stderr)
				}
			})
		})
	}
}

func kubectlCreateGet(t *testing.T, es *exampleServer) {
	const ns = "create-get"
	file := writeTemp(t, "w.yaml", widgetYAML(ns, "w1", "red", 2, ""))
	res := es.mustKubectl(t, "create", "-f", file)
	if got, want := strings.TrimSpace(res.Stdout), "widget.toys.example.com/w1 created"; got != want {
		t.Errorf("create output = %q, want %q", got, want)
	}
	res = es.mustKubectl(t, "get", "widgets", "-n", ns)
	ls := lines(res.Stdout)
	if len(ls) != 2 {
		t.Fatalf("get widgets printed %d lines, want header and one row:\n%s", len(ls), res.Stdout)
	}
	if got := strings.Fields(ls[0]); !slices.Equal(got, []string{"NAME", "COLOR", "REPLICAS", "PHASE", "AGE"}) {
		t.Errorf("header = %q, want NAME COLOR REPLICAS PHASE AGE", got)
	}
	// Phase is empty; kubectl prints <none>... or nothing for empty strings. The AGE value
	// is the last field and looks like 0s/1s.
	row := strings.Fields(ls[1])
	if len(row) < 4 || row[0] != "w1" || row[1] != "red" || row[2] != "2" {
		t.Errorf("row = %q, want w1 red 2 ...", row)
	}
	if age := row[len(row)-1]; !regexp.MustCompile(`^\d+(s|m)`).MatchString(age) {
		t.Errorf("AGE column = %q, want a duration like 3s", age)
	}
	res = es.kubectl(t, "", "create", "-f", file)
	if res.ExitCode == 0 || !strings.Contains(res.Stderr, "AlreadyExists") && !strings.Contains(res.Stderr, "already exists") {
		t.Errorf("second create: exit %d, stderr %q; want an AlreadyExists error", res.ExitCode, res.Stderr)
	}
}

func kubectlGetOutputFormats(t *testing.T, es *exampleServer) {
	const ns = "formats"
	es.mustKubectl(t, "create", "-f", writeTemp(t, "w.yaml", widgetYAML(ns, "fmt", "blue", 3, "")))
	res := es.mustKubectl(t, "get", "widget", "fmt", "-n", ns, "-o", "yaml")
	for _, want := range []string{"apiVersion: toys.example.com/v1", "kind: Widget", "color: blue", "replicas: 3", "uid:", "creationTimestamp:", "resourceVersion:", "generation: 1", "namespace: " + ns, "name: wheel"} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("get -o yaml lacks %q:\n%s", want, res.Stdout)
		}
	}
	res = es.mustKubectl(t, "get", "widget", "fmt", "-n", ns, "-o", "json")
	var obj struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name, Namespace, UID, ResourceVersion, CreationTimestamp string
			Generation                                               int64
		} `json:"metadata"`
		Spec struct {
			Color    string `json:"color"`
			Replicas int    `json:"replicas"`
		} `json:"spec"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &obj); err != nil {
		t.Fatalf("get -o json is not JSON: %v\n%s", err, res.Stdout)
	}
	if obj.APIVersion != "toys.example.com/v1" || obj.Kind != "Widget" || obj.Metadata.Name != "fmt" || obj.Metadata.Namespace != ns ||
		obj.Metadata.UID == "" || obj.Metadata.ResourceVersion == "" || obj.Metadata.CreationTimestamp == "" || obj.Metadata.Generation != 1 ||
		obj.Spec.Color != "blue" || obj.Spec.Replicas != 3 {
		t.Errorf("get -o json = %+v", obj)
	}
	// The same object as a list, in JSON.
	res = es.mustKubectl(t, "get", "widgets", "-n", ns, "-o", "json")
	var list struct {
		Kind  string            `json:"kind"`
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &list); err != nil || list.Kind != "List" || len(list.Items) != 1 {
		t.Errorf("get widgets -o json = kind %q, %d items (err %v), want List with 1 item", list.Kind, len(list.Items), err)
	}
}

func kubectlLabelAnnotate(t *testing.T, es *exampleServer) {
	const ns = "label-annotate"
	es.mustKubectl(t, "create", "-f", writeTemp(t, "w.yaml", widgetYAML(ns, "la", "green", 1, "")))
	tests := []struct {
		name     string
		args     []string
		wantOut  string
		jsonpath string
		want     string
	}{
		{"label adds a label", []string{"label", "widget", "la", "tier=gold"}, "widget.toys.example.com/la labeled", "{.metadata.labels.tier}", "gold"},
		{"label --overwrite changes it", []string{"label", "widget", "la", "tier=silver", "--overwrite"}, "widget.toys.example.com/la labeled", "{.metadata.labels.tier}", "silver"},
		{"label key- removes it", []string{"label", "widget", "la", "tier-"}, "widget.toys.example.com/la unlabeled", "{.metadata.labels}", ""},
		{"annotate adds an annotation", []string{"annotate", "widget", "la", "note=hello world"}, "widget.toys.example.com/la annotated", "{.metadata.annotations.note}", "hello world"},
		{"generation is not bumped by metadata changes", []string{"annotate", "widget", "la", "other=x"}, "widget.toys.example.com/la annotated", "{.metadata.generation}", "1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := es.mustKubectl(t, append(tt.args, "-n", ns)...)
			if got := strings.TrimSpace(res.Stdout); got != tt.wantOut {
				t.Errorf("output = %q, want %q", got, tt.wantOut)
			}
			res = es.mustKubectl(t, "get", "widget", "la", "-n", ns, "-o", "jsonpath="+tt.jsonpath)
			if got := strings.TrimSpace(res.Stdout); got != tt.want {
				t.Errorf("%s = %q, want %q", tt.jsonpath, got, tt.want)
			}
		})
	}
}

func kubectlScale(t *testing.T, es *exampleServer) {
	const ns = "scale"
	es.mustKubectl(t, "create", "-f", writeTemp(t, "w.yaml", widgetYAML(ns, "sc", "red", 1, "")))
	res := es.mustKubectl(t, "scale", "widget", "sc", "-n", ns, "--replicas=5")
	if got, want := strings.TrimSpace(res.Stdout), "widget.toys.example.com/sc scaled"; got != want {
		t.Errorf("scale output = %q, want %q", got, want)
	}
	res = es.mustKubectl(t, "get", "widget", "sc", "-n", ns, "-o", "jsonpath={.spec.replicas} {.metadata.generation}")
	if got := strings.TrimSpace(res.Stdout); got != "5 2" {
		t.Errorf("spec.replicas generation = %q, want \"5 2\" (scaling is a spec change)", got)
	}
	res = es.mustKubectl(t, "get", "--raw", "/apis/toys.example.com/v1/namespaces/"+ns+"/widgets/sc/scale")
	var scale struct {
		APIVersion, Kind string
		Metadata         struct{ Name, Namespace string }
		Spec             struct{ Replicas int }
	}
	if err := json.Unmarshal([]byte(res.Stdout), &scale); err != nil {
		t.Fatalf("/scale is not JSON: %v: %s", err, res.Stdout)
	}
	if scale.APIVersion != "autoscaling/v1" || scale.Kind != "Scale" || scale.Metadata.Name != "sc" || scale.Spec.Replicas != 5 {
		t.Errorf("/scale = %+v, want autoscaling/v1 Scale sc with spec.replicas 5", scale)
	}
	// A precondition on the current size: --current-replicas that does not match fails.
	res = es.kubectl(t, "", "scale", "widget", "sc", "-n", ns, "--current-replicas=2", "--replicas=7")
	if res.ExitCode == 0 {
		t.Errorf("scale --current-replicas=2 on a widget with 5 succeeded: %s", res.Stdout)
	}
}

func kubectlDeletePlain(t *testing.T, es *exampleServer) {
	// Not the default namespace: after a NotFound there kubectl looks the namespace up
	// (GET /api/v1/namespaces/NS) and would report a failed lookup instead.
	const ns = "delete-plain"
	es.mustKubectl(t, "create", "-f", writeTemp(t, "w.yaml", widgetYAML(ns, "gone", "red", 1, "")))
	res := es.mustKubectl(t, "delete", "widget", "gone", "-n", ns)
	if got, want := strings.TrimSpace(res.Stdout), `widget.toys.example.com "gone" deleted`; got != want {
		t.Errorf("delete output = %q, want %q", got, want)
	}
	res = es.kubectl(t, "", "get", "widget", "gone", "-n", ns)
	if res.ExitCode == 0 || !strings.Contains(res.Stderr, `widgets.toys.example.com "gone" not found`) {
		t.Errorf("get after delete: exit %d, stderr %q; want NotFound", res.ExitCode, res.Stderr)
	}
	res = es.kubectl(t, "", "delete", "widget", "gone", "-n", ns)
	if res.ExitCode == 0 || !strings.Contains(res.Stderr, "not found") {
		t.Errorf("second delete: exit %d, stderr %q; want NotFound", res.ExitCode, res.Stderr)
	}
}

func kubectlDeleteFinalizer(t *testing.T, es *exampleServer) {
	const ns = "delete-finalizer"
	tests := []struct {
		name  string
		patch []string
	}{
		{"merge patch removes the finalizer", []string{"--type", "merge", "-p", `{"metadata":{"finalizers":null}}`}},
		{"json patch removes the finalizer", []string{"--type", "json", "-p", `[{"op":"remove","path":"/metadata/finalizers/0"}]`}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := fmt.Sprintf("held-%d", i)
			es.mustKubectl(t, "create", "-f", writeTemp(t, "w.yaml", widgetYAML(ns, name, "red", 1, "  finalizers:\n  - example.com/hold\n")))
			res := es.mustKubectl(t, "delete", "widget", name, "-n", ns, "--wait=false")
			if !strings.Contains(res.Stdout, "deleted") {
				t.Errorf("delete output = %q, want ... deleted", res.Stdout)
			}
			res = es.mustKubectl(t, "get", "widget", name, "-n", ns, "-o", "jsonpath={.metadata.deletionTimestamp}|{.metadata.finalizers[0]}")
			ts, fin, _ := strings.Cut(strings.TrimSpace(res.Stdout), "|")
			if ts == "" || fin != "example.com/hold" {
				t.Fatalf("after delete: deletionTimestamp %q, finalizer %q; want a timestamp and the finalizer kept", ts, fin)
			}
			// Spec changes are refused or ignored while deleting, but metadata can change.
			es.mustKubectl(t, append([]string{"patch", "widget", name, "-n", ns}, tt.patch...)...)
			res = es.kubectl(t, "", "get", "widget", name, "-n", ns)
			if res.ExitCode == 0 || !strings.Contains(res.Stderr, "(NotFound)") {
				t.Errorf("get after removing the last finalizer: exit %d, stdout %q, stderr %q; want NotFound", res.ExitCode, res.Stdout, res.Stderr)
			}
		})
	}
}

func kubectlDryRun(t *testing.T, es *exampleServer) {
	const ns = "dry-run"
	file := writeTemp(t, "w.yaml", widgetYAML(ns, "dry", "red", 1, ""))
	res := es.mustKubectl(t, "create", "-f", file, "--dry-run=server", "-v=6")
	if !strings.Contains(res.Stderr, "dryRun=All") {
		t.Errorf("kubectl -v=6 shows no dryRun=All request:\n%s", res.Stderr)
	}
	res = es.mustKubectl(t, "create", "-f", file, "--dry-run=server")
	if got, want := strings.TrimSpace(res.Stdout), "widget.toys.example.com/dry created (server dry run)"; got != want {
		t.Errorf("create --dry-run=server output = %q, want %q", got, want)
	}
	if res := es.kubectl(t, "", "get", "widget", "dry", "-n", ns); res.ExitCode == 0 {
		t.Fatalf("dry-run create stored the widget: %s", res.Stdout)
	}
	// Dry-run still validates: a bad color is rejected.
	bad := writeTemp(t, "bad.yaml", widgetYAML(ns, "dry-bad", "purple", 1, ""))
	if res := es.kubectl(t, "", "create", "-f", bad, "--dry-run=server"); res.ExitCode == 0 || !strings.Contains(res.Stderr, "spec.color") {
		t.Errorf("dry-run create of a purple widget: exit %d, stderr %q; want an Invalid error on spec.color", res.ExitCode, res.Stderr)
	}
	es.mustKubectl(t, "create", "-f", file)
	tests := []struct {
		name     string
		args     []string
		jsonpath string
		want     string
	}{
		{"label", []string{"label", "widget", "dry", "x=y"}, "{.metadata.labels.x}", ""},
		{"scale", []string{"scale", "widget", "dry", "--replicas=9"}, "{.spec.replicas}", "1"},
		{"patch", []string{"patch", "widget", "dry", "--type", "merge", "-p", `{"spec":{"color":"blue"}}`}, "{.spec.color}", "red"},
		{"delete", []string{"delete", "widget", "dry"}, "{.metadata.name}", "dry"},
	}
	for _, tt := range tests {
		t.Run(tt.name+" changes nothing", func(t *testing.T) {
			res := es.mustKubectl(t, append(tt.args, "-n", ns, "--dry-run=server", "-v=6")...)
			// kubectl sends dryRun=All in the query, or for DELETE in the DeleteOptions body.
			if !regexp.MustCompile(`((PATCH|PUT) \S+dryRun=All|DELETE \S+)\S* 200 OK`).MatchString(res.Stderr) {
				t.Errorf("kubectl -v=6 shows no successful mutating request with dryRun=All:\n%s", res.Stderr)
			}
			res = es.mustKubectl(t, "get", "widget", "dry", "-n", ns, "-o", "jsonpath="+tt.jsonpath)
			if got := strings.TrimSpace(res.Stdout); got != tt.want {
				t.Errorf("%s = %q after dry run, want %q", tt.jsonpath, got, tt.want)
			}
		})
	}
}

func kubectlValidate(t *testing.T, es *exampleServer) {
	const ns = "validate"
	manifest := func(name string) string {
		return strings.Replace(widgetYAML(ns, name, "red", 1, ""), "  color: red\n", "  color: red\n  colour: red\n", 1)
	}
	res := es.kubectl(t, "", "create", "-f", writeTemp(t, "strict.yaml", manifest("strict")), "--validate=strict")
	if res.ExitCode == 0 {
		t.Errorf("create --validate=strict with spec.colour succeeded: %s", res.Stdout)
	}
	if !strings.Contains(res.Stderr, "colour") {
		t.Errorf("strict error does not name the unknown field spec.colour: %q", res.Stderr)
	}
	if res := es.kubectl(t, "", "get", "widget", "strict", "-n", ns); res.ExitCode == 0 {
		t.Errorf("the strictly rejected widget was stored")
	}

	res = es.mustKubectl(t, "create", "-f", writeTemp(t, "warn.yaml", manifest("warn")), "--validate=warn")
	if !strings.Contains(res.Stderr, "Warning:") || !strings.Contains(res.Stderr, "colour") {
		t.Errorf("create --validate=warn printed no warning naming spec.colour; stderr %q", res.Stderr)
	}
	res = es.mustKubectl(t, "create", "-f", writeTemp(t, "ignore.yaml", manifest("ignore")), "--validate=false")
	if strings.Contains(res.Stderr, "colour") {
		t.Errorf("create --validate=false warned anyway: %q", res.Stderr)
	}
	// (Duplicate fields cannot be sent with kubectl: it decodes manifests itself, keeping
	// one value. TestRawHTTP covers them.)
}

func kubectlChunkSize(t *testing.T, es *exampleServer) {
	const ns = "chunks"
	var docs []string
	for i := range 5 {
		docs = append(docs, widgetYAML(ns, fmt.Sprintf("c%d", i), "red", 1, ""))
	}
	es.mustKubectl(t, "create", "-f", writeTemp(t, "w.yaml", strings.Join(docs, "---\n")))
	res := es.mustKubectl(t, "get", "widgets", "-n", ns, "--chunk-size=2", "-o", "name", "-v=6")
	if got, want := names(res.Stdout), []string{"c0", "c1", "c2", "c3", "c4"}; !slices.Equal(got, want) {
		t.Errorf("get --chunk-size=2 listed %q, want %q", got, want)
	}
	if !strings.Contains(res.Stderr, "limit=2") || !strings.Contains(res.Stderr, "continue=") {
		t.Errorf("kubectl -v=6 shows no limit=2 / continue= requests:\n%s", res.Stderr)
	}
	// The table printer pages too.
	res = es.mustKubectl(t, "get", "widgets", "-n", ns, "--chunk-size=2")
	if got := len(lines(res.Stdout)); got != 6 {
		t.Errorf("get --chunk-size=2 (table) printed %d lines, want header and 5 rows:\n%s", got, res.Stdout)
	}
}

func kubectlLabelSelectors(t *testing.T, es *exampleServer) {
	const ns = "selectors"
	objs := []struct{ name, labels string }{
		{"a", "  labels:\n    env: prod\n    tier: \"1\"\n"},
		{"b", "  labels:\n    env: dev\n"},
		{"c", "  labels:\n    env: staging\n    tier: \"2\"\n"},
		{"d", ""},
	}
	var docs []string
	for _, o := range objs {
		docs = append(docs, widgetYAML(ns, o.name, "red", 1, o.labels))
	}
	es.mustKubectl(t, "create", "-f", writeTemp(t, "w.yaml", strings.Join(docs, "---\n")))
	tests := []struct {
		selector string
		want     []string
	}{
		{"env=prod", []string{"a"}},
		{"env==prod", []string{"a"}},
		{"env!=prod", []string{"b", "c", "d"}},
		{"env in (dev,staging)", []string{"b", "c"}},
		{"env notin (prod,dev)", []string{"c", "d"}},
		{"tier", []string{"a", "c"}},
		{"!tier", []string{"b", "d"}},
		{"env,tier=2", []string{"c"}},
		{"env=none", nil},
	}
	for _, tt := range tests {
		t.Run(tt.selector, func(t *testing.T) {
			res := es.mustKubectl(t, "get", "widgets", "-n", ns, "-l", tt.selector, "-o", "name")
			if got := names(res.Stdout); !slices.Equal(got, tt.want) {
				t.Errorf("-l %q listed %q, want %q", tt.selector, got, tt.want)
			}
		})
	}
	if res := es.kubectl(t, "", "get", "widgets", "-n", ns, "-l", "env in (prod"); res.ExitCode == 0 {
		t.Errorf("a malformed selector was accepted: %s", res.Stdout)
	}
}

func kubectlFieldSelectors(t *testing.T, es *exampleServer) {
	const ns = "fields"
	var docs []string
	for _, c := range []struct{ name, color string }{{"r1", "red"}, {"r2", "red"}, {"g1", "green"}} {
		docs = append(docs, widgetYAML(ns, c.name, c.color, 1, ""))
	}
	es.mustKubectl(t, "create", "-f", writeTemp(t, "w.yaml", strings.Join(docs, "---\n")))
	es.mustKubectl(t, "patch", "widget", "g1", "-n", ns, "--subresource=status", "--type", "merge", "-p", `{"status":{"phase":"Ready"}}`)
	tests := []struct {
		selector string
		want     []string
	}{
		{"spec.color=red", []string{"r1", "r2"}},
		{"spec.color!=red", []string{"g1"}},
		{"spec.color==green", []string{"g1"}},
		{"status.phase=Ready", []string{"g1"}},
		{"metadata.name=r2", []string{"r2"}},
		{"metadata.namespace=" + ns + ",spec.color=red", []string{"r1", "r2"}},
		{"spec.color=blue", nil},
	}
	for _, tt := range tests {
		t.Run(tt.selector, func(t *testing.T) {
			res := es.mustKubectl(t, "get", "widgets", "-n", ns, "--field-selector", tt.selector, "-o", "name")
			if got := names(res.Stdout); !slices.Equal(got, tt.want) {
				t.Errorf("--field-selector %q listed %q, want %q", tt.selector, got, tt.want)
			}
		})
	}
	t.Run("an unsupported field is a 400 naming it", func(t *testing.T) {
		res := es.kubectl(t, "", "get", "widgets", "-n", ns, "--field-selector", "spec.replicas=1")
		if res.ExitCode == 0 {
			t.Fatalf("field selector on spec.replicas accepted: %s", res.Stdout)
		}
		if !strings.Contains(res.Stderr, "spec.replicas") {
			t.Errorf("error does not name spec.replicas: %q", res.Stderr)
		}
	})
}

func kubectlExplain(t *testing.T, es *exampleServer) {
	res := es.mustKubectl(t, "explain", "widgets.spec")
	for _, want := range []string{"KIND:", "Widget", "VERSION:", "v1", "color", "replicas", "parts", "<string>", "<integer>", "<[]"} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("explain widgets.spec lacks %q:\n%s", want, res.Stdout)
		}
	}
	res = es.mustKubectl(t, "explain", "widgets.spec.parts")
	if !strings.Contains(res.Stdout, "name") || !strings.Contains(res.Stdout, "count") {
		t.Errorf("explain widgets.spec.parts lacks name/count:\n%s", res.Stdout)
	}
	res = es.mustKubectl(t, "explain", "widgets", "--recursive")
	for _, want := range []string{"metadata", "status", "phase", "conditions"} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("explain widgets --recursive lacks %q", want)
		}
	}
	res = es.mustKubectl(t, "explain", "warehouses.spec")
	if !strings.Contains(res.Stdout, "location") || !strings.Contains(res.Stdout, "capacity") {
		t.Errorf("explain warehouses.spec lacks location/capacity:\n%s", res.Stdout)
	}
}

func kubectlAPIResources(t *testing.T, es *exampleServer) {
	// kubectl asks /api and /apis for aggregated discovery first; a usable answer means it
	// needs no per-group-version requests.
	res := es.mustKubectl(t, "api-resources", "-v=6")
	if !strings.Contains(res.Stderr, "GET "+strings.Replace(es.URL, "http://", "https://", 1)+"/apis?") {
		t.Errorf("kubectl did not fetch /apis:\n%s", res.Stderr)
	}
	if strings.Contains(res.Stderr, "/apis/toys.example.com/v1?") || strings.Contains(res.Stderr, "/apis/toys.example.com?") {
		t.Errorf("kubectl fell back to legacy per-group discovery (aggregated discovery unusable):\n%s", res.Stderr)
	}
	rows := map[string][]string{}
	for _, l := range lines(res.Stdout)[1:] {
		f := strings.Fields(l)
		rows[f[0]] = f
	}
	tests := []struct {
		resource string
		want     []string
	}{
		{"widgets", []string{"widgets", "wg", "toys.example.com/v1", "true", "Widget"}},
		{"warehouses", []string{"warehouses", "toys.example.com/v1", "false", "Warehouse"}},
	}
	for _, tt := range tests {
		if got := rows[tt.resource]; !slices.Equal(got, tt.want) {
			t.Errorf("api-resources row of %s = %q, want %q\n%s", tt.resource, got, tt.want, res.Stdout)
		}
	}
	res = es.mustKubectl(t, "api-resources", "-o", "wide")
	for _, l := range lines(res.Stdout) {
		f := strings.Fields(l)
		if f[0] != "widgets" {
			continue
		}
		if len(f) != 7 {
			t.Fatalf("api-resources -o wide row of widgets = %q, want 7 fields", f)
		}
		verbs := strings.Split(f[5], ",")
		slices.Sort(verbs)
		if want := []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}; !slices.Equal(verbs, want) || f[6] != "all" {
			t.Errorf("widgets verbs %q, categories %q; want %q and all", verbs, f[6], want)
		}
	}
	res = es.mustKubectl(t, "api-versions")
	if !strings.Contains(res.Stdout, "toys.example.com/v1\n") {
		t.Errorf("api-versions lacks toys.example.com/v1:\n%s", res.Stdout)
	}
}

func kubectlWaitJSONPath(t *testing.T, es *exampleServer) {
	const ns = "wait"
	es.mustKubectl(t, "create", "-f", writeTemp(t, "w.yaml", widgetYAML(ns, "waiter", "red", 1, "")))
	done := make(chan kubectlResult, 1)
	go func() {
		done <- es.kubectl(t, "", "wait", "widget/waiter", "-n", ns, "--for=jsonpath={.status.phase}=Ready", "--timeout=40s")
	}()
	// Not Ready yet: wait must still be waiting (it cannot have succeeded). Then set the
	// status through /status.
	res := es.mustKubectl(t, "patch", "widget", "waiter", "-n", ns, "--subresource=status", "--type", "merge", "-p", `{"status":{"phase":"Ready"}}`)
	if !strings.Contains(res.Stdout, "patched") {
		t.Errorf("status patch output = %q", res.Stdout)
	}
	res = <-done
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "condition met") {
		t.Errorf("kubectl wait: exit %d, stdout %q, stderr %q; want condition met", res.ExitCode, res.Stdout, res.Stderr)
	}
	// A status patch through the main resource is ignored; the status subresource keeps
	// generation.
	es.mustKubectl(t, "patch", "widget", "waiter", "-n", ns, "--type", "merge", "-p", `{"status":{"phase":"Broken"}}`)
	res = es.mustKubectl(t, "get", "widget", "waiter", "-n", ns, "-o", "jsonpath={.status.phase} {.metadata.generation}")
	if got := strings.TrimSpace(res.Stdout); got != "Ready 1" {
		t.Errorf("phase generation = %q, want \"Ready 1\" (main-resource patches ignore status)", got)
	}
	res = es.mustKubectl(t, "get", "widgets", "-n", ns)
	if row := strings.Fields(lines(res.Stdout)[1]); len(row) != 5 || row[3] != "Ready" {
		t.Errorf("get row = %q, want PHASE Ready", row)
	}
}

func kubectlWarehouse(t *testing.T, es *exampleServer) {
	file := writeTemp(t, "wh.yaml", `apiVersion: toys.example.com/v1
kind: Warehouse
metadata:
  name: north
spec:
  location: Oslo
  capacity: 100
`)
	res := es.mustKubectl(t, "create", "-f", file)
	if got, want := strings.TrimSpace(res.Stdout), "warehouse.toys.example.com/north created"; got != want {
		t.Errorf("create output = %q, want %q", got, want)
	}
	res = es.mustKubectl(t, "get", "warehouses")
	ls := lines(res.Stdout)
	// Without printer columns: kube-apiserver's default table, Name and Created At.
	if len(ls) != 2 || !slices.Equal(strings.Fields(ls[0]), []string{"NAME", "CREATED", "AT"}) ||
		!regexp.MustCompile(`^north\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`).MatchString(ls[1]) {
		t.Errorf("get warehouses =\n%s\nwant NAME CREATED AT and a north row with an RFC 3339 time", res.Stdout)
	}
	res = es.mustKubectl(t, "get", "warehouse", "north", "-o", "jsonpath={.metadata.namespace}|{.spec.location}|{.metadata.selfLink}")
	if got := res.Stdout; got != "|Oslo|" {
		t.Errorf("namespace|location|selfLink = %q, want \"|Oslo|\"", got)
	}
	// Through the raw cluster-scoped path and with a namespace in the path (404).
	res = es.mustKubectl(t, "get", "--raw", "/apis/toys.example.com/v1/warehouses/north")
	if !strings.Contains(res.Stdout, `"location":"Oslo"`) {
		t.Errorf("raw get = %s", res.Stdout)
	}
	if res := es.kubectl(t, "", "get", "--raw", "/apis/toys.example.com/v1/namespaces/default/warehouses/north"); res.ExitCode == 0 {
		t.Errorf("a namespaced path to a cluster-scoped resource answered: %s", res.Stdout)
	}
	res = es.kubectl(t, "", "create", "-f", writeTemp(t, "bad.yaml", "apiVersion: toys.example.com/v1\nkind: Warehouse\nmetadata:\n  name: nowhere\nspec:\n  capacity: -1\n"))
	if res.ExitCode == 0 || !strings.Contains(res.Stderr, "spec.location") || !strings.Contains(res.Stderr, "spec.capacity") {
		t.Errorf("invalid warehouse: exit %d, stderr %q; want Invalid naming spec.location and spec.capacity", res.ExitCode, res.Stderr)
	}
	es.mustKubectl(t, "delete", "warehouse", "north")
}

func kubectlShortNameCategoryAllNamespaces(t *testing.T, es *exampleServer) {
	for _, ns := range []string{"allns-a", "allns-b"} {
		es.mustKubectl(t, "create", "-f", writeTemp(t, "w.yaml", widgetYAML(ns, "same", "blue", 1, "")))
	}
	res := es.mustKubectl(t, "get", "wg", "-n", "allns-a", "-o", "name")
	if got := names(res.Stdout); !slices.Equal(got, []string{"same"}) {
		t.Errorf("get wg = %q", got)
	}
	res = es.mustKubectl(t, "get", "widgets", "-A", "--field-selector", "metadata.name=same")
	ls := lines(res.Stdout)
	if len(ls) != 3 || strings.Fields(ls[0])[0] != "NAMESPACE" || !strings.HasPrefix(ls[1], "allns-a") || !strings.HasPrefix(ls[2], "allns-b") {
		t.Errorf("get widgets -A =\n%s\nwant a NAMESPACE column and one row per namespace", res.Stdout)
	}
	res = es.mustKubectl(t, "get", "all", "-n", "allns-b", "-o", "name")
	if got := strings.TrimSpace(res.Stdout); got != "widget.toys.example.com/same" {
		t.Errorf("get all = %q, want the widget (category all)", got)
	}
}

func kubectlReplaceConflict(t *testing.T, es *exampleServer) {
	const ns = "replace"
	es.mustKubectl(t, "create", "-f", writeTemp(t, "w.yaml", widgetYAML(ns, "rep", "red", 1, "")))
	stale := es.mustKubectl(t, "get", "widget", "rep", "-n", ns, "-o", "yaml").Stdout
	es.mustKubectl(t, "label", "widget", "rep", "-n", ns, "bump=1")
	res := es.kubectl(t, "", "replace", "-f", writeTemp(t, "stale.yaml", strings.Replace(stale, "color: red", "color: green", 1)))
	if res.ExitCode == 0 || !strings.Contains(res.Stderr, "the object has been modified") {
		t.Errorf("replace with a stale resourceVersion: exit %d, stderr %q; want a Conflict", res.ExitCode, res.Stderr)
	}
	fresh := es.mustKubectl(t, "get", "widget", "rep", "-n", ns, "-o", "yaml").Stdout
	es.mustKubectl(t, "replace", "-f", writeTemp(t, "fresh.yaml", strings.Replace(fresh, "color: red", "color: green", 1)))
	res = es.mustKubectl(t, "get", "widget", "rep", "-n", ns, "-o", "jsonpath={.spec.color} {.metadata.generation}")
	if got := strings.TrimSpace(res.Stdout); got != "green 2" {
		t.Errorf("after replace: color generation = %q, want \"green 2\"", got)
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader in other goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestKubectl_GetWatch runs `kubectl get --watch`: after the initial table it prints a
// row per change, with the same server-side columns (kubectl asks the watch for Tables).
func TestKubectl_GetWatch(t *testing.T) {
	requireKubectl(t)
	es := startExampleServer(t, "memory")
	const ns = "get-watch"
	es.mustKubectl(t, "create", "-f", writeTemp(t, "w.yaml", widgetYAML(ns, "gw", "red", 1, "")))

	ctx, cancel := context.WithTimeout(context.Background(), kubectlTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, kubectlPath, "--kubeconfig", es.KubeconfigPath, "get", "widgets", "-n", ns,
		"--watch", "--output-watch-events", "--request-timeout=5s")
	var stdout, stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = append(os.Environ(), "KUBECACHEDIR="+filepath.Join(t.TempDir(), "kubecache"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// kubectl prints the listed rows before it watches from the list's resourceVersion:
	// a change made after the first row shows up in the watch.
	for !strings.Contains(stdout.String(), "gw") {
		select {
		case <-ctx.Done():
			t.Fatalf("kubectl get --watch printed nothing; stderr %s", stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	es.mustKubectl(t, "patch", "widget", "gw", "-n", ns, "--type", "merge", "-p", `{"spec":{"color":"blue","replicas":3}}`)
	err := cmd.Wait() // the watch ends after --request-timeout
	out := lines(stdout.String())
	if err != nil && ctx.Err() != nil {
		t.Fatalf("kubectl get --watch did not end: %v", err)
	}
	if len(out) < 3 {
		t.Fatalf("kubectl get --watch printed %q, want a header, the ADDED row and a MODIFIED row; stderr %s", out, stderr.String())
	}
	if got := strings.Fields(out[0]); !slices.Equal(got, []string{"EVENT", "NAME", "COLOR", "REPLICAS", "PHASE", "AGE"}) {
		t.Errorf("header = %q", got)
	}
	var modified []string
	for _, l := range out[1:] {
		if f := strings.Fields(l); len(f) > 0 && f[0] == "MODIFIED" {
			modified = f
		}
	}
	if len(modified) < 4 || modified[1] != "gw" || modified[2] != "blue" || modified[3] != "3" {
		t.Errorf("watch output:\n%s\nwant a MODIFIED gw blue 3 row under the same columns", strings.Join(out, "\n"))
	}
}

func kubectlApplyDescribeVersions(t *testing.T, es *exampleServer) {
	const ns = "apply"
	res := es.mustKubectl(t, "apply", "-f", writeTemp(t, "w.yaml", widgetYAML(ns, "ap", "red", 1, "")))
	if got, want := strings.TrimSpace(res.Stdout), "widget.toys.example.com/ap created"; got != want {
		t.Errorf("first apply = %q, want %q", got, want)
	}
	// Client-side apply patches with a strategic merge patch computed against the last
	// applied configuration.
	res = es.mustKubectl(t, "apply", "-f", writeTemp(t, "w.yaml", widgetYAML(ns, "ap", "green", 4, "")))
	if got, want := strings.TrimSpace(res.Stdout), "widget.toys.example.com/ap configured"; got != want {
		t.Errorf("second apply = %q, want %q", got, want)
	}
	res = es.mustKubectl(t, "get", "widget", "ap", "-n", ns, "-o", "jsonpath={.spec.color} {.spec.replicas}")
	if got := strings.TrimSpace(res.Stdout); got != "green 4" {
		t.Errorf("after apply: %q, want \"green 4\"", got)
	}
	res = es.mustKubectl(t, "describe", "widget", "ap", "-n", ns)
	for _, want := range []string{"Name:         ap", "Namespace:    " + ns, "Kind:         Widget", "Color:", "green"} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("describe lacks %q:\n%s", want, res.Stdout)
		}
	}
	// The same object at v1alpha1, converted by the server.
	res = es.mustKubectl(t, "get", "widgets.v1alpha1.toys.example.com", "ap", "-n", ns, "-o", "json")
	var old struct {
		APIVersion string
		Spec       map[string]any
	}
	if err := json.Unmarshal([]byte(res.Stdout), &old); err != nil {
		t.Fatal(err)
	}
	if old.APIVersion != "toys.example.com/v1alpha1" || old.Spec["paint"] != "green" {
		t.Errorf("v1alpha1 widget = %s %v, want toys.example.com/v1alpha1 with spec.paint green", old.APIVersion, old.Spec)
	}
	es.mustKubectl(t, "delete", "widget", "ap", "-n", ns, "--wait=true", "--timeout=30s")
	if res := es.kubectl(t, "", "wait", "widget/ap", "-n", ns, "--for=delete", "--timeout=10s"); res.ExitCode != 0 {
		t.Errorf("wait --for=delete on a deleted widget: exit %d, stderr %q", res.ExitCode, res.Stderr)
	}
}

func kubectlDeleteMany(t *testing.T, es *exampleServer) {
	const ns = "delete-many"
	var docs []string
	for i, env := range []string{"dev", "dev", "prod", "prod", "test"} {
		docs = append(docs, widgetYAML(ns, fmt.Sprintf("d%d", i), "red", 1, "  labels:\n    env: "+env+"\n"))
	}
	es.mustKubectl(t, "create", "-f", writeTemp(t, "w.yaml", strings.Join(docs, "---\n")))
	res := es.mustKubectl(t, "delete", "widgets", "-n", ns, "-l", "env=dev")
	if got := len(lines(res.Stdout)); got != 2 || !strings.Contains(res.Stdout, `"d0" deleted`) {
		t.Errorf("delete -l env=dev printed %q, want d0 and d1 deleted", res.Stdout)
	}
	res = es.mustKubectl(t, "delete", "widget", "d2", "-n", ns, "--cascade=orphan", "-v=6")
	if !strings.Contains(res.Stdout, `"d2" deleted`) {
		t.Errorf("delete --cascade=orphan printed %q", res.Stdout)
	}
	res = es.mustKubectl(t, "delete", "widgets", "-n", ns, "--all")
	if got := names(es.mustKubectl(t, "get", "widgets", "-n", ns, "-o", "name").Stdout); len(got) != 0 {
		t.Errorf("after delete --all: %q remain (delete printed %q)", got, res.Stdout)
	}
}

func kubectlSortAndColumns(t *testing.T, es *exampleServer) {
	const ns = "sort"
	var docs []string
	for _, w := range []struct {
		name     string
		replicas int
	}{{"a", 3}, {"b", 1}, {"c", 2}} {
		docs = append(docs, widgetYAML(ns, w.name, "blue", w.replicas, ""))
	}
	es.mustKubectl(t, "create", "-f", writeTemp(t, "w.yaml", strings.Join(docs, "---\n")))
	// --sort-by on a server-side table makes kubectl ask for includeObject=Object.
	res := es.mustKubectl(t, "get", "widgets", "-n", ns, "--sort-by=.spec.replicas")
	var order []string
	for _, l := range lines(res.Stdout)[1:] {
		order = append(order, strings.Fields(l)[0])
	}
	if want := []string{"b", "c", "a"}; !slices.Equal(order, want) {
		t.Errorf("--sort-by=.spec.replicas order = %q, want %q\n%s", order, want, res.Stdout)
	}
	res = es.mustKubectl(t, "get", "widgets", "-n", ns, "-o", "custom-columns=NAME:.metadata.name,PARTS:.spec.parts[*].name", "--sort-by=.metadata.name")
	if got := lines(res.Stdout); len(got) != 4 || !slices.Equal(strings.Fields(got[1]), []string{"a", "wheel"}) {
		t.Errorf("custom-columns =\n%s", res.Stdout)
	}
	res = es.mustKubectl(t, "get", "widgets", "-n", ns, "-o", "wide", "--show-labels")
	if got := strings.Fields(lines(res.Stdout)[0]); !slices.Equal(got, []string{"NAME", "COLOR", "REPLICAS", "PHASE", "AGE", "LABELS"}) {
		t.Errorf("-o wide --show-labels header = %q", got)
	}
}
