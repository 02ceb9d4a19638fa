package rest_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/audit"
	"github.com/apikit-dev/apikit/internal/testapi/toys"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
)

// listServers are two servers over one store: streamed answers lists item by item;
// whole records response bodies in its audit log, which needs the whole list, so it
// answers every list as the Handler did before lists were streamed.
func listServers(t *testing.T, store func(storage.Interface) storage.Interface) (streamed, whole *testServer) {
	t.Helper()
	created := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC) // Age cells read "5y" or more, whenever the test runs
	streamed = newServer(t, func(o *rest.Options) {
		o.Clock = func() time.Time { return created }
		if store != nil {
			o.Storage = store(o.Storage)
		}
	})
	h, _, _ := newTestHandler(t, func(o *rest.Options) {
		o.Storage = streamed.store
		if store != nil {
			o.Storage = store(o.Storage)
		}
		o.Audit = &audit.Config{Policy: policyAt(audit.LevelRequestResponse), Sink: audit.NewWriterSink(io.Discard)}
	})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	whole = &testServer{t: t, url: srv.URL, store: streamed.store, keyPrefixes: streamed.keyPrefixes}
	return streamed, whole
}

// createWidgets stores n widgets whose annotation pads each to about size bytes.
func (s *testServer) createWidgets(n, size int) {
	s.t.Helper()
	for i := range n {
		rnd := rand.New(rand.NewPCG(uint64(i), 0))
		padBytes := make([]byte, size)
		for j := range padBytes {
			padBytes[j] = 'a' + byte(rnd.IntN(26)) // hardly compressible, as real data is
		}
		pad := string(padBytes)
		body := fmt.Sprintf(`{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"w-%04d","labels":{"shard":"%d"},"annotations":{"pad":%q}},"spec":{"color":"blue","replicas":%d},"status":{"conditions":[{"type":"Ready","status":"True","lastTransitionTime":"2020-01-02T03:04:05Z","reason":"Fine","message":"ok"}]}}`, i, i%10, pad, i%5)
		if res := s.do(http.MethodPost, widgetsPath, "application/json", body); res.code != http.StatusCreated {
			s.t.Fatalf("create %d: %d %s", i, res.code, res.body)
		}
	}
}

func TestList_StreamedResponseIsByteForByteTheWholeListsResponse(t *testing.T) {
	streamed, whole := listServers(t, nil)
	streamed.createWidgets(150, 1000) // ~200 KB of JSON: past the 128 KiB gzip threshold
	accepts := []struct{ name, accept string }{
		{"JSON", "application/json"},
		{"CBOR", "application/cbor"},
		{"protobuf", "application/vnd.kubernetes.protobuf"},
		{"Table", "application/json;as=Table;g=meta.k8s.io;v=v1"},
		{"Table v1beta1", "application/json;as=Table;g=meta.k8s.io;v=v1beta1"},
		{"Table as CBOR", "application/cbor;as=Table;g=meta.k8s.io;v=v1"},
		{"PartialObjectMetadataList", "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"},
		{"PartialObjectMetadataList as protobuf", "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"},
		{"PartialObjectMetadataList as CBOR", "application/cbor;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"},
		{"YAML", "application/yaml"},
		{"Table as YAML", "application/yaml;as=Table;g=meta.k8s.io;v=v1"},
		{"PartialObjectMetadataList as YAML", "application/yaml;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"},
		{"PartialObjectMetadata of a list is refused", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"},
	}
	queries := []struct{ name, path string }{
		{"all", widgetsPath},
		{"converted to v1alpha1", strings.Replace(widgetsPath, "/v1/", "/v1alpha1/", 1)},
		{"one page under the gzip threshold", widgetsPath + "?limit=7"},
		{"selected", widgetsPath + "?labelSelector=shard%3D3"},
		{"table with objects", widgetsPath + "?includeObject=Object"},
		{"table without headers", widgetsPath + "?noHeaders=true"},
		{"bad table option", widgetsPath + "?includeObject=Everything"},
		{"none selected", widgetsPath + "?labelSelector=shard%3D99"},
		{"pretty", widgetsPath + "?pretty=true"},
		{"pretty page", widgetsPath + "?limit=7&pretty=1"},
		{"pretty table with objects", widgetsPath + "?includeObject=Object&pretty=true"},
	}
	for _, gz := range []bool{false, true} {
		for _, a := range accepts {
			for _, q := range queries {
				t.Run(fmt.Sprintf("%s/%s/gzip=%v", a.name, q.name, gz), func(t *testing.T) {
					hdr := []string{"Accept", a.accept}
					if gz {
						hdr = append(hdr, "Accept-Encoding", "gzip")
					}
					want := whole.do(http.MethodGet, q.path, "", "", hdr...)
					got := streamed.do(http.MethodGet, q.path, "", "", hdr...)
					if got.code != want.code {
						t.Fatalf("status %d, want %d: %s", got.code, want.code, got.body)
					}
					for _, h := range []string{"Content-Type", "Content-Encoding", "Vary", "Warning", "X-Content-Type-Options"} {
						if g, w := got.header.Values(h), want.header.Values(h); fmt.Sprint(g) != fmt.Sprint(w) {
							t.Errorf("%s: %q, want %q", h, g, w)
						}
					}
					if !bytes.Equal(got.body, want.body) {
						t.Errorf("body of %d bytes differs from the whole list's %d bytes", len(got.body), len(want.body))
					}
				})
			}
		}
	}
	// curl's user agent gets indented JSON too, streamed like the rest.
	curl := []string{"User-Agent", "curl/8.5.0"}
	got, want := streamed.do(http.MethodGet, widgetsPath, "", "", curl...), whole.do(http.MethodGet, widgetsPath, "", "", curl...)
	if !bytes.Equal(got.body, want.body) || !bytes.Contains(got.body, []byte("{\n  \"kind\": \"WidgetList\"")) {
		t.Errorf("curl's list: %d bytes, want the whole list's indented %d bytes; starts %.40q", len(got.body), len(want.body), got.body)
	}
	// The matrix must have exercised both sides of the gzip threshold.
	res := streamed.do(http.MethodGet, widgetsPath, "", "", "Accept-Encoding", "gzip")
	if res.header.Get("Content-Encoding") != "gzip" {
		t.Errorf("a %s list was not compressed", res.header.Get("Content-Length"))
	}
}

// failingItemStore lists one more item than it holds, of a version the Handler cannot
// convert, where at says: first or last.
type failingItemStore struct {
	storage.Interface
	last bool
}

func (s failingItemStore) List(ctx context.Context, prefix string, opts storage.ListOptions) (*storage.ListResult, error) {
	lr, err := s.Interface.List(ctx, prefix, opts)
	if err != nil {
		return lr, err
	}
	bad := &unregisteredWidget{toys.WidgetV1{TypeMeta: scheme.TypeMeta{APIVersion: "toys.example.com/v0", Kind: "Widget"}}}
	bad.Name, bad.Namespace = "unconvertible", "default"
	if s.last {
		lr.Items = append(lr.Items, bad)
	} else {
		lr.Items = append([]scheme.Object{bad}, lr.Items...)
	}
	return lr, nil
}

// unregisteredWidget is a Go type the scheme does not know: no conversion reaches it.
type unregisteredWidget struct{ toys.WidgetV1 }

func TestList_ItemFailingBeforeTheResponseStartsIsAStatus(t *testing.T) {
	streamed, whole := listServers(t, func(s storage.Interface) storage.Interface { return failingItemStore{Interface: s} })
	streamed.createWidgets(150, 1000)
	want := whole.do(http.MethodGet, widgetsPath, "", "")
	got := streamed.do(http.MethodGet, widgetsPath, "", "")
	if want.code < 500 {
		t.Fatalf("the whole list answered %d, want a failure: %.200s", want.code, want.body)
	}
	if got.code != want.code || !bytes.Equal(got.body, want.body) {
		t.Errorf("got %d %s, want %d %s", got.code, got.body, want.code, want.body)
	}
}

func TestList_ItemFailingAfterTheResponseStartedBreaksTheConnection(t *testing.T) {
	for _, gz := range []bool{false, true} {
		t.Run(fmt.Sprintf("gzip=%v", gz), func(t *testing.T) {
			streamed, _ := listServers(t, func(s storage.Interface) storage.Interface { return failingItemStore{Interface: s, last: true} })
			streamed.createWidgets(300, 1000)
			req, err := http.NewRequest(http.MethodGet, streamed.url+widgetsPath, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Accept-Encoding", "identity")
			if gz {
				req.Header.Set("Accept-Encoding", "gzip")
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			body, err := io.ReadAll(res.Body)
			if err == nil {
				t.Fatalf("read a complete %d response of %d bytes; want the connection broken: ...%s", res.StatusCode, len(body), body[max(0, len(body)-200):])
			}
			if res.StatusCode != http.StatusOK || !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("%d response ended with %v, want a 200 cut short (unexpected EOF)", res.StatusCode, err)
			}
			if len(body) <= 64<<10 {
				t.Errorf("read %d bytes before the break: the response had not started", len(body))
			}
		})
	}
}
