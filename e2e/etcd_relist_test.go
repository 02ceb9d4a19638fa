package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"slices"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"

	"github.com/apikit-dev/apikit/examples/widgets/server"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/watch"
)

// relistTestTimeout bounds the whole of one case of the relist test; a safety net
// against a hang, never an assertion about speed.
const relistTestTimeout = 2 * time.Minute

// watchGate sits in front of one client's transport, as a network path between a
// client and its replica does: it can cut the client's open watches (they end with a
// clean EOF, so client-go's reflector re-watches from its last resourceVersion rather
// than relisting) and hold its new watch requests until released, so that the client
// falls behind while others write. It counts the 410s the client got, as a response
// status or as a watch ERROR event, and the relists (a list, or a watch with
// sendInitialEvents) it made after the first 410.
type watchGate struct {
	next http.RoundTripper

	mu     sync.Mutex
	hold   chan struct{} // non-nil while watch requests are held; closed by release
	open   map[*gatedBody]struct{}
	gone   []string // what each 410 answered: "watch rv=N", "ERROR in watch rv=N", ...
	relist int      // lists and watch-lists sent after the first 410
}

func newWatchGate(next http.RoundTripper) *watchGate {
	return &watchGate{next: next, open: map[*gatedBody]struct{}{}}
}

// WrappedRoundTripper lets client-go reach the transport underneath.
func (g *watchGate) WrappedRoundTripper() http.RoundTripper { return g.next }

func (g *watchGate) RoundTrip(r *http.Request) (*http.Response, error) {
	q := r.URL.Query()
	isWatch := q.Get("watch") == "true" || q.Get("watch") == "1"
	what := fmt.Sprintf("list rv=%q", q.Get("resourceVersion"))
	if isWatch {
		what = fmt.Sprintf("watch rv=%q sendInitialEvents=%q", q.Get("resourceVersion"), q.Get("sendInitialEvents"))
	}
	g.mu.Lock()
	hold := g.hold
	g.mu.Unlock()
	if isWatch && hold != nil {
		select {
		case <-hold:
		case <-r.Context().Done():
			return nil, r.Context().Err()
		}
	}
	g.mu.Lock()
	if len(g.gone) > 0 && (!isWatch || q.Get("sendInitialEvents") == "true") {
		g.relist++
	}
	g.mu.Unlock()
	resp, err := g.next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusGone {
		g.recordGone(what)
	}
	if isWatch && resp.StatusCode == http.StatusOK {
		b := &gatedBody{g: g, what: what, body: resp.Body}
		g.mu.Lock()
		g.open[b] = struct{}{}
		g.mu.Unlock()
		resp.Body = b
	}
	return resp, nil
}

func (g *watchGate) recordGone(what string) {
	g.mu.Lock()
	g.gone = append(g.gone, what)
	g.mu.Unlock()
}

// cut ends every open watch of the client and holds its next watch requests.
func (g *watchGate) cut() {
	g.mu.Lock()
	g.hold = make(chan struct{})
	open := g.open
	g.open = map[*gatedBody]struct{}{}
	g.mu.Unlock()
	for b := range open {
		b.cut()
	}
}

// release lets the held watch requests through.
func (g *watchGate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.hold != nil {
		close(g.hold)
		g.hold = nil
	}
}

// counts returns the 410s seen so far and the relists sent after the first.
func (g *watchGate) counts() ([]string, int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.gone), g.relist
}

// gatedBody is the body of a watch response: it reads the newline-framed JSON events
// as they pass to count ERROR events with code 410, and reads as a clean EOF once cut.
type gatedBody struct {
	g    *watchGate
	what string
	body io.ReadCloser

	mu      sync.Mutex
	isCut   bool
	partial []byte // the event read in part
}

func (b *gatedBody) Read(p []byte) (int, error) {
	n, err := b.body.Read(p)
	b.mu.Lock()
	cut := b.isCut
	b.mu.Unlock()
	if cut {
		return 0, io.EOF
	}
	b.scan(p[:n])
	return n, err
}

// scan looks at each complete event line for an ERROR with code 410.
func (b *gatedBody) scan(data []byte) {
	b.partial = append(b.partial, data...)
	for {
		i := bytes.IndexByte(b.partial, '\n')
		if i < 0 {
			return
		}
		line := b.partial[:i]
		if bytes.Contains(line, []byte(`"ERROR"`)) {
			var ev struct {
				Type   string `json:"type"`
				Object struct {
					Code int `json:"code"`
				} `json:"object"`
			}
			if json.Unmarshal(line, &ev) == nil && ev.Type == "ERROR" && ev.Object.Code == http.StatusGone {
				b.g.recordGone("ERROR in " + b.what)
			}
		}
		b.partial = b.partial[i+1:]
	}
}

// cut makes the watch end as if the server had closed it.
func (b *gatedBody) cut() {
	b.mu.Lock()
	b.isCut = true
	b.mu.Unlock()
	b.body.Close() // unblocks a Read waiting for the next event
}

func (b *gatedBody) Close() error {
	b.g.mu.Lock()
	delete(b.g.open, b)
	b.g.mu.Unlock()
	return b.body.Close()
}

// gatedInformer is a client-go informer of the widgets of replicasNamespace on one
// replica, behind a watchGate.
type gatedInformer struct {
	gate     *watchGate
	informer cache.SharedIndexInformer
}

// startGatedInformer starts an informer on r behind a gate of its own, stops it when the
// test ends and waits until it has synced.
func startGatedInformer(t *testing.T, ctx context.Context, r *replica) *gatedInformer {
	t.Helper()
	cfg := r.restConfig(t)
	var gate *watchGate
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { gate = newWatchGate(rt); return gate })
	informer := startWidgetInformer(t, ctx, dynamic.NewForConfigOrDie(cfg), replicasNamespace)
	// Cleanups run last first: a held request would keep the informer's Shutdown waiting.
	t.Cleanup(gate.release)
	return &gatedInformer{gate: gate, informer: informer}
}

// state returns the informer's widgets as sorted "name@resourceVersion".
func (gi *gatedInformer) state() []string {
	var out []string
	for _, obj := range gi.informer.GetStore().List() {
		u := obj.(*unstructured.Unstructured)
		out = append(out, u.GetName()+"@"+u.GetResourceVersion())
	}
	slices.Sort(out)
	return out
}

// etcdWidgets returns the widgets of replicasNamespace that etcd holds under prefix, as
// sorted "name@modRevision", and etcd's revision: read with etcd's own client, so that
// the informers are compared with the source of truth rather than with a replica.
func etcdWidgets(ctx context.Context, c *clientv3.Client, prefix string) ([]string, int64, error) {
	key := prefix + storage.Prefix(scheme.GroupResource{Group: gvrWidgets.Group, Resource: gvrWidgets.Resource}, replicasNamespace)
	resp, err := c.Get(ctx, key, clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		return nil, 0, err
	}
	var out []string
	for _, kv := range resp.Kvs {
		out = append(out, fmt.Sprintf("%s@%d", path.Base(string(kv.Key)), kv.ModRevision))
	}
	slices.Sort(out)
	return out, resp.Header.Revision, nil
}

// concurrently runs f(0) to f(n-1) at once and returns their errors joined.
func concurrently(n int, f func(i int) error) error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = f(i)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// writeEvents makes at least n changes to widgets through the replicas, round robin
// over four writers: creates, and a delete of every third widget created.
func writeEvents(ctx context.Context, reps []*replica, prefix string, n int) error {
	const writers = 4
	return concurrently(writers, func(w int) error {
		r := reps[w%len(reps)]
		for i, made := 0, 0; made < (n+writers-1)/writers; i++ {
			name := fmt.Sprintf("%s-%d-%d", prefix, w, i)
			if _, err := r.widgets.Create(ctx, newWidget(replicasNamespace, name, "red", 1, nil), metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("create %s: %w", name, err)
			}
			made++
			if i%3 == 0 {
				if err := r.widgets.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
					return fmt.Errorf("delete %s: %w", name, err)
				}
				made++
			}
		}
		return nil
	})
}

// TestReplicas_InformersRelistAfterA410ForACompactedResourceVersion: two replicas over
// one etcd, an informer on each. Both informers' watches are cut and held while the
// replicas write, and etcd's history is compacted past the resourceVersion the
// informers hold; when let through, their re-watch from it is answered with 410, they
// relist, and each ends with exactly what etcd holds (names and resourceVersions), then
// follows a later write.
//
// With the watch cache (the default) a watch is served from the cache's history window
// whatever etcd has compacted, as kube-apiserver's cacher does: the 410 comes once the
// writes have pushed the informers' resourceVersion out of the window
// (watch.DefaultHistorySize events). Without it the watch goes to etcd, and the 410 is
// etcd's compaction itself.
func TestReplicas_InformersRelistAfterA410ForACompactedResourceVersion(t *testing.T) {
	for _, tc := range []struct {
		name         string
		noWatchCache bool
		events       int // changes made while the informers are held
	}{
		{name: "watch cache out of its history window", events: watch.DefaultHistorySize + 100},
		{name: "no watch cache etcd compacted", noWatchCache: true, events: 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), relistTestTimeout)
			t.Cleanup(cancel)
			e := startRestartableEtcd(t)
			const prefix = "/relist"
			var reps []*replica
			for range 2 {
				es := startExampleServerWith(t, server.StorageEtcd, func(c *server.Config) {
					// The test compacts itself, at the moment it chooses.
					c.Etcd = server.EtcdConfig{Endpoints: []string{e.Endpoint()}, Prefix: prefix, CompactionInterval: -1, NoWatchCache: tc.noWatchCache}
				})
				dc := dynamic.NewForConfigOrDie(es.restConfig(t))
				reps = append(reps, &replica{exampleServer: es, dc: dc, widgets: dc.Resource(gvrWidgets).Namespace(replicasNamespace)})
			}
			ec, err := clientv3.New(clientv3.Config{Endpoints: []string{e.Endpoint()}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ec.Close() })

			informers := []*gatedInformer{startGatedInformer(t, ctx, reps[0]), startGatedInformer(t, ctx, reps[1])}
			// An event on the informers' watches: a watch that ends without one is
			// "very short" to client-go, which would then relist instead of re-watching.
			before, err := reps[0].widgets.Create(ctx, newWidget(replicasNamespace, "before", "red", 1, nil), metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for i, gi := range informers {
				waitUntil(t, ctx, fmt.Sprintf("informer %d has the first widget", i), func() bool {
					return slices.Contains(gi.state(), "before@"+before.GetResourceVersion())
				})
				gi.gate.cut()
			}

			if err := writeEvents(ctx, reps, "held", tc.events); err != nil {
				t.Fatal(err)
			}
			_, rev, err := etcdWidgets(ctx, ec, prefix)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ec.Compact(ctx, rev, clientv3.WithCompactPhysical()); err != nil {
				t.Fatalf("compacting etcd at %d: %v", rev, err)
			}
			for _, gi := range informers {
				gi.gate.release()
			}

			for i, gi := range informers {
				waitUntil(t, ctx, fmt.Sprintf("informer %d got a 410 and relisted", i), func() bool {
					gone, relists := gi.gate.counts()
					return len(gone) > 0 && relists > 0
				})
				gone, relists := gi.gate.counts()
				t.Logf("informer %d: 410 answered %v; %d relists after it", i, gone, relists)
			}
			converged := func(when string) {
				var want []string
				for i, gi := range informers {
					waitUntil(t, ctx, fmt.Sprintf("informer %d holds what etcd holds %s", i, when), func() bool {
						if want, _, err = etcdWidgets(ctx, ec, prefix); err != nil {
							return false
						}
						return slices.Equal(gi.state(), want)
					})
				}
				if len(want) == 0 {
					t.Errorf("etcd holds no widgets %s: the comparison proves nothing", when)
				}
			}
			converged("after the relist")
			if _, err := reps[1].widgets.Create(ctx, newWidget(replicasNamespace, "after", "red", 1, nil), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			converged("after a later write")
		})
	}
}
