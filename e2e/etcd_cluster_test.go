package e2e

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	etcdstore "github.com/apikit-dev/apikit/storage/etcd"
	"github.com/apikit-dev/apikit/storage/storagetest"
)

// clusterMembers is the size of the test cluster: the smallest that keeps a quorum
// when one member dies.
const clusterMembers = 3

// testCluster is a three-member etcd inside the test process. Members need each other's
// peer URLs before any of them starts, so the ports are reserved up front (a free port
// the kernel picked on 127.0.0.1, released just before etcd binds it); a killed member
// restarts on the same ports and data directory.
type testCluster struct {
	tb      testing.TB
	configs []*embed.Config
	mu      sync.Mutex
	members []*embed.Etcd // nil while a member is stopped
}

// freeLoopbackURL reserves a port the kernel picks on 127.0.0.1 and returns it as a URL.
func freeLoopbackURL(tb testing.TB) url.URL {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	return url.URL{Scheme: "http", Host: l.Addr().String()}
}

// clusterStartAttempts bounds the starts of a cluster whose reserved ports another
// test took before etcd bound them.
const clusterStartAttempts = 3

func startTestCluster(tb testing.TB) *testCluster {
	tb.Helper()
	c := &testCluster{tb: tb}
	tb.Cleanup(c.stopAll)
	for attempt := 1; ; attempt++ {
		err := c.startAll()
		if err == nil {
			return c
		}
		c.stopAll()
		if attempt == clusterStartAttempts || !isAddrInUse(err) {
			tb.Fatal(err)
		}
		tb.Logf("a reserved port was taken before etcd bound it; new ports: %v", err)
	}
}

// isAddrInUse reports a listen that failed because the port is taken (etcd does not
// always wrap the system error, so its text counts too).
func isAddrInUse(err error) bool {
	return errors.Is(err, syscall.EADDRINUSE) || strings.Contains(err.Error(), "address already in use")
}

// startAll configures the members on fresh ports and data directories and starts them
// together (they wait for each other's votes). It returns only once every start has
// ended, failed or not: a member still starting when the test's directories are
// removed would panic on its missing database.
func (c *testCluster) startAll() error {
	c.configs = nil
	c.mu.Lock()
	c.members = make([]*embed.Etcd, clusterMembers)
	c.mu.Unlock()
	var initial []string
	for i := range clusterMembers {
		cfg := embed.NewConfig()
		cfg.Name = fmt.Sprintf("member%d", i)
		cfg.Dir = c.tb.TempDir()
		cfg.UnsafeNoFsync = true
		client, peer := freeLoopbackURL(c.tb), freeLoopbackURL(c.tb)
		cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
		cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
		// Short heartbeats make the survivors elect a new leader quickly after a kill.
		cfg.TickMs, cfg.ElectionMs = 50, 500
		logger := zap.NewNop()
		if os.Getenv("ETCD_LOG") != "" {
			logger, _ = zap.NewDevelopment()
		}
		cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(logger)
		initial = append(initial, cfg.Name+"="+peer.String())
		c.configs = append(c.configs, cfg)
	}
	for _, cfg := range c.configs {
		cfg.InitialCluster = strings.Join(initial, ",")
		cfg.InitialClusterToken = "apikit-test-cluster"
	}
	errs := make(chan error, clusterMembers)
	for i := range clusterMembers {
		go func() { errs <- c.start(i) }()
	}
	var all []error
	for range clusterMembers {
		all = append(all, <-errs)
	}
	return errors.Join(all...)
}

// start starts member i (again, after Kill) and waits until it serves.
func (c *testCluster) start(i int) error {
	e, err := embed.StartEtcd(c.configs[i])
	if err != nil {
		return fmt.Errorf("starting %s: %w", c.configs[i].Name, err)
	}
	c.mu.Lock()
	c.members[i] = e
	c.mu.Unlock()
	timer := time.NewTimer(etcdReadyTimeout)
	defer timer.Stop()
	select {
	case <-e.Server.ReadyNotify():
		return nil
	case err := <-e.Err():
		return fmt.Errorf("%s failed: %w", c.configs[i].Name, err)
	case <-timer.C:
		return fmt.Errorf("%s not ready within %s", c.configs[i].Name, etcdReadyTimeout)
	}
}

// Endpoints are the client URLs of every member.
func (c *testCluster) Endpoints() []string {
	var eps []string
	for _, cfg := range c.configs {
		eps = append(eps, cfg.ListenClientUrls[0].String())
	}
	return eps
}

// Leader is the index of the member that leads, or 0 when none claims to.
func (c *testCluster) Leader() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range c.members {
		if e != nil && e.Server.Leader() == e.Server.MemberID() {
			return i
		}
	}
	return 0
}

// Kill stops member i as a crash would look to its peers and clients: its listeners
// close and it answers no more.
func (c *testCluster) Kill(i int) {
	c.mu.Lock()
	e := c.members[i]
	c.members[i] = nil
	c.mu.Unlock()
	if e != nil {
		e.Close()
	}
}

func (c *testCluster) stopAll() {
	for i := range c.members {
		c.Kill(i)
	}
}

// newClusterStore returns a Store on every member of c under prefix, closed when the
// test ends; opts may set the timeouts and the compactor.
func newClusterStore(tb testing.TB, c *testCluster, prefix string, opts etcdstore.Options) *etcdstore.Store {
	tb.Helper()
	opts.Endpoints, opts.Prefix = c.Endpoints(), prefix
	return openTestStore(tb, opts)
}

// ackedWrite is a create or update that returned success.
type ackedWrite struct {
	key  string
	size int64
	rv   uint64
}

// TestEtcdCluster_KilledMemberLosesNoAcknowledgedWrite: two replicas on all three
// members write under load; the leader is killed halfway. Every write that returned
// success is still there (at its resourceVersion or overwritten by a later one), and
// both replicas keep serving on the two members left.
func TestEtcdCluster_KilledMemberLosesNoAcknowledgedWrite(t *testing.T) {
	c := startTestCluster(t)
	opts := etcdstore.Options{RequestTimeout: 2 * time.Second}
	replicas := []*etcdstore.Store{newClusterStore(t, c, "/cluster", opts), newClusterStore(t, c, "/cluster", opts)}

	const writers, writesEach = 4, 60
	var (
		mu       sync.Mutex
		acked    []ackedWrite
		failures int
		// ackedAfterKill counts the writes acknowledged once the member was dead.
		ackedAfterKill int
		killOnce       sync.Once
		done           = make(chan struct{})
		wg             sync.WaitGroup
	)
	record := func(key string, obj scheme.Object, err error) {
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			failures++
			return
		}
		rv, perr := storage.ParseResourceVersion(obj.GetResourceVersion())
		if perr != nil {
			t.Errorf("write of %s returned resourceVersion %q: %v", key, obj.GetResourceVersion(), perr)
			return
		}
		acked = append(acked, ackedWrite{key: key, size: obj.(*storagetest.Widget).Spec.Size, rv: rv})
		select {
		case <-done:
			ackedAfterKill++
		default:
		}
	}
	for w := range writers {
		st := replicas[w%len(replicas)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range writesEach {
				if w == 0 && i == writesEach/2 {
					killOnce.Do(func() { c.Kill(c.Leader()); close(done) })
				}
				ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
				// Each writer creates its own objects and updates them, so every
				// acknowledged value is unique and can be looked for afterwards.
				name := fmt.Sprintf("w%d-%d", w, i/2)
				key := storage.Key(storagetest.Widgets, "ns1", name)
				size := int64(w*1000 + i)
				if i%2 == 0 {
					obj, err := st.Create(ctx, key, storagetest.NewWidget("ns1", name, nil, size))
					record(key, obj, err)
				} else {
					obj, err := st.GuaranteedUpdate(ctx, key, storage.UpdateOptions{}, setWidgetSize(size))
					if errors.Is(err, storage.ErrNotFound) {
						err = nil // its create failed: nothing to update
						obj = nil
					}
					if obj != nil || err != nil {
						record(key, obj, err)
					}
				}
				cancel()
			}
		}()
	}
	wg.Wait()
	<-done

	// Acknowledged writes, read back through both replicas: each key's last
	// acknowledged write must be what is stored, or something written after it.
	last := map[string]ackedWrite{}
	for _, a := range acked {
		if a.rv > last[a.key].rv {
			last[a.key] = a
		}
	}
	for ri, st := range replicas {
		for key, want := range last {
			obj, err := st.Get(t.Context(), key, storage.GetOptions{})
			if err != nil {
				t.Errorf("replica %d: get %s: %v (acknowledged at %d)", ri, key, err, want.rv)
				continue
			}
			rv, _ := storage.ParseResourceVersion(obj.GetResourceVersion())
			size := obj.(*storagetest.Widget).Spec.Size
			switch {
			case rv < want.rv:
				t.Errorf("replica %d: %s at %d, older than its acknowledged write at %d: a write was lost", ri, key, rv, want.rv)
			case rv == want.rv && size != want.size:
				t.Errorf("replica %d: %s at %d has size %d, the acknowledged write stored %d", ri, key, rv, size, want.size)
			}
		}
	}
	// Both replicas keep serving writes and reads on the surviving members.
	for ri, st := range replicas {
		name := fmt.Sprintf("after-kill-%d", ri)
		key := storage.Key(storagetest.Widgets, "ns1", name)
		if _, err := st.Create(t.Context(), key, storagetest.NewWidget("ns1", name, nil, 1)); err != nil {
			t.Errorf("replica %d: create after the kill: %v", ri, err)
		}
		if _, err := st.List(t.Context(), storage.Prefix(storagetest.Widgets, "ns1"), storage.ListOptions{}); err != nil {
			t.Errorf("replica %d: list after the kill: %v", ri, err)
		}
	}
	t.Logf("%d writes acknowledged on %d keys (%d after the kill), %d failed (unknown outcome) around the kill; none lost", len(acked), len(last), ackedAfterKill, failures)
	if ackedAfterKill == 0 {
		t.Fatal("no write was acknowledged after the kill: the test checked no fault")
	}
}
