package apitest_test

import (
	"encoding/json"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/scheme"
)

// In a test, NewServer takes the test's t and stops the server when the test ends. A
// client-go test turns the server into a *rest.Config with one line, and kubectl takes
// the kubeconfig file:
//
//	srv := apitest.NewServer(t, s)
//	cfg, err := clientcmd.RESTConfigFromKubeConfig(srv.Kubeconfig) // k8s.io/client-go/tools/clientcmd
//	cmd := exec.Command("kubectl", "--kubeconfig", srv.KubeconfigPath, "get", "notes")
//
// Here net/http is the client. The kind has no Go type: it is registered by name only
// and served as unstructured objects.
func ExampleNewServer() {
	t := &exampleT{} // an Example has no *testing.T; a test passes its own
	defer t.finish()

	s := scheme.New()
	note := scheme.GroupVersionKind{Group: "notes.example.com", Version: "v1", Kind: "Note"}
	s.AddUnstructuredKind(note)
	s.AddUnstructuredKind(note.GroupVersion().WithKind("NoteList"))
	if err := s.AddResource(scheme.Resource{Group: note.Group, Kind: note.Kind, Plural: "notes", Namespaced: true}); err != nil {
		log.Fatal(err)
	}

	srv := apitest.NewServer(t, s)
	notes := srv.URL + "/apis/notes.example.com/v1/namespaces/default/notes"
	resp, err := srv.Client().Post(notes, "application/yaml", strings.NewReader(`
apiVersion: notes.example.com/v1
kind: Note
metadata:
  name: groceries
text: milk, eggs
`))
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	fmt.Println("POST", resp.Status)

	resp, err = srv.Client().Get(notes + "/groceries")
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	var got struct {
		Metadata struct{ Namespace, Name, UID string }
		Text     string
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		log.Fatal(err)
	}
	fmt.Println("GET", resp.Status, got.Metadata.Namespace+"/"+got.Metadata.Name, got.Text, "uid set:", got.Metadata.UID != "")
	// Output:
	// POST 201 Created
	// GET 200 OK default/groceries milk, eggs uid set: true
}

// exampleT stands in for the *testing.T of a test, which an Example does not have: it
// keeps the cleanups NewServer registers and runs them when the example ends, and
// panics where a test would fail: it is a apitest.TB.
type exampleT struct {
	cleanups []func()
}

func (t *exampleT) Helper()                        {}
func (t *exampleT) Cleanup(f func())               { t.cleanups = append(t.cleanups, f) }
func (t *exampleT) Errorf(format string, a ...any) { panic(fmt.Sprintf(format, a...)) }
func (t *exampleT) Fatalf(format string, a ...any) { panic(fmt.Sprintf(format, a...)) }

func (t *exampleT) TempDir() string {
	dir, err := os.MkdirTemp("", "resttest-example")
	if err != nil {
		panic(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// finish runs the cleanups, last registered first, as testing does.
func (t *exampleT) finish() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
}
