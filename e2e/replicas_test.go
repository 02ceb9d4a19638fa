package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"

	"github.com/apikit-dev/apikit/examples/widgets/server"
)

// restartableEtcd is a single-member etcd inside the test process that can be stopped
// and started again at the same loopback address over the same data, as an etcd
// cluster comes back after an outage: replicas configured with its URL reconnect.
type restartableEtcd struct {
	dir       string
	clientURL url.URL
	peerURL   url.URL

	mu   sync.Mutex
	etcd *embed.Etcd // nil while stopped
}

// startRestartableEtcd starts etcd on two free loopback ports; it stops when the test ends.
// A first start whose reserved port another test took meanwhile is tried again on new
// ports (a restart keeps its ports: clients know them).
func startRestartableEtcd(t *testing.T) *restartableEtcd {
	t.Helper()
	e := &restartableEtcd{}
	t.Cleanup(e.Stop)
	for attempt := 1; ; attempt++ {
		e.dir, e.clientURL, e.peerURL = t.TempDir(), freeLoopbackURL(t), freeLoopbackURL(t)
		err := e.start()
		if err == nil {
			return e
		}
		if attempt == clusterStartAttempts || !isAddrInUse(err) {
			t.Fatal(err)
		}
		t.Logf("a reserved port was taken before etcd bound it; new ports: %v", err)
	}
}

// Endpoint is etcd's client URL.
func (e *restartableEtcd) Endpoint() string { return e.clientURL.String() }

// Start starts etcd (again) and waits until it serves.
func (e *restartableEtcd) Start(t *testing.T) {
	t.Helper()
	if err := e.start(); err != nil {
		t.Fatal(err)
	}
}

func (e *restartableEtcd) start() error {
	cfg := embed.NewConfig()
	cfg.Name = "apikit-replicas-test"
	cfg.Dir = e.dir
	cfg.UnsafeNoFsync = true // a test's data need not survive a crash of the machine
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{e.clientURL}, []url.URL{e.clientURL}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{e.peerURL}, []url.URL{e.peerURL}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	etcd, err := embed.StartEtcd(cfg)
	if err != nil {
		return fmt.Errorf("starting etcd: %w", err)
	}
	timer := time.NewTimer(etcdReadyTimeout)
	defer timer.Stop()
	select {
	case <-etcd.Server.ReadyNotify():
	case err := <-etcd.Err():
		etcd.Close()
		return fmt.Errorf("etcd failed: %w", err)
	case <-timer.C:
		etcd.Close()
		return fmt.Errorf("etcd not ready within %s", etcdReadyTimeout)
	}
	e.mu.Lock()
	e.etcd = etcd
	e.mu.Unlock()
	return nil
}

// Stop stops etcd, keeping its data; stopping a stopped etcd does nothing.
func (e *restartableEtcd) Stop() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.etcd != nil {
		e.etcd.Close()
		e.etcd = nil
	}
}

// replica is one example server over the shared etcd, with a dynamic client of its
// widgets in namespace replicasNamespace.
type replica struct {
	*exampleServer
	widgets dynamic.ResourceInterface
	dc      dynamic.Interface
}

const replicasNamespace = "replicas"

// startReplicas starts n example servers over e under one key prefix: replicas of one
// API behind what would be a load balancer.
func startReplicas(t *testing.T, e *restartableEtcd, n int) []*replica {
	t.Helper()
	var out []*replica
	for range n {
		es := startExampleServerWith(t, server.StorageEtcd, func(c *server.Config) {
			// Compaction has tests of its own; here it would only race the watches.
			c.Etcd = server.EtcdConfig{Endpoints: []string{e.Endpoint()}, Prefix: "/replicas", CompactionInterval: -1}
		})
		dc := dynamic.NewForConfigOrDie(es.restConfig(t))
		out = append(out, &replica{exampleServer: es, dc: dc, widgets: dc.Resource(gvrWidgets).Namespace(replicasNamespace)})
	}
	return out
}

// seenEvent is one watch event as a watcher saw it.
type seenEvent struct {
	Type watch.EventType
	Name string
	RV   uint64
}

func (e seenEvent) String() string { return fmt.Sprintf("%s %s@%d", e.Type, e.Name, e.RV) }

// collectEvents reads n events of w (bookmarks skipped), failing the test when the
// watch ends or ctx does first.
func collectEvents(ctx context.Context, w watch.Interface, n int) ([]seenEvent, error) {
	defer w.Stop()
	var out []seenEvent
	for len(out) < n {
		select {
		case <-ctx.Done():
			return out, fmt.Errorf("%d of %d events before %w", len(out), n, ctx.Err())
		case ev, ok := <-w.ResultChan():
			if !ok {
				return out, fmt.Errorf("the watch ended after %d of %d events", len(out), n)
			}
			if ev.Type == watch.Bookmark {
				continue
			}
			if ev.Type == watch.Error {
				return out, fmt.Errorf("watch error after %d events: %v", len(out), apierrors.FromObject(ev.Object))
			}
			u := ev.Object.(*unstructured.Unstructured)
			rv, err := strconv.ParseUint(u.GetResourceVersion(), 10, 64)
			if err != nil {
				return out, fmt.Errorf("event %s %s: resourceVersion %q: %w", ev.Type, u.GetName(), u.GetResourceVersion(), err)
			}
			out = append(out, seenEvent{Type: ev.Type, Name: u.GetName(), RV: rv})
		}
	}
	return out, nil
}

// TestReplicas_WritesOnBothAreSeenByWatchesOnBothInOrder: two replicas write at once;
// a watch on each sees every write of both, in increasing resourceVersion, the same
// sequence on both, each create and update at the resourceVersion its writer was told.
func TestReplicas_WritesOnBothAreSeenByWatchesOnBothInOrder(t *testing.T) {
	ctx := ctxFor(t)
	reps := startReplicas(t, startRestartableEtcd(t), 2)
	list, err := reps[0].widgets.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var watches []watch.Interface
	for _, r := range reps {
		w, err := r.widgets.Watch(ctx, metav1.ListOptions{ResourceVersion: list.GetResourceVersion(), AllowWatchBookmarks: true})
		if err != nil {
			t.Fatal(err)
		}
		watches = append(watches, w)
	}

	// Each replica creates, updates and deletes widgets of its own, both at once.
	const perReplica = 10
	var mu sync.Mutex
	var written []seenEvent // creates and updates, at the resourceVersion the writer got
	var wg sync.WaitGroup
	errs := make(chan error, len(reps))
	for i, r := range reps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- func() error {
				for j := range perReplica {
					name := fmt.Sprintf("r%d-w%d", i, j)
					created, err := r.widgets.Create(ctx, newWidget(replicasNamespace, name, "red", 1, nil), metav1.CreateOptions{})
					if err != nil {
						return err
					}
					if err := unstructured.SetNestedField(created.Object, "blue", "spec", "color"); err != nil {
						return err
					}
					updated, err := r.widgets.Update(ctx, created, metav1.UpdateOptions{})
					if err != nil {
						return err
					}
					mu.Lock()
					for _, o := range []struct {
						typ watch.EventType
						obj *unstructured.Unstructured
					}{{watch.Added, created}, {watch.Modified, updated}} {
						rv, _ := strconv.ParseUint(o.obj.GetResourceVersion(), 10, 64)
						written = append(written, seenEvent{Type: o.typ, Name: name, RV: rv})
					}
					mu.Unlock()
					if j%3 == 0 {
						if err := r.widgets.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
							return err
						}
					}
				}
				return nil
			}()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	deletes := len(reps) * ((perReplica + 2) / 3)
	want := len(written) + deletes

	seen := make([][]seenEvent, len(watches))
	for i, w := range watches {
		if seen[i], err = collectEvents(ctx, w, want); err != nil {
			t.Fatalf("the watch on replica %d: %v; saw %v", i, err, seen[i])
		}
	}
	for i, events := range seen {
		for j := 1; j < len(events); j++ {
			if events[j].RV <= events[j-1].RV {
				t.Errorf("replica %d's watch: %v after %v, not in resourceVersion order", i, events[j], events[j-1])
			}
		}
		for _, w := range written {
			if !slices.Contains(events, w) {
				t.Errorf("replica %d's watch never saw %v", i, w)
			}
		}
	}
	if !slices.Equal(seen[0], seen[1]) {
		t.Errorf("the replicas' watches saw different sequences:\n%v\n%v", seen[0], seen[1])
	}
}

// TestReplicas_ConflictingUpdatesOneWinsOneIs409: two replicas update the same object
// from the same resourceVersion at once; etcd's transaction lets one through and the
// other gets kube's 409 Conflict.
func TestReplicas_ConflictingUpdatesOneWinsOneIs409(t *testing.T) {
	ctx := ctxFor(t)
	reps := startReplicas(t, startRestartableEtcd(t), 2)
	if _, err := reps[0].widgets.Create(ctx, newWidget(replicasNamespace, "contested", "red", 1, nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for round := range 5 {
		base, err := reps[round%2].widgets.Get(ctx, "contested", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		results := make([]error, len(reps))
		var wg sync.WaitGroup
		for i, r := range reps {
			wg.Add(1)
			go func() {
				defer wg.Done()
				mine := base.DeepCopy()
				// A value neither the object nor the other writer has: no update is a no-op.
				_ = unstructured.SetNestedField(mine.Object, int64(10*round+i+2), "spec", "replicas")
				_, results[i] = r.widgets.Update(ctx, mine, metav1.UpdateOptions{})
			}()
		}
		wg.Wait()
		var ok, conflicts int
		for _, err := range results {
			switch {
			case err == nil:
				ok++
			case apierrors.IsConflict(err):
				conflicts++
			default:
				t.Fatalf("round %d: %v, want success or 409 Conflict", round, err)
			}
		}
		if ok != 1 || conflicts != 1 {
			t.Errorf("round %d: %d updates succeeded and %d conflicted (%v), want one of each", round, ok, conflicts, results)
		}
	}
}

// TestReplicas_GeneratedNamesAndUIDsAreUniqueAcrossReplicas: both replicas create
// objects with generateName at once; every create succeeds with a name and a UID no
// other object has.
func TestReplicas_GeneratedNamesAndUIDsAreUniqueAcrossReplicas(t *testing.T) {
	ctx := ctxFor(t)
	reps := startReplicas(t, startRestartableEtcd(t), 2)
	const perReplica = 25
	var mu sync.Mutex
	names, uids := map[string]int{}, map[string]int{}
	var wg sync.WaitGroup
	errs := make(chan error, len(reps))
	for _, r := range reps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range perReplica {
				w := newWidget(replicasNamespace, "", "red", 1, nil)
				w.SetGenerateName("gen-")
				created, err := r.widgets.Create(ctx, w, metav1.CreateOptions{})
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				names[created.GetName()]++
				uids[string(created.GetUID())]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(names) != 2*perReplica || len(uids) != 2*perReplica {
		t.Errorf("%d creates gave %d names and %d UIDs, want all distinct", 2*perReplica, len(names), len(uids))
	}
	list, err := reps[1].widgets.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 2*perReplica {
		t.Errorf("the list has %d widgets, want %d", len(list.Items), 2*perReplica)
	}
}

// outageTestTimeout bounds the whole outage test.
const outageTestTimeout = 3 * time.Minute

// outageRequestTimeout is the timeout= of the requests sent while etcd is down: the
// server must answer by then with a Status.
const outageRequestTimeout = 3 * time.Second

// rawCreate POSTs a widget with timeout=outageRequestTimeout and returns the status
// code and the Status's reason (for an error), or the transport's error.
func (r *replica) rawCreate(ctx context.Context, name string) (int, string, error) {
	// The client gives up well after the server should have answered: a hang fails.
	ctx, cancel := context.WithTimeout(ctx, 10*outageRequestTimeout)
	defer cancel()
	body, err := json.Marshal(newWidget(replicasNamespace, name, "red", 1, nil).Object)
	if err != nil {
		return 0, "", err
	}
	u := fmt.Sprintf("%s/apis/toys.example.com/v1/namespaces/%s/widgets?timeout=%s", r.URL, replicasNamespace, outageRequestTimeout)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(string(body)))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+r.Token)
	resp, err := r.Client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, "", err
	}
	if resp.StatusCode == http.StatusCreated {
		return resp.StatusCode, "", nil
	}
	var st metav1.Status
	if err := json.Unmarshal(data, &st); err != nil || st.Kind != "Status" || int(st.Code) != resp.StatusCode {
		return resp.StatusCode, "", fmt.Errorf("%d is not a Status: %q", resp.StatusCode, data)
	}
	return resp.StatusCode, string(st.Reason), nil
}

// health GETs a health path without credentials and returns its status code.
func (r *replica) health(ctx context.Context, path string) int {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.URL+path, nil)
	if err != nil {
		return 0
	}
	resp, err := r.Client.Do(req)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestReplicas_EtcdOutageFailsRequestsAndRecoversWithoutRestart: etcd stops while both
// replicas serve writes; every request still gets an answer, a 503 or 504 Status, by
// its timeout; /readyz/etcd fails and /livez does not; when etcd is back the replicas
// serve again without a restart, and an informer that watched through the outage ends
// with what etcd holds.
func TestReplicas_EtcdOutageFailsRequestsAndRecoversWithoutRestart(t *testing.T) {
	// Longer than ctxFor's: the etcd client redials a stopped etcd with growing backoff,
	// so a replica's recovery may wait for its next attempt.
	ctx, cancel := context.WithTimeout(context.Background(), outageTestTimeout)
	t.Cleanup(cancel)
	e := startRestartableEtcd(t)
	reps := startReplicas(t, e, 2)

	informer := startWidgetInformer(t, ctx, reps[0].dc, replicasNamespace)

	// Load: writers on both replicas until the outage has been seen and is over.
	type outcome struct {
		code   int
		reason string
		err    error
	}
	loadCtx, endLoad := context.WithCancel(ctx)
	outcomes := make(chan outcome, 1<<14)
	var load sync.WaitGroup
	for w := range 4 {
		load.Add(1)
		go func() {
			defer load.Done()
			r := reps[w%2]
			for i := 0; loadCtx.Err() == nil; i++ {
				code, reason, err := r.rawCreate(context.Background(), fmt.Sprintf("load-%d-%d", w, i))
				select {
				case outcomes <- outcome{code, reason, err}:
				default: // enough recorded
				}
			}
		}()
	}

	waitUntil(t, ctx, "a write succeeds under load", func() bool { return len(outcomes) > 0 })
	e.Stop()
	for i, r := range reps {
		waitUntil(t, ctx, fmt.Sprintf("replica %d's /readyz/etcd fails", i), func() bool { return r.health(ctx, "/readyz/etcd") == http.StatusInternalServerError })
		if code := r.health(ctx, "/readyz"); code != http.StatusInternalServerError {
			t.Errorf("replica %d's /readyz with etcd down: %d, want 500", i, code)
		}
		if code := r.health(ctx, "/livez"); code != http.StatusOK {
			t.Errorf("replica %d's /livez with etcd down: %d, want 200", i, code)
		}
	}
	// Every replica has answered writes with etcd down.
	for i, r := range reps {
		code, reason, err := r.rawCreate(ctx, fmt.Sprintf("down-%d", i))
		if err != nil || (code != http.StatusServiceUnavailable && code != http.StatusGatewayTimeout) {
			t.Errorf("replica %d's create with etcd down: %d %s %v, want a 503 or 504 Status", i, code, reason, err)
		}
	}

	e.Start(t)
	for i, r := range reps {
		waitUntil(t, ctx, fmt.Sprintf("replica %d's /readyz passes again", i), func() bool { return r.health(ctx, "/readyz") == http.StatusOK })
	}
	endLoad()
	load.Wait()
	close(outcomes)
	counts := map[string]int{}
	for o := range outcomes {
		switch {
		case o.err != nil:
			t.Errorf("a write under load got no Status: %v", o.err)
		case o.code == http.StatusCreated:
			counts["201"]++
		case o.code == http.StatusServiceUnavailable || o.code == http.StatusGatewayTimeout:
			counts[fmt.Sprintf("%d %s", o.code, o.reason)]++
		default:
			t.Errorf("a write under load: %d %s, want 201, 503 or 504", o.code, o.reason)
		}
	}
	t.Logf("writes under load: %v", counts)

	for i, r := range reps {
		if _, err := r.widgets.Create(ctx, newWidget(replicasNamespace, fmt.Sprintf("after-%d", i), "red", 1, nil), metav1.CreateOptions{}); err != nil {
			t.Fatalf("replica %d after etcd came back: %v", i, err)
		}
	}
	// The informer ends with what etcd holds: the list of the other replica, which
	// reads etcd.
	var want, got []string
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("etcd holds (through replica 1) %d widgets, the informer %d", len(want), len(got))
		}
	})
	waitUntil(t, ctx, "the informer has what etcd holds", func() bool {
		list, err := reps[1].widgets.List(ctx, metav1.ListOptions{})
		if err != nil {
			return false
		}
		want = want[:0]
		for _, item := range list.Items {
			want = append(want, item.GetName()+"@"+item.GetResourceVersion())
		}
		got = got[:0]
		for _, obj := range informer.GetStore().List() {
			u := obj.(*unstructured.Unstructured)
			got = append(got, u.GetName()+"@"+u.GetResourceVersion())
		}
		slices.Sort(want)
		slices.Sort(got)
		return slices.Equal(want, got)
	})
}
