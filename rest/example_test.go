package rest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/apikit-dev/apikit/apierrors"

	"github.com/apikit-dev/apikit/authz"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/rest/discovery"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/memory"
	"github.com/apikit-dev/apikit/validation"
)

// The kind, its registration and newHandler below are the "Define your own kind" section
// of README.md, verbatim (TestREADME_DefineYourOwnKindIsCompiled in the root package
// checks it).

// Book is a kind of the host program: TypeMeta and ObjectMeta give it apiVersion, kind
// and metadata; the rest is its own.
type Book struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
	Spec              BookSpec `json:"spec"`
}

// BookSpec is the desired state of a Book.
type BookSpec struct {
	Title string `json:"title"`
	Pages int32  `json:"pages,omitempty"`
}

// BookList is what a list of books is served as.
type BookList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty"`
	Items           []Book `json:"items"`
}

var libraryV1 = scheme.GroupVersion{Group: "library.example.com", Version: "v1"}

// newHandler serves books at /apis/library.example.com/v1/namespaces/NS/books, and
// the discovery documents that kubectl reads first.
func newHandler(store storage.Interface) (*rest.Handler, error) {
	s := scheme.New()
	s.AddKnownTypes(libraryV1, &Book{}, &BookList{})
	err := s.AddResource(scheme.Resource{
		Group: libraryV1.Group, Kind: "Book", Plural: "books", ShortNames: []string{"bk"},
		Namespaced: true, SelectableFields: []string{"spec.title"},
	})
	if err != nil {
		return nil, err
	}
	disc, err := discovery.New(s, discovery.Options{})
	if err != nil {
		return nil, err
	}
	return rest.New(rest.Options{
		Scheme: s, Storage: store, Discovery: disc,
		// Anyone may do anything: fine for an example on loopback, never for a server.
		AllowAnonymous: true, Authorizer: authz.AlwaysAllow{},
		Strategies: map[scheme.GroupResource]registry.Strategy{
			{Group: libraryV1.Group, Resource: "books"}: registry.StrategyFor[*Book]{Validate: validateBook},
		},
	})
}

// validateBook is the books' own validation; its errors answer 422 Invalid.
func validateBook(_ context.Context, b *Book) validation.ErrorList {
	if b.Spec.Title == "" {
		return validation.ErrorList{validation.Required(validation.NewPath("spec", "title"), "")}
	}
	return nil
}

// A kind defined in the program itself, served from a memory store: a create, then a get.
func ExampleNew() {
	store := memory.New(memory.Options{})
	defer store.Close()
	h, err := newHandler(store)
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(h) // in a program: &http.Server{Addr: ..., Handler: h}
	defer srv.Close()

	books := srv.URL + "/apis/library.example.com/v1/namespaces/default/books"
	body := `{"apiVersion":"library.example.com/v1","kind":"Book","metadata":{"name":"dune"},"spec":{"title":"Dune","pages":412}}`
	resp, err := http.Post(books, "application/json", strings.NewReader(body))
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	fmt.Println("POST", resp.Status)

	resp, err = http.Get(books + "/dune")
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		log.Fatal(err)
	}
	var got Book
	if err := json.Unmarshal(data, &got); err != nil {
		log.Fatal(err)
	}
	fmt.Println("GET", resp.Status, got.APIVersion, got.Kind, got.Namespace+"/"+got.Name)
	fmt.Printf("%q, %d pages, resourceVersion %s\n", got.Spec.Title, got.Spec.Pages, got.ResourceVersion)

	untitled := `{"apiVersion":"library.example.com/v1","kind":"Book","metadata":{"name":"untitled"},"spec":{}}`
	resp, err = http.Post(books, "application/json", strings.NewReader(untitled))
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	fmt.Println("POST without a title:", resp.Status)
	// Output:
	// POST 201 Created
	// GET 200 OK library.example.com/v1 Book default/dune
	// "Dune", 412 pages, resourceVersion 1
	// POST without a title: 422 Unprocessable Entity
}

// A host's middleware in front of the Handler answers with the Handler's own errors, in
// the media type the client accepts: here a maintenance switch refuses writes with kube's
// 503 while reads go on.
func ExampleHandler_WriteStatus() {
	h, err := rest.New(rest.Options{Scheme: scheme.New(), Storage: memory.New(memory.Options{}),
		AllowAnonymous: true, Authorizer: authz.AlwaysAllow{}})
	if err != nil {
		log.Fatal(err)
	}
	maintenance := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			h.WriteStatus(w, r, apierrors.NewServiceUnavailable("writes are paused for maintenance"))
			return
		}
		h.ServeHTTP(w, r)
	})
	rec := httptest.NewRecorder()
	maintenance.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/api/v1/namespaces/default/configmaps", nil))
	fmt.Println(rec.Code, rec.Header().Get("Content-Type"))
	fmt.Println(strings.TrimSpace(rec.Body.String()))
	// Output:
	// 503 application/json
	// {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"writes are paused for maintenance","reason":"ServiceUnavailable","code":503}
}
