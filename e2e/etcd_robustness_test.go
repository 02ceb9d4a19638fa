package e2e

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/cache"
	etcdstore "github.com/apikit-dev/apikit/storage/etcd"
	"github.com/apikit-dev/apikit/storage/storagetest"
	"github.com/apikit-dev/apikit/watch"
)

// This file is a robustness test in the spirit of etcd's tests/robustness: clients
// hammer a few keys through two replicas and a watch cache while an etcd member dies and
// comes back and the compactor runs; afterwards the recorded history must be
// linearizable (checked with porcupine, as etcd does) against robustModel, and every
// watch must be ordered, gap-free, duplicate-free and resume correctly after a 410.

// robustPace is the pause between one client's calls.
const robustPace = 3 * time.Millisecond

// robustKeys is the size of the key set: small, so that clients collide often.
const robustKeys = 3

type robustOp int

const (
	opCreate robustOp = iota
	opUpdate
	opDelete
	opGet
	opList
)

func (o robustOp) String() string {
	return [...]string{"create", "update", "delete", "get", "list"}[o]
}

// robustOutcome is how a call ended; outcomeUnknown is an error that does not tell
// whether a write took effect (a timeout, an unavailable member).
type robustOutcome int

const (
	outcomeOK robustOutcome = iota
	outcomeExists
	outcomeNotFound
	outcomeConflict
	outcomeUnknown
)

// robustInput is one call: op on key (for all but list), writing size, and for update
// and delete a resourceVersion precondition when expectRV is not 0.
type robustInput struct {
	op       robustOp
	key      int
	size     int64
	expectRV uint64
}

// robustEntry is one key's state: the model's and what a read returned. An rv of 0 on
// an existing entry means "written by a call of unknown outcome": the next read tells.
type robustEntry struct {
	exists bool
	size   int64
	rv     uint64
}

// robustOutput is what a call returned: the object (get, create, update, delete) or
// every key's entry and the list's resourceVersion (list).
type robustOutput struct {
	outcome robustOutcome
	entry   robustEntry
	items   [robustKeys]robustEntry
	listRV  uint64
}

// robustState is the model's state: every key's entry and the highest resourceVersion
// a write returned, which later writes must exceed (etcd's revision is one clock).
type robustState struct {
	keys  [robustKeys]robustEntry
	maxRV uint64
}

// observe matches what a read returned against the model's entry, learning the
// resourceVersion of a write of unknown outcome.
func observe(model, got robustEntry) (robustEntry, bool) {
	if model.exists != got.exists {
		return model, false
	}
	if !model.exists {
		return model, true
	}
	if model.size != got.size || (model.rv != 0 && model.rv != got.rv) {
		return model, false
	}
	return got, true
}

// preconditionHolds reports whether a resourceVersion precondition is met, and whether
// that is certain (an entry of unknown resourceVersion may or may not match).
func preconditionHolds(e robustEntry, expect uint64) (holds, certain bool) {
	switch {
	case expect == 0:
		return true, true
	case e.rv == 0:
		return true, false
	default:
		return e.rv == expect, true
	}
}

// robustStep is the storage semantics of storage.Interface on one key set: the states
// the model may be in after in returned out, none if out is impossible from s.
func robustStep(s robustState, in robustInput, out robustOutput) []robustState {
	e := s.keys[in.key]
	with := func(e robustEntry) robustState {
		s.keys[in.key] = e
		return s
	}
	written := func(rv uint64) []robustState {
		if rv <= s.maxRV || out.entry.size != in.size {
			return nil
		}
		n := with(robustEntry{exists: true, size: in.size, rv: rv})
		n.maxRV = rv
		return []robustState{n}
	}
	holds, certain := preconditionHolds(e, in.expectRV)
	if out.outcome == outcomeUnknown {
		// The write may have happened (if it could) or not; porcupine may also place it
		// after every other call, as it never returned.
		states := []robustState{s}
		switch {
		case in.op == opCreate && !e.exists:
			states = append(states, with(robustEntry{exists: true, size: in.size}))
		case in.op == opUpdate && e.exists && holds:
			states = append(states, with(robustEntry{exists: true, size: in.size}))
		case in.op == opDelete && e.exists && holds:
			states = append(states, with(robustEntry{}))
		}
		return states
	}
	switch in.op {
	case opCreate:
		switch out.outcome {
		case outcomeOK:
			if !e.exists {
				return written(out.entry.rv)
			}
		case outcomeExists:
			if e.exists {
				return []robustState{s}
			}
		}
	case opUpdate, opDelete:
		switch out.outcome {
		case outcomeNotFound:
			if !e.exists {
				return []robustState{s}
			}
		case outcomeConflict:
			if e.exists && (!holds || !certain) {
				return []robustState{s}
			}
		case outcomeOK:
			if !e.exists || !holds {
				return nil
			}
			if in.op == opUpdate {
				return written(out.entry.rv)
			}
			// A delete returns the object as it was last stored, or nothing (the
			// Status of success a REST API may answer with).
			if out.entry == (robustEntry{}) {
				return []robustState{with(robustEntry{})}
			}
			if _, ok := observe(e, out.entry); ok {
				return []robustState{with(robustEntry{})}
			}
		}
	case opGet:
		got := out.entry
		got.exists = out.outcome == outcomeOK
		if out.outcome == outcomeOK || out.outcome == outcomeNotFound {
			if n, ok := observe(e, got); ok {
				return []robustState{with(n)}
			}
		}
	case opList:
		if out.outcome != outcomeOK || out.listRV < s.maxRV {
			return nil
		}
		for k := range robustKeys {
			n, ok := observe(s.keys[k], out.items[k])
			if !ok {
				return nil
			}
			s.keys[k] = n
		}
		return []robustState{s}
	}
	return nil
}

var robustModel = (&porcupine.NondeterministicModel{
	Init: func() []any { return []any{robustState{}} },
	Step: func(state, input, output any) []any {
		var next []any
		for _, s := range robustStep(state.(robustState), input.(robustInput), output.(robustOutput)) {
			next = append(next, s)
		}
		return next
	},
	DescribeOperation: func(input, output any) string {
		in, out := input.(robustInput), output.(robustOutput)
		return fmt.Sprintf("%s k%d size=%d if-rv=%d -> %d %+v", in.op, in.key, in.size, in.expectRV, out.outcome, out.entry)
	},
}).ToModel()

// robustName is the name of key k of the model.
func robustName(k int) string { return fmt.Sprintf("k%d", k) }

// robustEndName is written after the load; watchers stop once they have seen it.
const robustEndName = "zz-end"

// robustStore is what the robustness clients and watchers call: the reads, writes and
// watch of storage.Interface, so that a Store, the watch cache and a replica's HTTP API
// (robustHTTPStore) are driven and checked alike.
type robustStore interface {
	Create(ctx context.Context, key string, obj scheme.Object) (scheme.Object, error)
	Get(ctx context.Context, key string, opts storage.GetOptions) (scheme.Object, error)
	List(ctx context.Context, prefix string, opts storage.ListOptions) (*storage.ListResult, error)
	GuaranteedUpdate(ctx context.Context, key string, opts storage.UpdateOptions, tryUpdate storage.UpdateFunc) (scheme.Object, error)
	Delete(ctx context.Context, key string, opts storage.DeleteOptions) (scheme.Object, error)
	Watch(ctx context.Context, key string, opts storage.WatchOptions) (watch.Interface, error)
}

// robustClient runs calls on one store and records them.
type robustClient struct {
	id    int
	st    robustStore
	rng   *rand.Rand
	start time.Time
	seen  [robustKeys]uint64
	seq   int64
	ops   []porcupine.Operation
}

// classify turns a call's error into its outcome; only the storage errors that say the
// write did not happen are certain.
func classify(err error) robustOutcome {
	switch {
	case err == nil:
		return outcomeOK
	case errors.Is(err, storage.ErrAlreadyExists):
		return outcomeExists
	case errors.Is(err, storage.ErrNotFound):
		return outcomeNotFound
	case errors.Is(err, storage.ErrConflict):
		return outcomeConflict
	default:
		return outcomeUnknown
	}
}

func entryOf(obj scheme.Object) robustEntry {
	rv, _ := storage.ParseResourceVersion(obj.GetResourceVersion())
	return robustEntry{exists: true, size: obj.(*storagetest.Widget).Spec.Size, rv: rv}
}

// step runs one random call and records it; reads that fail are dropped (they change
// nothing), writes that fail uncertainly are recorded as never returning.
func (c *robustClient) step(ctx context.Context) {
	in := robustInput{op: robustOp(c.rng.IntN(5)), key: c.rng.IntN(robustKeys)}
	c.seq++
	in.size = int64(c.id)*1_000_000 + c.seq
	if (in.op == opUpdate || in.op == opDelete) && c.rng.IntN(2) == 0 {
		in.expectRV = c.seen[in.key]
	}
	name := robustName(in.key)
	key := storage.Key(storagetest.Widgets, "ns1", name)
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var out robustOutput
	var obj scheme.Object
	var err error
	call := time.Since(c.start).Nanoseconds()
	switch in.op {
	case opCreate:
		obj, err = c.st.Create(ctx, key, storagetest.NewWidget("ns1", name, nil, in.size))
	case opUpdate:
		obj, err = c.st.GuaranteedUpdate(ctx, key, storage.UpdateOptions{}, func(cur scheme.Object) (scheme.Object, error) {
			cur.(*storagetest.Widget).Spec.Size = in.size
			if in.expectRV != 0 {
				cur.SetResourceVersion(storage.FormatResourceVersion(in.expectRV))
			}
			return cur, nil
		})
	case opDelete:
		var opts storage.DeleteOptions
		if in.expectRV != 0 {
			rv := storage.FormatResourceVersion(in.expectRV)
			opts.Preconditions = &storage.Preconditions{ResourceVersion: &rv}
		}
		obj, err = c.st.Delete(ctx, key, opts)
	case opGet:
		obj, err = c.st.Get(ctx, key, storage.GetOptions{})
	case opList:
		var res *storage.ListResult
		res, err = c.st.List(ctx, storage.Prefix(storagetest.Widgets, "ns1"), storage.ListOptions{})
		if err == nil {
			out.listRV, _ = storage.ParseResourceVersion(res.ResourceVersion)
			for _, item := range res.Items {
				for k := range robustKeys {
					if item.GetName() == robustName(k) {
						out.items[k] = entryOf(item)
						c.seen[k] = out.items[k].rv
					}
				}
			}
		}
	}
	ret := time.Since(c.start).Nanoseconds()
	out.outcome = classify(err)
	if obj != nil && err == nil && in.op != opList {
		out.entry = entryOf(obj)
		c.seen[in.key] = out.entry.rv
	}
	if out.outcome == outcomeUnknown {
		if in.op == opGet || in.op == opList {
			return
		}
		ret = math.MaxInt64
	}
	c.ops = append(c.ops, porcupine.Operation{ClientId: c.id, Input: in, Call: call, Output: out, Return: ret})
}

// robustEvent is one event a watcher received.
type robustEvent struct {
	typ  watch.EventType
	name string
	size int64
	rv   uint64
}

// robustSegment is the run of a watcher between two lists: its events follow from.
// A relist after a 410 starts a new segment at the list's resourceVersion.
type robustSegment struct {
	from   uint64
	listed map[string]robustEntry // what the relist returned; nil for the first segment
	events []robustEvent
}

// robustWatcher watches the key set on one store, resuming from its last event after
// the watch ends and relisting after a 410. A lagging watcher stops now and then and
// resumes later, so the compactor overtakes it.
type robustWatcher struct {
	name     string
	st       robustStore
	lag      bool
	segments []*robustSegment
	resumes  int // re-watches from the last event seen
	relists  int // 410s answered by a relist
}

func (w *robustWatcher) last() uint64 {
	seg := w.segments[len(w.segments)-1]
	if n := len(seg.events); n > 0 {
		return seg.events[n-1].rv
	}
	return seg.from
}

// run watches from start until it has seen the end marker's resourceVersion (endRV,
// closed when known) or ctx ends.
func (w *robustWatcher) run(ctx context.Context, start uint64, loadDone <-chan struct{}, endRV func() uint64) error {
	w.segments = []*robustSegment{{from: start}}
	prefix := storage.Prefix(storagetest.Widgets, "ns1")
	for ctx.Err() == nil {
		if end := endRV(); end != 0 && w.last() >= end {
			return nil
		}
		wi, err := w.st.Watch(ctx, prefix, storage.WatchOptions{Recursive: true, ResourceVersion: storage.FormatResourceVersion(w.last())})
		switch {
		case errors.Is(err, storage.ErrGone):
			if err := w.relist(ctx, prefix); err != nil {
				return err
			}
			continue
		case err != nil:
			// An unavailable member: try again shortly.
			time.Sleep(20 * time.Millisecond)
			w.resumes++
			continue
		}
		gone, err := w.consume(ctx, wi, loadDone, endRV)
		wi.Stop()
		if err != nil {
			return err
		}
		if gone {
			if err := w.relist(ctx, prefix); err != nil {
				return err
			}
			continue
		}
		w.resumes++
		if w.lag {
			select {
			case <-time.After(300 * time.Millisecond):
			case <-ctx.Done():
			}
		}
	}
	return ctx.Err()
}

// consume records the events of one watch until it ends (gone reports a 410), the
// end marker is seen, or, for a lagging watcher, a short while has passed.
func (w *robustWatcher) consume(ctx context.Context, wi watch.Interface, loadDone <-chan struct{}, endRV func() uint64) (gone bool, err error) {
	var lagC <-chan time.Time
	if w.lag {
		select {
		case <-loadDone:
		default:
			lagC = time.After(150 * time.Millisecond)
		}
	}
	seg := w.segments[len(w.segments)-1]
	for {
		if end := endRV(); end != 0 && w.last() >= end {
			return false, nil
		}
		var ev watch.Event
		var ok bool
		select {
		case ev, ok = <-wi.ResultChan():
		case <-lagC:
			return false, nil
		case <-time.After(100 * time.Millisecond):
			continue // look at endRV again
		case <-ctx.Done():
			return false, ctx.Err()
		}
		if !ok {
			return false, nil
		}
		switch ev.Type {
		case watch.Error:
			st, _ := ev.Object.(*scheme.Status)
			return st != nil && st.Code == 410, nil
		case watch.Bookmark:
			continue
		}
		obj := ev.Object.(scheme.Object)
		e := entryOf(obj)
		seg.events = append(seg.events, robustEvent{typ: ev.Type, name: obj.GetName(), size: e.size, rv: e.rv})
	}
}

func (w *robustWatcher) relist(ctx context.Context, prefix string) error {
	res, err := w.st.List(ctx, prefix, storage.ListOptions{})
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		time.Sleep(20 * time.Millisecond)
		return nil // the next watch fails with 410 again and relists again
	}
	rv, err := storage.ParseResourceVersion(res.ResourceVersion)
	if err != nil {
		return fmt.Errorf("relist resourceVersion %q: %w", res.ResourceVersion, err)
	}
	seg := &robustSegment{from: rv, listed: map[string]robustEntry{}}
	for _, item := range res.Items {
		seg.listed[item.GetName()] = entryOf(item)
	}
	w.segments = append(w.segments, seg)
	w.relists++
	return nil
}

// TestEtcdRobustness: the history of concurrent clients on two replicas and a watch
// cache over a three-member cluster, one member killed and restarted and the compactor
// running, is linearizable, and every watch is ordered, complete and duplicate-free,
// including across relists after 410.
func TestEtcdRobustness(t *testing.T) {
	c := startTestCluster(t)
	opts := etcdstore.Options{RequestTimeout: 2 * time.Second, CompactionInterval: 100 * time.Millisecond}
	a := newClusterStore(t, c, "/robust", opts)
	b := newClusterStore(t, c, "/robust", opts)
	cached, err := cache.Start(t.Context(), a, cache.Options{Prefixes: []string{storage.Prefix(storagetest.Widgets, "")}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cached.Close)
	ctx, cancel := context.WithTimeout(t.Context(), etcdSafetyDeadline)
	defer cancel()
	startRV, err := a.CurrentResourceVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}

	runRobustness(t, ctx, robustScenario{
		cluster: c,
		stores:  []robustStore{a, b, cached},
		// Watchers on every store, one of them lagging behind the compactor.
		watchers: []*robustWatcher{
			{name: "replica a", st: a},
			{name: "replica b", st: b},
			{name: "cache", st: cached},
			{name: "lagging replica b", st: b, lag: true},
		},
		startRV: startRV,
		marker:  a,
	})
}

// robustScenario is what one robustness run drives and watches.
type robustScenario struct {
	cluster  *testCluster  // its leader is killed under load and started again
	stores   []robustStore // the clients', round robin
	watchers []*robustWatcher
	startRV  uint64      // where the watchers start
	marker   robustStore // where the end marker is written
}

// runRobustness runs clients on sc's stores while the cluster's leader is killed and
// restarted, then checks the history for linearizability and every watcher's events.
func runRobustness(t *testing.T, ctx context.Context, sc robustScenario) {
	t.Helper()
	load, maxOpsPerClient := 3*time.Second, 1500
	if testing.Short() {
		load, maxOpsPerClient = time.Second, 500
	}
	c, stores, watchers, startRV := sc.cluster, sc.stores, sc.watchers, sc.startRV
	var endMu sync.Mutex
	var end uint64
	endRV := func() uint64 { endMu.Lock(); defer endMu.Unlock(); return end }
	loadDone := make(chan struct{})
	var wwg sync.WaitGroup
	watchErrs := make([]error, len(watchers))
	for i, w := range watchers {
		wwg.Add(1)
		go func() {
			defer wwg.Done()
			watchErrs[i] = w.run(ctx, startRV, loadDone, endRV)
		}()
	}

	// Clients on every store; the leader dies a third of the way in and comes back at
	// two thirds.
	begin := time.Now()
	clients := make([]*robustClient, 6)
	killed, faultDone := make(chan struct{}), make(chan struct{})
	var loadEnd time.Duration // set before faultDone closes
	var cwg sync.WaitGroup
	for i := range clients {
		clients[i] = &robustClient{id: i, st: stores[i%len(stores)], rng: rand.New(rand.NewPCG(uint64(i), 15)), start: begin}
		cwg.Add(1)
		go func() {
			defer cwg.Done()
			// The load lasts until the killed member is back and has served for a
			// third of load, and at least load in all. Each phase (before the
			// kill, during the outage, after the restart) takes at most a third of
			// maxOpsPerClient calls, which bounds the history porcupine searches
			// however long the member takes to come back.
			var calls [3]int
			for ctx.Err() == nil {
				phase := 0
				select {
				case <-faultDone:
					phase = 2
					if time.Since(begin) >= loadEnd {
						return
					}
				case <-killed:
					phase = 1
				default:
				}
				if calls[phase] >= maxOpsPerClient/3 {
					if phase == 2 {
						return
					}
					select {
					case <-map[int]chan struct{}{0: killed, 1: faultDone}[phase]:
					case <-ctx.Done():
					}
					continue
				}
				calls[phase]++
				clients[i].step(ctx)
				// A pause between calls spreads each client's calls over the whole
				// load, before, during and after the outage.
				time.Sleep(robustPace)
			}
		}()
	}
	var restartErr error
	var killedAt, restartedAt int64
	go func() {
		defer close(faultDone)
		time.Sleep(load / 3)
		victim := c.Leader()
		killedAt = time.Since(begin).Nanoseconds()
		c.Kill(victim)
		close(killed)
		time.Sleep(load / 3)
		restartErr = c.start(victim)
		restartedAt = time.Since(begin).Nanoseconds()
		loadEnd = max(load, time.Duration(restartedAt)+load/3)
	}()
	cwg.Wait()
	<-faultDone
	if restartErr != nil {
		t.Fatalf("restarting the killed member: %v", restartErr)
	}
	close(loadDone)
	marker, err := sc.marker.Create(ctx, storage.Key(storagetest.Widgets, "ns1", robustEndName), storagetest.NewWidget("ns1", robustEndName, nil, 0))
	if err != nil {
		t.Fatalf("writing the end marker: %v", err)
	}
	markerRV, _ := storage.ParseResourceVersion(marker.GetResourceVersion())
	endMu.Lock()
	end = markerRV
	endMu.Unlock()
	wwg.Wait()
	for i, err := range watchErrs {
		if err != nil {
			t.Fatalf("watcher %s: %v", watchers[i].name, err)
		}
	}

	var history []porcupine.Operation
	unknown, duringOutage, afterRestart := 0, 0, 0
	for _, cl := range clients {
		history = append(history, cl.ops...)
		for _, op := range cl.ops {
			if op.Output.(robustOutput).outcome == outcomeUnknown {
				unknown++
			}
			switch {
			case op.Call >= restartedAt:
				afterRestart++
			case op.Call >= killedAt:
				duringOutage++
			}
		}
	}
	if duringOutage == 0 || afterRestart == 0 {
		t.Fatalf("%d operations while the member was down, %d after its restart: the test did not check the fault", duringOutage, afterRestart)
	}
	result, info := porcupine.CheckOperationsVerbose(robustModel, history, 30*time.Second)
	switch result {
	case porcupine.Illegal:
		t.Errorf("the history of %d operations is not linearizable", len(history))
		if path := t.TempDir() + "/history.html"; porcupine.VisualizePath(robustModel, info, path) == nil {
			t.Logf("porcupine's visualization: %s", path)
		}
	case porcupine.Unknown:
		t.Errorf("porcupine did not decide on %d operations within its time limit", len(history))
	}
	violations := checkRobustWatches(watchers, clients, startRV, markerRV)
	for i, v := range violations {
		if i == 20 {
			t.Errorf("... and %d more watch violations", len(violations)-i)
			break
		}
		t.Error(v)
	}
	events := 0
	for _, w := range watchers {
		for _, seg := range w.segments {
			events += len(seg.events)
		}
	}
	relists := 0
	for _, w := range watchers {
		relists += w.relists
		t.Logf("watcher %s: %d re-watches from its last event, %d relists after 410", w.name, w.resumes, w.relists)
	}
	t.Logf("%d operations checked (%d while a member was down, %d after its restart, %d of unknown outcome), linearizable: %v; %d events on %d watchers, %d relists after 410, %d watch violations",
		len(history), duringOutage, afterRestart, unknown, result == porcupine.Ok, events, len(watchers), relists, len(violations))
	if relists == 0 {
		t.Error("no watch was answered with 410: resumption after compaction went unchecked")
	}
	if len(history) == 0 || events == 0 {
		t.Fatal("no operation or no event recorded: the test checked nothing")
	}
}

// robustWrite is what a write call recorded: its key and outcome, by the size it wrote.
type robustWrite struct {
	op      robustOp
	name    string
	outcome robustOutcome
	rv      uint64
}

// checkRobustWatches checks every watcher's events against the writes the clients
// recorded and against each other, and returns the violations it found.
func checkRobustWatches(watchers []*robustWatcher, clients []*robustClient, startRV, endRV uint64) []string {
	var violations []string
	fail := func(format string, args ...any) {
		violations = append(violations, fmt.Sprintf(format, args...))
	}
	// Writes by the size they wrote (unique per call) and acknowledged writes by rv.
	bySize := map[int64]robustWrite{}
	acked := map[uint64]robustWrite{}
	for _, cl := range clients {
		for _, op := range cl.ops {
			in, out := op.Input.(robustInput), op.Output.(robustOutput)
			if in.op != opCreate && in.op != opUpdate {
				continue
			}
			w := robustWrite{op: in.op, name: robustName(in.key), outcome: out.outcome, rv: out.entry.rv}
			bySize[in.size] = w
			if out.outcome == outcomeOK {
				acked[w.rv] = w
			}
		}
	}
	// Every event is one that some write made; watchers agree on each resourceVersion.
	all := map[uint64]robustEvent{}
	for _, w := range watchers {
		for _, seg := range w.segments {
			prev := seg.from
			for _, ev := range seg.events {
				if ev.rv <= prev {
					fail("%s: event %s %s at %d after %d: out of order or duplicated", w.name, ev.typ, ev.name, ev.rv, prev)
				}
				prev = ev.rv
				if ev.name == robustEndName {
					continue
				}
				if other, ok := all[ev.rv]; ok && other != ev {
					fail("%s: event at %d is %+v, another watcher saw %+v", w.name, ev.rv, ev, other)
				}
				all[ev.rv] = ev
				if ev.typ == watch.Deleted {
					continue
				}
				wr, ok := bySize[ev.size]
				wantType := map[robustOp]watch.EventType{opCreate: watch.Added, opUpdate: watch.Modified}[wr.op]
				switch {
				case !ok || wr.name != ev.name || ev.typ != wantType:
					fail("%s: event %+v matches no write", w.name, ev)
				case wr.outcome == outcomeOK && wr.rv != ev.rv:
					fail("%s: event %+v, the write returned resourceVersion %d", w.name, ev, wr.rv)
				case wr.outcome != outcomeOK && wr.outcome != outcomeUnknown:
					fail("%s: event %+v for a write that failed (%d)", w.name, ev, wr.outcome)
				}
			}
		}
	}
	for rv, wr := range acked {
		if _, ok := all[rv]; !ok {
			all[rv] = robustEvent{typ: map[robustOp]watch.EventType{opCreate: watch.Added, opUpdate: watch.Modified}[wr.op], name: wr.name, rv: rv}
		}
	}
	// No gaps: each segment holds every known event in its range; a relist holds the
	// state the events make at its resourceVersion.
	for _, w := range watchers {
		for i, seg := range w.segments {
			until := endRV
			if i+1 < len(w.segments) {
				until = 0
				if n := len(seg.events); n > 0 {
					until = seg.events[n-1].rv
				}
			}
			got := map[uint64]bool{}
			for _, ev := range seg.events {
				got[ev.rv] = true
			}
			for rv, ev := range all {
				if rv > seg.from && rv <= until && !got[rv] {
					fail("%s: missed %s %s at %d (watching from %d)", w.name, ev.typ, ev.name, rv, seg.from)
				}
			}
			if seg.listed != nil {
				state := map[string]uint64{}
				for rv, ev := range all {
					if rv > startRV && rv <= seg.from && rv > state[ev.name] {
						state[ev.name] = rv
					}
				}
				for k := range robustKeys {
					name := robustName(k)
					last, exists := state[name], false
					if last != 0 {
						exists = all[last].typ != watch.Deleted
					}
					listed, inList := seg.listed[name]
					if inList != exists || (exists && listed.rv != last) {
						fail("%s: relist at %d has %s=%+v (listed %v), the events make it rv %d (exists %v)", w.name, seg.from, name, listed, inList, last, exists)
					}
				}
			}
		}
	}
	return violations
}

// rop builds one recorded call for the checker tests below.
func rop(client int, call, ret int64, in robustInput, out robustOutput) porcupine.Operation {
	return porcupine.Operation{ClientId: client, Input: in, Call: call, Output: out, Return: ret}
}

func okEntry(size int64, rv uint64) robustOutput {
	return robustOutput{outcome: outcomeOK, entry: robustEntry{exists: true, size: size, rv: rv}}
}

// TestEtcdRobustnessModel: the model accepts the histories storage may produce and
// rejects the ones a broken store would, so the robustness test can fail.
func TestEtcdRobustnessModel(t *testing.T) {
	create := robustInput{op: opCreate, key: 0, size: 1}
	update := robustInput{op: opUpdate, key: 0, size: 2}
	get := robustInput{op: opGet, key: 0}
	unknown := robustOutput{outcome: outcomeUnknown}
	for _, tc := range []struct {
		name    string
		history []porcupine.Operation
		want    porcupine.CheckResult
	}{
		{"create then read sees it", []porcupine.Operation{
			rop(0, 0, 1, create, okEntry(1, 10)),
			rop(1, 2, 3, get, okEntry(1, 10)),
		}, porcupine.Ok},
		{"a read after an acknowledged update sees the old value (stale read)", []porcupine.Operation{
			rop(0, 0, 1, create, okEntry(1, 10)),
			rop(0, 2, 3, update, okEntry(2, 11)),
			rop(1, 4, 5, get, okEntry(1, 10)),
		}, porcupine.Illegal},
		{"an acknowledged create is not found later (lost write)", []porcupine.Operation{
			rop(0, 0, 1, create, okEntry(1, 10)),
			rop(1, 2, 3, get, robustOutput{outcome: outcomeNotFound}),
		}, porcupine.Illegal},
		{"two creates of one name both succeed", []porcupine.Operation{
			rop(0, 0, 3, create, okEntry(1, 10)),
			rop(1, 1, 2, robustInput{op: opCreate, key: 0, size: 5}, okEntry(5, 11)),
		}, porcupine.Illegal},
		{"a later write returns an older resourceVersion", []porcupine.Operation{
			rop(0, 0, 1, create, okEntry(1, 10)),
			rop(0, 2, 3, update, okEntry(2, 9)),
		}, porcupine.Illegal},
		{"a conditional update on the current resourceVersion conflicts", []porcupine.Operation{
			rop(0, 0, 1, create, okEntry(1, 10)),
			rop(0, 2, 3, robustInput{op: opUpdate, key: 0, size: 2, expectRV: 10}, robustOutput{outcome: outcomeConflict}),
		}, porcupine.Illegal},
		{"a conditional update on an old resourceVersion conflicts", []porcupine.Operation{
			rop(0, 0, 1, create, okEntry(1, 10)),
			rop(0, 2, 3, update, okEntry(2, 11)),
			rop(0, 4, 5, robustInput{op: opUpdate, key: 0, size: 3, expectRV: 10}, robustOutput{outcome: outcomeConflict}),
		}, porcupine.Ok},
		{"a create of unknown outcome that took effect is read later", []porcupine.Operation{
			rop(0, 0, math.MaxInt64, create, unknown),
			rop(1, 2, 3, get, okEntry(1, 12)),
			rop(1, 4, 5, update, okEntry(2, 13)),
		}, porcupine.Ok},
		{"a create of unknown outcome that never took effect", []porcupine.Operation{
			rop(0, 0, math.MaxInt64, create, unknown),
			rop(1, 2, 3, get, robustOutput{outcome: outcomeNotFound}),
		}, porcupine.Ok},
		{"a delete returns the last state and the key is gone", []porcupine.Operation{
			rop(0, 0, 1, create, okEntry(1, 10)),
			rop(0, 2, 3, robustInput{op: opDelete, key: 0}, okEntry(1, 10)),
			rop(1, 4, 5, robustInput{op: opList}, robustOutput{outcome: outcomeOK, listRV: 11}),
		}, porcupine.Ok},
		{"a delete that returns no object removes the key", []porcupine.Operation{
			rop(0, 0, 1, create, okEntry(1, 10)),
			rop(0, 2, 3, robustInput{op: opDelete, key: 0}, robustOutput{outcome: outcomeOK}),
			rop(1, 4, 5, get, robustOutput{outcome: outcomeNotFound}),
		}, porcupine.Ok},
		{"a delete that returns no object of a key that does not exist", []porcupine.Operation{
			rop(0, 0, 1, robustInput{op: opDelete, key: 0}, robustOutput{outcome: outcomeOK}),
		}, porcupine.Illegal},
		{"a delete returns a state the key never had", []porcupine.Operation{
			rop(0, 0, 1, create, okEntry(1, 10)),
			rop(0, 2, 3, robustInput{op: opDelete, key: 0}, okEntry(7, 10)),
		}, porcupine.Illegal},
		{"a list misses an acknowledged create", []porcupine.Operation{
			rop(0, 0, 1, create, okEntry(1, 10)),
			rop(1, 2, 3, robustInput{op: opList}, robustOutput{outcome: outcomeOK, listRV: 10}),
		}, porcupine.Illegal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := porcupine.CheckOperationsTimeout(robustModel, tc.history, 10*time.Second); got != tc.want {
				t.Errorf("check = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestEtcdRobustnessWatchCheck: the watch checker finds a gap, a duplicate, an event
// no write made and a relist that disagrees with the events.
func TestEtcdRobustnessWatchCheck(t *testing.T) {
	client := &robustClient{ops: []porcupine.Operation{
		rop(0, 0, 1, robustInput{op: opCreate, key: 0, size: 1}, okEntry(1, 11)),
		rop(0, 2, 3, robustInput{op: opUpdate, key: 0, size: 2}, okEntry(2, 12)),
		rop(0, 4, 5, robustInput{op: opUpdate, key: 0, size: 3}, okEntry(3, 13)),
	}}
	added := robustEvent{typ: watch.Added, name: "k0", size: 1, rv: 11}
	mod12 := robustEvent{typ: watch.Modified, name: "k0", size: 2, rv: 12}
	mod13 := robustEvent{typ: watch.Modified, name: "k0", size: 3, rv: 13}
	for _, tc := range []struct {
		name     string
		segments []*robustSegment
		bad      bool
	}{
		{"every write once in order", []*robustSegment{{from: 10, events: []robustEvent{added, mod12, mod13}}}, false},
		{"a gap", []*robustSegment{{from: 10, events: []robustEvent{added, mod13}}}, true},
		{"a duplicate", []*robustSegment{{from: 10, events: []robustEvent{added, mod12, mod12, mod13}}}, true},
		{"out of order", []*robustSegment{{from: 10, events: []robustEvent{added, mod13, mod12}}}, true},
		{"an event no write made", []*robustSegment{{from: 10, events: []robustEvent{added, mod12, mod13, {typ: watch.Modified, name: "k0", size: 99, rv: 14}}}}, true},
		{"a relist after 410 that matches the events", []*robustSegment{
			{from: 10, events: []robustEvent{added}},
			{from: 12, listed: map[string]robustEntry{"k0": {exists: true, size: 2, rv: 12}}, events: []robustEvent{mod13}},
		}, false},
		{"a relist after 410 that shows an old state", []*robustSegment{
			{from: 10, events: []robustEvent{added}},
			{from: 12, listed: map[string]robustEntry{"k0": {exists: true, size: 1, rv: 11}}, events: []robustEvent{mod13}},
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &robustWatcher{name: "w", segments: tc.segments}
			violations := checkRobustWatches([]*robustWatcher{w}, []*robustClient{client}, 10, 13)
			if got := len(violations) > 0; got != tc.bad {
				t.Errorf("violations %q, want some: %v", violations, tc.bad)
			}
		})
	}
}
