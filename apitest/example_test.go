package apitest_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"os"
	"strings"

	"github.com/apikit-dev/apikit/apiextensions"
	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
)

// In a test, NewServer takes the test's t and stops the server when the test ends. A
// client-go test turns the server into a *rest.Config with one line, and kubectl takes
// the kubeconfig file:
//
//	srv := apitest.NewServer(t, s, apitest.Options{})
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

	srv := apitest.NewServer(t, s, apitest.Options{})
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

// noteScheme serves notes.example.com/v1 Notes, registered by name only.
func noteScheme() *scheme.Scheme {
	s := scheme.New()
	note := scheme.GroupVersionKind{Group: "notes.example.com", Version: "v1", Kind: "Note"}
	s.AddUnstructuredKind(note)
	s.AddUnstructuredKind(note.GroupVersion().WithKind("NoteList"))
	if err := s.AddResource(scheme.Resource{Group: note.Group, Kind: note.Kind, Plural: "notes", Namespaced: true}); err != nil {
		log.Fatal(err)
	}
	return s
}

// Code without a test (a TestMain, Ginkgo's BeforeSuite, a standalone server) calls
// Start: the server runs until its context ends or Close. With a Token, requests without
// it are refused; Server.Client sends it and trusts the server's certificate.
func ExampleStart() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // would stop the server too
	srv, err := apitest.Start(ctx, noteScheme(), apitest.Options{Token: "s3cret", TLS: true})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	notes := srv.URL + "/apis/notes.example.com/v1/namespaces/default/notes"
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(srv.CertificateAuthority)
	anonymous := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	for _, c := range []struct {
		name   string
		client *http.Client
	}{{"without the token:", anonymous}, {"with the token:", srv.Client()}} {
		resp, err := c.client.Get(notes)
		if err != nil {
			log.Fatal(err)
		}
		resp.Body.Close()
		fmt.Println(c.name, resp.Status)
	}
	anonymous.CloseIdleConnections()
	// Output:
	// without the token: 401 Unauthorized
	// with the token: 200 OK
}

// One Options value configures a server: here CRDs served beside the scheme's kinds,
// established before NewServer returns, the controllers of a cluster (the garbage
// collector deletes the dependents of a deleted owner) and a limit of the REST handler.
func ExampleOptions() {
	t := &exampleT{}
	defer t.finish()
	crds, err := apiextensions.Decode([]byte(`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gizmos.tools.example.com
spec:
  group: tools.example.com
  scope: Namespaced
  names: {plural: gizmos, singular: gizmo, kind: Gizmo}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: string, default: small}
`))
	if err != nil {
		log.Fatal(err)
	}
	srv := apitest.NewServer(t, noteScheme(), apitest.Options{
		CRDs:        crds,
		Controllers: true,
		REST:        rest.Options{MaxRequestBodyBytes: 1 << 20},
	})
	resp, err := srv.Client().Post(srv.URL+"/apis/tools.example.com/v1/namespaces/default/gizmos", "application/yaml", strings.NewReader(`
apiVersion: tools.example.com/v1
kind: Gizmo
metadata: {name: g1}
spec: {}
`))
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	var got struct{ Spec struct{ Size string } }
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		log.Fatal(err)
	}
	fmt.Println("POST", resp.Status, "size defaulted to", got.Spec.Size)
	// Output:
	// POST 201 Created size defaulted to small
}
