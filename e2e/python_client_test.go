package e2e

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"reflect"
	"testing"

	"github.com/apikit-dev/apikit/examples/widgets/server"
)

// pythonWithKubernetes returns a Python interpreter that can import the official
// Kubernetes client (Debian's python3-kubernetes installs it for /usr/bin/python3; .ci/run
// installs that package), or skips the test.
func pythonWithKubernetes(t *testing.T) string {
	t.Helper()
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		path, err := exec.LookPath(py)
		if err != nil {
			continue
		}
		if exec.Command(path, "-c", "import kubernetes").Run() == nil {
			return path
		}
	}
	skipWithoutClient(t, "no python3 with the kubernetes client (apt-get install python3-kubernetes)")
	return ""
}

type pythonStatus struct {
	Status  int    `json:"status"`
	Kind    string `json:"kind"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// TestPythonClient drives Widgets with the official Kubernetes Python client
// (testdata/python_client.py): CustomObjectsApi CRUD, label-selected list, replace with
// a stale resourceVersion, merge patch of the object and of its status, the Status of a
// NotFound and an Invalid, a watch from a list's resourceVersion, and its dynamic client,
// which finds the kind through discovery.
func TestPythonClient(t *testing.T) {
	py := pythonWithKubernetes(t)
	es := startExampleServer(t, server.StorageMemory)
	ctx := ctxFor(t)
	cmd := exec.CommandContext(ctx, py, "testdata/python_client.py", es.KubeconfigPath, "python")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("python client: %v\nstderr:\n%s", err, stderr.String())
	}
	var got struct {
		Created struct {
			Name, UID, RV string
			Generation    int64
		}
		GotColor      string          `json:"got_color"`
		Listed        []string        `json:"listed"`
		ListKind      string          `json:"list_kind"`
		ReplacedColor string          `json:"replaced_color"`
		StaleReplace  pythonStatus    `json:"stale_replace"`
		PatchedColor  string          `json:"patched_color"`
		StatusPhase   string          `json:"status_phase"`
		Missing       pythonStatus    `json:"missing"`
		Invalid       pythonStatus    `json:"invalid"`
		Events        [][]string      `json:"events"`
		DynamicNames  []string        `json:"dynamic_names"`
		Deleted       []string        `json:"deleted"`
		AfterDelete   json.RawMessage `json:"after_delete"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("python output %q: %v\nstderr:\n%s", stdout.String(), err, stderr.String())
	}
	if got.Created.Name != "py1" || got.Created.UID == "" || got.Created.RV == "" || got.Created.Generation != 1 {
		t.Errorf("created %+v", got.Created)
	}
	checks := []struct {
		what      string
		got, want any
	}{
		{"get color", got.GotColor, "red"},
		{"label-selected list", got.Listed, []string{"py1"}},
		{"list kind", got.ListKind, "WidgetList"},
		{"replaced color", got.ReplacedColor, "blue"},
		{"stale replace", got.StaleReplace, pythonStatus{409, "Status", "Conflict", `Operation cannot be fulfilled on widgets.toys.example.com "py1": the object has been modified; please apply your changes to the latest version and try again`}},
		{"merge-patched color", got.PatchedColor, "green"},
		{"status patch", got.StatusPhase, "Ready"},
		{"missing", got.Missing, pythonStatus{404, "Status", "NotFound", `widgets.toys.example.com "missing" not found`}},
		{"invalid name reason", got.Invalid.Reason, "Invalid"},
		{"invalid name code", got.Invalid.Status, 422},
		{"watch events", got.Events, [][]string{{"MODIFIED", "py1"}, {"MODIFIED", "py1"}, {"MODIFIED", "py1"}, {"ADDED", "py2"}}},
		{"dynamic client list", got.DynamicNames, []string{"other", "py1", "py2"}},
		{"delete answer", got.Deleted, []string{"Status", "Success", "py1"}},
		{"get after delete", string(got.AfterDelete), "404"},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %#v, want %#v", c.what, c.got, c.want)
		}
	}
}
