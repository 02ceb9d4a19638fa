package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/memory"
	apikitwatch "github.com/apikit-dev/apikit/watch"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	k8swatch "k8s.io/apimachinery/pkg/watch"
	clienttesting "k8s.io/client-go/testing"
)

// Storage and watch side by side with client-go's fake ObjectTracker and apimachinery's
// watch.Broadcaster:
//
//	go test ./e2e -run '^$' -bench 'Tracker|FanOut' -count 6 > out.txt; benchstat -col /impl out.txt
//
// The ObjectTracker keeps no resourceVersion history, continue tokens or watch window;
// apikit's memory store does all of that in the same work.

var widgetsGR = scheme.GroupResource{Group: "toys.example.com", Resource: "widgets"}
var k8sWidgetsGVR = k8sschema.GroupVersionResource{Group: "toys.example.com", Version: "v1", Resource: "widgets"}

func smallWidgetPair(tb testing.TB, parts int, ns, name string) (*k8sWidget, scheme.Object) {
	w := widgetFixture(parts)
	w.Namespace, w.Name, w.ResourceVersion, w.UID = ns, name, "", ""
	var kw k8sWidget
	b, _ := json.Marshal(w)
	if err := json.Unmarshal(b, &kw); err != nil {
		tb.Fatal(err)
	}
	return &kw, w
}

// storeWidgets creates n copies of obj, named prefix-0 to prefix-(n-1) in obj's
// namespace, in st, and returns their keys.
func storeWidgets(tb testing.TB, st storage.Interface, obj scheme.Object, prefix string, n int) []string {
	keys := make([]string, n)
	for i := range keys {
		o := scheme.DeepCopy(obj)
		o.SetName(fmt.Sprintf("%s-%d", prefix, i))
		keys[i] = storage.Key(widgetsGR, o.GetNamespace(), o.GetName())
		if _, err := st.Create(context.Background(), keys[i], o); err != nil {
			tb.Fatal(err)
		}
	}
	return keys
}

// trackWidgets is storeWidgets for client-go's tracker: it returns the names.
func trackWidgets(tb testing.TB, tr clienttesting.ObjectTracker, kw *k8sWidget, prefix string, n int) []string {
	names := make([]string, n)
	for i := range names {
		o := kw.DeepCopy()
		o.Name = fmt.Sprintf("%s-%d", prefix, i)
		names[i] = o.Name
		if err := tr.Create(k8sWidgetsGVR, o, o.Namespace); err != nil {
			tb.Fatal(err)
		}
	}
	return names
}

func newTracker() clienttesting.ObjectTracker {
	s := newK8sScheme()
	return clienttesting.NewObjectTracker(s, serializer.NewCodecFactory(s).UniversalDecoder())
}

func BenchmarkTrackerCRUD(b *testing.B) {
	ctx := context.Background()
	const parts = 13 // about 1 KB of JSON
	b.Run("op=create/impl=apikit", func(b *testing.B) {
		st := memory.New(memory.Options{})
		defer st.Close()
		_, obj := smallWidgetPair(b, parts, "ns", "w")
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			o := scheme.DeepCopy(obj)
			name := fmt.Sprintf("w-%d", i)
			o.SetName(name)
			if _, err := st.Create(ctx, storage.Key(widgetsGR, "ns", name), o); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("op=create/impl=client-go", func(b *testing.B) {
		tr := newTracker()
		kw, _ := smallWidgetPair(b, parts, "ns", "w")
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			o := kw.DeepCopy()
			o.Name = fmt.Sprintf("w-%d", i)
			if err := tr.Create(k8sWidgetsGVR, o, "ns"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("op=get/impl=apikit", func(b *testing.B) {
		st := memory.New(memory.Options{})
		defer st.Close()
		_, obj := smallWidgetPair(b, parts, "ns", "w")
		key := storage.Key(widgetsGR, "ns", "w")
		if _, err := st.Create(ctx, key, obj); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := st.Get(ctx, key, storage.GetOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("op=get/impl=client-go", func(b *testing.B) {
		tr := newTracker()
		kw, _ := smallWidgetPair(b, parts, "ns", "w")
		if err := tr.Create(k8sWidgetsGVR, kw, "ns"); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := tr.Get(k8sWidgetsGVR, "ns", "w"); err != nil {
				b.Fatal(err)
			}
		}
	})
	// Deletes remove objects created before the timer starts.
	b.Run("op=delete/impl=apikit", func(b *testing.B) {
		st := memory.New(memory.Options{})
		defer st.Close()
		_, obj := smallWidgetPair(b, parts, "ns", "w")
		keys := storeWidgets(b, st, obj, "w", b.N)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := st.Delete(ctx, keys[i], storage.DeleteOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The tracker's Delete returns nothing, where the store's returns the deleted object
	// as the REST DELETE response needs it; so the tracker's side does the same work with
	// a Get before its Delete, as a fake client's caller would to answer the request.
	b.Run("op=delete/impl=client-go", func(b *testing.B) {
		tr := newTracker()
		kw, _ := smallWidgetPair(b, parts, "ns", "w")
		names := trackWidgets(b, tr, kw, "w", b.N)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := tr.Get(k8sWidgetsGVR, "ns", names[i]); err != nil {
				b.Fatal(err)
			}
			if err := tr.Delete(k8sWidgetsGVR, "ns", names[i]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("op=update/impl=apikit", func(b *testing.B) {
		st := memory.New(memory.Options{})
		defer st.Close()
		_, obj := smallWidgetPair(b, parts, "ns", "w")
		key := storage.Key(widgetsGR, "ns", "w")
		if _, err := st.Create(ctx, key, obj); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			_, err := st.GuaranteedUpdate(ctx, key, storage.UpdateOptions{}, func(cur scheme.Object) (scheme.Object, error) {
				cur.SetGeneration(int64(i + 2))
				return cur, nil
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("op=update/impl=client-go", func(b *testing.B) {
		tr := newTracker()
		kw, _ := smallWidgetPair(b, parts, "ns", "w")
		if err := tr.Create(k8sWidgetsGVR, kw, "ns"); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			// The same read-modify-write a client does against the tracker.
			cur, err := tr.Get(k8sWidgetsGVR, "ns", "w")
			if err != nil {
				b.Fatal(err)
			}
			o := cur.(*k8sWidget)
			o.Generation = int64(i + 2)
			if err := tr.Update(k8sWidgetsGVR, o, "ns"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkTrackerLifecycle: the life of one object as a controller test drives it,
// in a store already holding 10,000 others: create, get, a read-modify-write update and
// delete. The tracker's update is the Get and Update a client does; its Delete returns
// nothing, where the store's returns the deleted object, as kube's storage does.
func BenchmarkTrackerLifecycle(b *testing.B) {
	ctx := context.Background()
	const parts, others = 13, 10000
	b.Run("impl=apikit", func(b *testing.B) {
		st := memory.New(memory.Options{})
		defer st.Close()
		_, obj := smallWidgetPair(b, parts, "ns", "w")
		storeWidgets(b, st, obj, "other", others)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			o := scheme.DeepCopy(obj)
			name := fmt.Sprintf("w-%d", i)
			o.SetName(name)
			key := storage.Key(widgetsGR, "ns", name)
			if _, err := st.Create(ctx, key, o); err != nil {
				b.Fatal(err)
			}
			if _, err := st.Get(ctx, key, storage.GetOptions{}); err != nil {
				b.Fatal(err)
			}
			_, err := st.GuaranteedUpdate(ctx, key, storage.UpdateOptions{}, func(cur scheme.Object) (scheme.Object, error) {
				cur.SetGeneration(2)
				return cur, nil
			})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := st.Delete(ctx, key, storage.DeleteOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=client-go", func(b *testing.B) {
		tr := newTracker()
		kw, _ := smallWidgetPair(b, parts, "ns", "w")
		trackWidgets(b, tr, kw, "other", others)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			o := kw.DeepCopy()
			o.Name = fmt.Sprintf("w-%d", i)
			if err := tr.Create(k8sWidgetsGVR, o, "ns"); err != nil {
				b.Fatal(err)
			}
			if _, err := tr.Get(k8sWidgetsGVR, "ns", o.Name); err != nil {
				b.Fatal(err)
			}
			cur, err := tr.Get(k8sWidgetsGVR, "ns", o.Name)
			if err != nil {
				b.Fatal(err)
			}
			u := cur.(*k8sWidget)
			u.Generation = 2
			if err := tr.Update(k8sWidgetsGVR, u, "ns"); err != nil {
				b.Fatal(err)
			}
			if err := tr.Delete(k8sWidgetsGVR, "ns", o.Name); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkTrackerList: a list of all 10k objects, and one namespace of 3,000 among 30k.
func BenchmarkTrackerList(b *testing.B) {
	ctx := context.Background()
	const parts = 13
	cases := []struct {
		name          string
		namespaces    int
		perNamespace  int
		listNamespace string
	}{
		{"all-of-10k", 1, 10000, ""},
		{"ns-3k-of-30k", 10, 3000, "ns-3"},
	}
	for _, c := range cases {
		st := memory.New(memory.Options{})
		tr := newTracker()
		for n := 0; n < c.namespaces; n++ {
			ns := fmt.Sprintf("ns-%d", n)
			for i := 0; i < c.perNamespace; i++ {
				name := fmt.Sprintf("w-%05d", i)
				kw, obj := smallWidgetPair(b, parts, ns, name)
				if _, err := st.Create(ctx, storage.Key(widgetsGR, ns, name), obj); err != nil {
					b.Fatal(err)
				}
				if err := tr.Create(k8sWidgetsGVR, kw, ns); err != nil {
					b.Fatal(err)
				}
			}
		}
		want := c.perNamespace
		if c.listNamespace == "" {
			want = c.namespaces * c.perNamespace
		}
		b.Run(c.name+"/impl=apikit", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				res, err := st.List(ctx, storage.Prefix(widgetsGR, c.listNamespace), storage.ListOptions{})
				if err != nil || len(res.Items) != want {
					b.Fatalf("list: %v, %d items", err, len(res.Items))
				}
			}
		})
		b.Run(c.name+"/impl=client-go", func(b *testing.B) {
			b.ReportAllocs()
			gvk := k8sWidgetGV.WithKind("Widget")
			for i := 0; i < b.N; i++ {
				l, err := tr.List(k8sWidgetsGVR, gvk, c.listNamespace)
				if err != nil || len(l.(*k8sWidgetList).Items) != want {
					b.Fatalf("list: %v", err)
				}
			}
		})
		st.Close()
	}
}

// BenchmarkFanOut publishes one ~2 KB Widget change per iteration to N watchers and
// waits until every watcher has it; ns/op is per published event, all N deliveries
// included. Both sides deliver the same events to the same number of consumers, and each
// consumer puts every event's JSON bytes into its own buffer, as a watch stream does
// before its write:
//
//   - encode=none: the consumer only takes the event.
//   - encode=each: every consumer encodes the object, as a server without a serializer
//     cache does.
//   - encode=shared: the object is encoded once per change for all consumers. apikit
//     reads batch watches (watch.Batcher, as its HTTP watches do) and shares the bytes
//     through Event.Encoded; apimachinery's Broadcaster carries the change wrapped in a
//     caching object as kube-apiserver's cacher wraps it for dispatch (a
//     runtime.CacheableObject: one encoding per serializer, its bytes written to each
//     consumer by the serializer's Encode).
func BenchmarkFanOut(b *testing.B) {
	const parts = 30 // about 2 KB of JSON
	for _, watchers := range []int{1, 100, 1000} {
		for _, enc := range []string{"none", "each", "shared"} {
			b.Run(fmt.Sprintf("watchers=%d/encode=%s/impl=apikit", watchers, enc), func(b *testing.B) {
				benchmarkFanOutApikit(b, parts, watchers, enc)
			})
			b.Run(fmt.Sprintf("watchers=%d/encode=%s/impl=apimachinery", watchers, enc), func(b *testing.B) {
				benchmarkFanOutApimachinery(b, parts, watchers, enc)
			})
		}
	}
}

func benchmarkFanOutApikit(b *testing.B, parts, watchers int, enc string) {
	_, obj := smallWidgetPair(b, parts, "ns", "w")
	// No slow-watcher timeout: at encode=each the consumers fall behind for longer than
	// the default 10 s on a loaded machine, and apimachinery's side waits.
	br := apikitwatch.NewBroadcaster(apikitwatch.Options{HistorySize: b.N + 16, SlowWatcherTimeout: time.Hour, BookmarkInterval: -1})
	defer br.Stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	key := any("json")
	encode := func(o scheme.Kinded) ([]byte, error) { return json.Marshal(o) }
	wg := startConsumers(watchers, func() (func(), func()) {
		wi, err := br.Watch(ctx, 0, apikitwatch.WatchOptions{Key: "/", Recursive: true, Batches: true})
		if err != nil {
			b.Fatal(err)
		}
		return func() {
			var batch []apikitwatch.Event
			var buf []byte
			for got := 0; got < b.N; {
				var ok bool
				if batch, ok = wi.(apikitwatch.Batcher).NextBatch(batch[:0]); !ok {
					b.Error("watch closed early")
					return
				}
				for _, ev := range batch {
					var data []byte
					switch enc {
					case "each":
						data, _ = json.Marshal(ev.Object)
					case "shared":
						data, _ = ev.Encoded(key, encode)
					}
					buf = append(buf[:0], data...)
				}
				got += len(batch)
			}
		}, wi.Stop
	})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := br.Publish(apikitwatch.Change{Type: apikitwatch.Modified, Object: obj, PrevObject: obj, ResourceVersion: uint64(i + 1), Key: "/toys.example.com/widgets/ns/w"}); err != nil {
			b.Fatal(err)
		}
	}
	wg.Wait()
}

func benchmarkFanOutApimachinery(b *testing.B, parts, watchers int, enc string) {
	kw, _ := smallWidgetPair(b, parts, "ns", "w")
	ser := kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, nil, nil, kjson.SerializerOptions{})
	br := k8swatch.NewBroadcaster(1000, k8swatch.WaitIfChannelFull)
	defer br.Shutdown()
	wg := startConsumers(watchers, func() (func(), func()) {
		wi, err := br.Watch()
		if err != nil {
			b.Fatal(err)
		}
		return func() {
			var buf bytes.Buffer
			for got := 0; got < b.N; got++ {
				ev, ok := <-wi.ResultChan()
				if !ok {
					b.Error("watch closed early")
					return
				}
				buf.Reset()
				if enc != "none" {
					_ = ser.Encode(ev.Object, &buf)
				}
			}
		}, wi.Stop
	})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var obj k8sruntime.Object = kw
		if enc == "shared" {
			obj = &cachingObject{object: kw}
		}
		if err := br.Action(k8swatch.Modified, obj); err != nil {
			b.Fatal(err)
		}
	}
	wg.Wait()
}

// startConsumers starts n consumers, each made by start (its loop and the stop of its
// watch) and run on its own goroutine, which stops the watch when the loop ends.
func startConsumers(n int, start func() (consume, stop func())) *sync.WaitGroup {
	var wg sync.WaitGroup
	for range n {
		consume, stop := start()
		wg.Go(func() {
			defer stop()
			consume()
		})
	}
	return &wg
}

// cachingObject is a runtime.CacheableObject with the costs of the caching object that
// kube-apiserver's cacher wraps each dispatched change in (k8s.io/apiserver's
// pkg/storage/cacher, unexported there): a map of encodings by serializer identifier,
// read without a lock once it holds the identifier, each encoding made once, of a copy
// of the object.
type cachingObject struct {
	object  *k8sWidget
	mu      sync.Mutex
	results atomic.Pointer[map[k8sruntime.Identifier]*cachedEncoding]
}

type cachedEncoding struct {
	once sync.Once
	raw  []byte
	err  error
}

func (o *cachingObject) encoding(id k8sruntime.Identifier) *cachedEncoding {
	if m := o.results.Load(); m != nil {
		if r, ok := (*m)[id]; ok {
			return r
		}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	old := o.results.Load()
	if old != nil {
		if r, ok := (*old)[id]; ok {
			return r
		}
	}
	m := make(map[k8sruntime.Identifier]*cachedEncoding, 1)
	if old != nil {
		maps.Copy(m, *old)
	}
	r := &cachedEncoding{}
	m[id] = r
	o.results.Store(&m)
	return r
}

// CacheEncode writes the encoding for id, made on first use.
func (o *cachingObject) CacheEncode(id k8sruntime.Identifier, encode func(k8sruntime.Object, io.Writer) error, w io.Writer) error {
	r := o.encoding(id)
	r.once.Do(func() {
		var buf bytes.Buffer
		r.err = encode(o.GetObject(), &buf)
		r.raw = buf.Bytes()
	})
	if r.err != nil {
		return r.err
	}
	_, err := w.Write(r.raw)
	return err
}

// GetObject returns a copy of the object, as kube's does.
func (o *cachingObject) GetObject() k8sruntime.Object { return o.object.DeepCopy() }

func (o *cachingObject) GetObjectKind() k8sschema.ObjectKind { return o.object.GetObjectKind() }

func (o *cachingObject) DeepCopyObject() k8sruntime.Object {
	return &cachingObject{object: o.object.DeepCopy()}
}

var _ k8sruntime.CacheableObject = (*cachingObject)(nil)
