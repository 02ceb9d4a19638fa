package rest_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/apikit-dev/apikit/audit"
	"github.com/apikit-dev/apikit/metrics"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/memory"
)

// sharingStore is a memory store that remembers every object its ListShared hands
// out, with a copy of it as it was then, so a test can tell whether a reader changed
// a stored object.
type sharingStore struct {
	storage.Interface
	mem *memory.Store

	mu       sync.Mutex
	lists    int
	handed   []scheme.Object
	asStored []scheme.Object
}

func newSharingStore(s storage.Interface) *sharingStore {
	return &sharingStore{Interface: s, mem: s.(*memory.Store)}
}

func (s *sharingStore) ListShared(ctx context.Context, prefix string, opts storage.ListOptions) (*storage.ListResult, error) {
	lr, err := s.mem.ListShared(ctx, prefix, opts)
	if err != nil {
		return lr, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lists++
	for _, o := range lr.Items {
		s.handed = append(s.handed, o)
		s.asStored = append(s.asStored, scheme.DeepCopy(o))
	}
	return lr, nil
}

// changed returns a description of each handed-out object that differs from what
// was stored, and how many lists were read shared.
func (s *sharingStore) changed() (lists int, diffs []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, o := range s.handed {
		if !reflect.DeepEqual(o, s.asStored[i]) {
			diffs = append(diffs, fmt.Sprintf("%s/%s: %+v, stored as %+v", o.GetNamespace(), o.GetName(), o, s.asStored[i]))
		}
	}
	return s.lists, diffs
}

// Lists are encoded from the store's own objects, shared with every reader and never
// copied up front. Every way a list is answered (each media type and "as" target,
// converted to another version, pretty, compressed, paged, the whole-list paths of
// YAML, HEAD and an audit log that records bodies) must leave them as stored, even for
// a schema-only kind whose objects reading prunes and defaults.
func TestList_SharedStoredObjectsAreNeverModified(t *testing.T) {
	var store *sharingStore
	streamed := newCRDServer(t, func(o *rest.Options) {
		store = newSharingStore(o.Storage)
		o.Storage = store
	})
	h, _, _ := newTestHandler(t, func(o *rest.Options) {
		addCRDWidgets(t, o.Scheme, crdSchema(t, crdWidgetSchema))
		o.Storage = store
		o.Audit = &audit.Config{Policy: policyAt(audit.LevelRequestResponse), Sink: audit.NewWriterSink(io.Discard)}
	})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	audited := &testServer{t: t, url: srv.URL, store: streamed.store, keyPrefixes: streamed.keyPrefixes}

	streamed.createWidgets(150, 1000) // past the gzip threshold
	for i := range 150 {
		// Stored before the schema had its defaults, with a field it no longer
		// declares: reading one prunes and defaults it.
		storeOldWidget(t, streamed, fmt.Sprintf("old-%03d", i))
	}
	accepts := []string{
		"application/json",
		"application/yaml",
		"application/cbor",
		"application/vnd.kubernetes.protobuf",
		"application/json;as=Table;g=meta.k8s.io;v=v1",
		"application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1",
		"application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1",
	}
	paths := []string{
		widgetsPath,
		strings.Replace(widgetsPath, "/v1/", "/v1alpha1/", 1),
		widgetsPath + "?limit=7",
		widgetsPath + "?labelSelector=shard%3D3",
		widgetsPath + "?includeObject=Object",
		widgetsPath + "?pretty=true",
		crdPath,
		crdBetaPath,
		crdPath + "?limit=7",
		crdPath + "?includeObject=Object",
		crdPath + "?pretty=true",
	}
	for _, s := range []*testServer{streamed, audited} {
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			for _, accept := range accepts {
				for _, path := range paths {
					for _, enc := range []string{"identity", "gzip"} {
						res := s.do(method, path, "", "", "Accept", accept, "Accept-Encoding", enc)
						if res.code != http.StatusOK && res.code != http.StatusNotAcceptable {
							t.Errorf("%s %s as %s: %d %.200s", method, path, accept, res.code, res.body)
						}
					}
				}
			}
		}
	}
	lists, diffs := store.changed()
	if lists == 0 {
		t.Fatal("no list read the store's shared objects")
	}
	for _, d := range diffs {
		t.Errorf("a list changed a stored object: %s", d)
	}
	// What the lists sent is what the schema makes of the objects: pruned and defaulted.
	items, _ := streamed.do(http.MethodGet, crdPath+"?limit=1", "", "").json(t)["items"].([]any)
	if len(items) != 1 || !reflect.DeepEqual(get(items[0].(map[string]any), "spec"), crdDefaulted) {
		t.Errorf("listed %v, want one item with spec %v", items, crdDefaulted)
	}
}

// With metrics on, the Handler's store is wrapped to record each storage call; the
// wrapper keeps the shared list, and records it as a list.
func TestList_SharedWithMetricsIsRecordedAsAList(t *testing.T) {
	var store *sharingStore
	s := newServer(t, func(o *rest.Options) {
		o.Metrics = metrics.NewRegistry()
		store = newSharingStore(o.Storage)
		o.Storage = store
	})
	s.create("a", "blue")
	if res := s.do(http.MethodGet, widgetsPath, "", ""); res.code != http.StatusOK {
		t.Fatalf("list: %d %s", res.code, res.body)
	}
	if lists, _ := store.changed(); lists != 1 {
		t.Errorf("%d shared lists, want 1", lists)
	}
	metricsWith(t, s, `etcd_requests_total{operation="list",group="toys.example.com",resource="widgets"} 1`)
}
