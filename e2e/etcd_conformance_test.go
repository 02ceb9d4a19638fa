package e2e

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/cache"
	etcdstore "github.com/apikit-dev/apikit/storage/etcd"
	"github.com/apikit-dev/apikit/storage/storagetest"
)

// etcdReadyTimeout bounds how long a single-member etcd may take to elect itself; it is
// a safety net against a hang, not a speed assertion.
const etcdReadyTimeout = 60 * time.Second

// testEtcd is a single-member etcd inside the test process, on loopback ports the kernel
// picks, with its data in the test's temporary directory; it stops when the test ends.
type testEtcd struct {
	etcd *embed.Etcd
	stop sync.Once
	// Endpoint is http://127.0.0.1:PORT (https with TLS).
	Endpoint string
}

func startTestEtcd(tb testing.TB) *testEtcd {
	tb.Helper()
	return startTestEtcdAt(tb, tb.TempDir(), "127.0.0.1:0")
}

// startTestEtcdAt starts etcd on data dir serving clients at clientAddr (port 0: one
// the kernel picks); a second start on the same dir and address is a restart.
func startTestEtcdAt(tb testing.TB, dir, clientAddr string) *testEtcd {
	tb.Helper()
	return runTestEtcd(tb, testEtcdConfig(dir, url.URL{Scheme: "http", Host: clientAddr}))
}

// testEtcdConfig is the configuration of a single test member on data dir serving
// clients at client; the peer URL is never dialled by a single member.
func testEtcdConfig(dir string, client url.URL) *embed.Config {
	cfg := embed.NewConfig()
	cfg.Name = "apikit-etcd-test"
	cfg.Dir = dir
	// A test's data need not survive a crash; fsync would only slow a shared disk.
	cfg.UnsafeNoFsync = true
	loopback := url.URL{Scheme: "http", Host: "127.0.0.1:0"}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{loopback}, []url.URL{loopback}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	logger := zap.NewNop()
	if os.Getenv("ETCD_LOG") != "" {
		logger, _ = zap.NewDevelopment()
	}
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(logger)
	return cfg
}

// runTestEtcd starts etcd with cfg, waits until it serves and stops it when the test
// ends.
func runTestEtcd(tb testing.TB, cfg *embed.Config) *testEtcd {
	tb.Helper()
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		tb.Fatalf("starting etcd: %v", err)
	}
	te := &testEtcd{etcd: e}
	tb.Cleanup(te.Stop)
	timer := time.NewTimer(etcdReadyTimeout)
	defer timer.Stop()
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		tb.Fatalf("etcd failed: %v", err)
	case <-timer.C:
		tb.Fatalf("etcd not ready within %s", etcdReadyTimeout)
	}
	if len(e.Clients) == 0 {
		tb.Fatal("etcd has no client listener")
	}
	te.Endpoint = cfg.ListenClientUrls[0].Scheme + "://" + e.Clients[0].Addr().String()
	return te
}

// Stop stops etcd; it may be called more than once.
func (e *testEtcd) Stop() { e.stop.Do(e.etcd.Close) }

// prefixes numbers the key prefixes of the Stores made on one etcd, so every test
// starts on an empty collection.
var prefixes atomic.Int64

// newEtcdStore returns a Store on e under a key prefix of its own, closed when the test
// ends.
func newEtcdStore(tb testing.TB, e *testEtcd, opts etcdstore.Options) *etcdstore.Store {
	tb.Helper()
	opts.Endpoints = []string{e.Endpoint}
	return openTestStore(tb, opts)
}

// openTestStore returns a Store with opts on opts.Endpoints, the storagetest codec and,
// unless opts names one, a key prefix of its own; it is closed when the test ends.
func openTestStore(tb testing.TB, opts etcdstore.Options) *etcdstore.Store {
	tb.Helper()
	s := scheme.New()
	if err := storagetest.AddToScheme(s); err != nil {
		tb.Fatal(err)
	}
	if opts.Prefix == "" {
		opts.Prefix = fmt.Sprintf("/apikit-test-%d", prefixes.Add(1))
	}
	if opts.Codec == nil {
		opts.Codec = etcdstore.NewCodec(s)
	}
	ctx, cancel := context.WithTimeout(context.Background(), etcdReadyTimeout)
	defer cancel()
	st, err := etcdstore.New(ctx, opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := st.Close(); err != nil {
			tb.Errorf("closing the store: %v", err)
		}
	})
	return st
}

// TestEtcd_Conformance runs the whole backend conformance suite over storage/etcd
// against a real etcd server, each behaviour on its own key prefix.
func TestEtcd_Conformance(t *testing.T) {
	e := startTestEtcd(t)
	storagetest.Run(t, func(t *testing.T) storage.Interface {
		return newEtcdStore(t, e, etcdstore.Options{})
	}, storagetest.Capabilities{ExactReads: true, Compaction: true, TooLargeResourceVersion: true})
}

// TestEtcd_CacheConformance runs the suite over the watch cache in front of
// storage/etcd: one etcd watch per resource, reads from memory once caught up.
func TestEtcd_CacheConformance(t *testing.T) {
	e := startTestEtcd(t)
	storagetest.Run(t, func(t *testing.T) storage.Interface {
		c, err := cache.Start(t.Context(), newEtcdStore(t, e, etcdstore.Options{}), cache.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		return c
	}, storagetest.Capabilities{ExactReads: true, Compaction: true, TooLargeResourceVersion: true})
}

// TestEtcd_NewFailsFastWhenEtcdIsUnreachable: a replica pointed at nothing stops at
// start, within its dial timeout, with an error that says so.
func TestEtcd_NewFailsFastWhenEtcdIsUnreachable(t *testing.T) {
	s := scheme.New()
	ctx, cancel := context.WithTimeout(context.Background(), etcdReadyTimeout)
	defer cancel()
	_, err := etcdstore.New(ctx, etcdstore.Options{
		Endpoints:   []string{"http://127.0.0.1:1"},
		Codec:       etcdstore.NewCodec(s),
		DialTimeout: 200 * time.Millisecond,
	})
	if err == nil {
		t.Fatal("New succeeded with no etcd")
	}
	if ctx.Err() != nil {
		t.Fatalf("New did not return before the test's safety deadline: %v", err)
	}
}

// TestEtcd_StoppedEtcdFailsRequestsAsUnavailable: once etcd is gone, reads fail with
// storage.ErrUnavailable (503), writes with it too when the client knows it sent
// nothing, else with storage.ErrTimeout (an outcome unknown: kube's 504), or with the
// caller's deadline; they never hang, and never name an endpoint in what a client is
// shown.
func TestEtcd_StoppedEtcdFailsRequestsAsUnavailable(t *testing.T) {
	e := startTestEtcd(t)
	st := newEtcdStore(t, e, etcdstore.Options{RequestTimeout: 500 * time.Millisecond})
	key := storage.Key(storagetest.Widgets, "ns1", "a")
	if _, err := st.Create(context.Background(), key, storagetest.NewWidget("ns1", "a", nil, 1)); err != nil {
		t.Fatal(err)
	}
	e.Stop()
	for _, tc := range []struct {
		name string
		op   func(ctx context.Context) error
		// write: the error may be ErrTimeout too (an outcome unknown, no detail).
		write bool
	}{
		{"get", func(ctx context.Context) error {
			_, err := st.Get(ctx, key, storage.GetOptions{})
			return err
		}, false},
		{"create", func(ctx context.Context) error {
			_, err := st.Create(ctx, storage.Key(storagetest.Widgets, "ns1", "b"), storagetest.NewWidget("ns1", "b", nil, 1))
			return err
		}, true},
		{"list", func(ctx context.Context) error {
			_, err := st.List(ctx, storage.Prefix(storagetest.Widgets, ""), storage.ListOptions{})
			return err
		}, false},
		{"check", func(ctx context.Context) error { return st.Check(ctx) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			failed := func(err error) bool {
				return errors.Is(err, storage.ErrUnavailable) || (tc.write && errors.Is(err, storage.ErrTimeout))
			}
			err := tc.op(context.Background())
			t.Logf("%s with etcd stopped: %v", tc.name, err)
			if !failed(err) {
				t.Fatalf("error = %v, want ErrUnavailable (or, for a write, ErrTimeout)", err)
			}
			var se *storage.Error
			if !errors.As(err, &se) || (se.Detail == "") != errors.Is(err, storage.ErrTimeout) || containsEndpoint(se.Detail, e.Endpoint) {
				t.Errorf("error %#v: want a *storage.Error whose detail names no endpoint", err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			if err := tc.op(ctx); !errors.Is(err, context.DeadlineExceeded) && !failed(err) {
				t.Errorf("with a caller's deadline: error = %v, want the deadline or the error above", err)
			}
		})
	}
}

func containsEndpoint(s, endpoint string) bool {
	u, err := url.Parse(endpoint)
	return err == nil && u.Host != "" && strings.Contains(s, u.Host)
}
