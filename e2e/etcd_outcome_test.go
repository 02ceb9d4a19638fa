package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apikit-dev/apikit/examples/widgets/server"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	etcdstore "github.com/apikit-dev/apikit/storage/etcd"
	"github.com/apikit-dev/apikit/storage/storagetest"
)

// pausableProxy forwards TCP connections from a loopback port to an etcd client URL.
// Pause stops the forwarding both ways: what either side sends waits in the proxy, as it
// waits in the socket buffers of an etcd stopped with SIGSTOP, and Resume delivers it,
// ends of stream included, so that requests a client gave up on are still served.
// PauseAnswers holds only what etcd sends: etcd serves every request at once, and the
// client hears of none, as when answers are lost.
type pausableProxy struct {
	l      net.Listener
	target string

	mu   sync.Mutex
	cond *sync.Cond
	// paused holds the bytes sent to etcd (up) and the ones etcd sends (down).
	paused [2]bool
	closed bool
	conns  []net.Conn
	wg     sync.WaitGroup
}

// startPausableProxy listens on a free loopback port in front of target (host:port).
func startPausableProxy(t *testing.T, target string) *pausableProxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &pausableProxy{l: l, target: target}
	p.cond = sync.NewCond(&p.mu)
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.close)
	return p
}

// URL is the proxy's etcd client URL.
func (p *pausableProxy) URL() string { return "http://" + p.l.Addr().String() }

// The directions a proxy forwards.
const (
	up   = 0 // to etcd
	down = 1 // from etcd
)

// Pause holds every byte from now on until Resume.
func (p *pausableProxy) Pause() { p.setPaused(true, true) }

// PauseAnswers holds the bytes etcd sends from now on until Resume.
func (p *pausableProxy) PauseAnswers() { p.setPaused(false, true) }

// Resume delivers what was held and forwards again.
func (p *pausableProxy) Resume() { p.setPaused(false, false) }

func (p *pausableProxy) setPaused(toEtcd, fromEtcd bool) {
	p.mu.Lock()
	p.paused = [2]bool{toEtcd, fromEtcd}
	p.mu.Unlock()
	p.cond.Broadcast()
}

// waitRunning blocks while direction dir is paused; false once the proxy is closed.
func (p *pausableProxy) waitRunning(dir int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.paused[dir] && !p.closed {
		p.cond.Wait()
	}
	return !p.closed
}

func (p *pausableProxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.l.Accept()
		if err != nil {
			return
		}
		etcd, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			c.Close()
			etcd.Close()
			return
		}
		p.conns = append(p.conns, c, etcd)
		p.mu.Unlock()
		p.wg.Add(2)
		go p.pipe(etcd, c, up)
		go p.pipe(c, etcd, down)
	}
}

// pipe copies src to dst in direction dir, holding each read while dir is paused; at
// src's end it closes dst's write side (once running), so that dst reads what src sent
// and then its end.
func (p *pausableProxy) pipe(dst, src net.Conn, dir int) {
	defer p.wg.Done()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if !p.waitRunning(dir) {
				return
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				src.Close()
				return
			}
		}
		if err != nil {
			if p.waitRunning(dir) {
				if tc, ok := dst.(*net.TCPConn); ok {
					_ = tc.CloseWrite()
				}
			}
			return
		}
	}
}

func (p *pausableProxy) close() {
	p.mu.Lock()
	p.closed = true
	conns := p.conns
	p.mu.Unlock()
	p.cond.Broadcast()
	p.l.Close()
	for _, c := range conns {
		c.Close()
	}
	p.wg.Wait()
}

// outcomeAnswer is one answer to a write whose outcome etcd left unknown.
type outcomeAnswer struct {
	code       int
	reason     string
	message    string
	retryAfter string
	err        error
}

func (a outcomeAnswer) String() string {
	if a.err != nil {
		return a.err.Error()
	}
	return fmt.Sprintf("%d %s %q (Retry-After %q)", a.code, a.reason, a.message, a.retryAfter)
}

// send sends one request with the replica's token and reads its answer.
func (r *replica) send(ctx context.Context, method, path, body string) outcomeAnswer {
	req, err := http.NewRequestWithContext(ctx, method, r.URL+path, strings.NewReader(body))
	if err != nil {
		return outcomeAnswer{err: err}
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer "+r.Token)
	resp, err := r.Client.Do(req)
	if err != nil {
		return outcomeAnswer{err: err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return outcomeAnswer{err: err}
	}
	a := outcomeAnswer{code: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After")}
	if resp.StatusCode/100 == 2 {
		return a
	}
	var st metav1.Status
	if err := json.Unmarshal(data, &st); err != nil || st.Kind != "Status" {
		a.err = fmt.Errorf("%d is not a Status: %q", resp.StatusCode, data)
		return a
	}
	a.reason, a.message = string(st.Reason), st.Message
	return a
}

// unknownOutcomeAnswer checks the answer to a write that etcd may have applied: kube's
// 504 Timeout, or its 500 with etcd's text, and never the 503 that tells a client to
// try again (a retried generateName create makes a second object), nor a Retry-After
// (client-go retries a 5xx that has one).
func unknownOutcomeAnswer(a outcomeAnswer) error {
	switch {
	case a.err != nil:
		return a.err
	case a.code == http.StatusServiceUnavailable || strings.Contains(a.message, "try again"):
		return fmt.Errorf("%v: says to try again, but the write may have been applied", a)
	case a.retryAfter != "":
		return fmt.Errorf("%v: a Retry-After makes client-go send the write again", a)
	case a.code == http.StatusGatewayTimeout && a.reason == string(metav1.StatusReasonTimeout):
		return nil
	case a.code == http.StatusInternalServerError && a.reason == "" && strings.HasPrefix(a.message, "etcdserver: "):
		return nil
	}
	return fmt.Errorf("%v, want kube's 504 Timeout or its 500 with etcd's text", a)
}

// TestEtcdLostAnswers_StoreWritesEtcdAppliedAreOfUnknownOutcome: etcd applies every
// write at once but its answers are held (the proxy forwards only what is sent to it),
// so a Store with a short RequestTimeout hears of none: each create, update and delete
// (from the cached state the watch cache passes, so that it is the write that waits)
// fails with storage.ErrTimeout, not the ErrUnavailable that tells a client to try
// again, and every one of them was applied.
func TestEtcdLostAnswers_StoreWritesEtcdAppliedAreOfUnknownOutcome(t *testing.T) {
	e := startTestEtcd(t)
	proxy := startPausableProxy(t, strings.TrimPrefix(e.Endpoint, "http://"))
	st := openTestStore(t, etcdstore.Options{Endpoints: []string{proxy.URL()}, RequestTimeout: 500 * time.Millisecond})
	ctx := context.Background()
	key := func(name string) string { return storage.Key(storagetest.Widgets, "ns1", name) }
	cached := map[string]scheme.Object{}
	for _, name := range []string{"updated", "deleted"} {
		obj, err := st.Create(ctx, key(name), storagetest.NewWidget("ns1", name, nil, 1))
		if err != nil {
			t.Fatal(err)
		}
		cached[name] = scheme.DeepCopy(obj)
	}
	proxy.PauseAnswers()
	for _, w := range []struct {
		name string
		do   func() error
	}{
		{"create", func() error {
			_, err := st.Create(ctx, key("created"), storagetest.NewWidget("ns1", "created", nil, 1))
			return err
		}},
		{"update", func() error {
			_, err := st.GuaranteedUpdate(ctx, key("updated"), storage.UpdateOptions{CachedExisting: cached["updated"]}, func(cur scheme.Object) (scheme.Object, error) {
				cur.(*storagetest.Widget).Spec.Size = 2
				return cur, nil
			})
			return err
		}},
		{"delete", func() error {
			_, err := st.Delete(ctx, key("deleted"), storage.DeleteOptions{CachedExisting: cached["deleted"]})
			return err
		}},
	} {
		err := w.do()
		t.Logf("%s with etcd's answers lost: %v", w.name, err)
		if !errors.Is(err, storage.ErrTimeout) || errors.Is(err, storage.ErrUnavailable) {
			t.Errorf("%s with etcd's answers lost: %v, want ErrTimeout", w.name, err)
		}
		var se *storage.Error
		if errors.As(err, &se) && se.Detail != "" && !strings.HasPrefix(se.Detail, "etcdserver: ") {
			t.Errorf("%s: detail %q, want none or etcd's text", w.name, se.Detail)
		}
	}
	proxy.Resume()
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, cerr := st.Get(ctx, key("created"), storage.GetOptions{})
		updated, uerr := st.Get(ctx, key("updated"), storage.GetOptions{})
		_, derr := st.Get(ctx, key("deleted"), storage.GetOptions{})
		if cerr == nil && uerr == nil && updated.(*storagetest.Widget).Spec.Size == 2 && errors.Is(derr, storage.ErrNotFound) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the answers came back: created %v, updated %v (%v), deleted %v: want every write applied", cerr, updated, uerr, derr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestEtcdPause_CreatesOfUnknownOutcomeAreNotToldToTryAgain: etcd stops answering (the
// proxy in front of it holds every byte, as SIGSTOP would) while 8 writers send
// generateName creates; the etcd client gives up on each (its keepalive closes the
// connection) and the replica answers. etcd then serves what it had been sent, so
// the creates were applied: each answer must say the outcome is unknown, as
// kube-apiserver does, and never "please try again".
func TestEtcdPause_CreatesOfUnknownOutcomeAreNotToldToTryAgain(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), outageTestTimeout)
	t.Cleanup(cancel)
	e := startRestartableEtcd(t)
	proxy := startPausableProxy(t, e.clientURL.Host)
	es := startExampleServerWith(t, server.StorageEtcd, func(c *server.Config) {
		c.Etcd = server.EtcdConfig{Endpoints: []string{proxy.URL()}, Prefix: "/outcome", CompactionInterval: -1}
	})
	r := &replica{exampleServer: es}
	path := "/apis/toys.example.com/v1/namespaces/" + replicasNamespace + "/widgets"
	body := func() string {
		b, _ := json.Marshal(map[string]any{
			"apiVersion": "toys.example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"generateName": "gen-", "namespace": replicasNamespace},
			"spec":     map[string]any{"color": "red", "replicas": 1},
		})
		return string(b)
	}
	if a := r.send(ctx, http.MethodPost, path, body()); a.code != http.StatusCreated {
		t.Fatalf("a create before the pause: %v", a)
	}

	const writers = 8
	proxy.Pause()
	paused := time.Now()
	answers := make([]outcomeAnswer, writers)
	var wg sync.WaitGroup
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = r.send(ctx, http.MethodPost, path, body())
		}()
	}
	wg.Wait()
	answered := time.Since(paused)
	proxy.Resume()

	for i, a := range answers {
		if err := unknownOutcomeAnswer(a); err != nil {
			t.Errorf("writer %d: %v", i, err)
		}
	}
	// What etcd had been sent is stored once it runs again: the outcomes were unknown
	// indeed, not "not applied".
	var stored int
	deadline := time.Now().Add(30 * time.Second)
	for {
		var list struct {
			Items []json.RawMessage `json:"items"`
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, r.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+r.Token)
		if resp, err := r.Client.Do(req); err == nil {
			if resp.StatusCode == http.StatusOK {
				_ = json.NewDecoder(resp.Body).Decode(&list)
			}
			resp.Body.Close()
		}
		stored = len(list.Items) - 1
		if stored >= writers || time.Now().After(deadline) || ctx.Err() != nil {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("with etcd paused, %d creates answered after %v: %v; %d of them stored once etcd ran again", writers, answered.Round(time.Millisecond), answers, stored)
}

// TestEtcdDown_DeleteThatRunsOutOfTimeIs504: with etcd stopped, a DELETE (here with
// ?timeout=3s, on objects the watch cache holds) runs out of time like every other
// verb, and is answered kube's 504 Timeout, not a 500 "context canceled"; nothing is
// deleted.
func TestEtcdDown_DeleteThatRunsOutOfTimeIs504(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), outageTestTimeout)
	t.Cleanup(cancel)
	e := startRestartableEtcd(t)
	r := startReplicas(t, e, 1)[0]
	const objects = 4
	for i := range objects {
		if _, err := r.widgets.Create(ctx, newWidget(replicasNamespace, fmt.Sprintf("d%d", i), "red", 1, nil), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	e.Stop()
	path := "/apis/toys.example.com/v1/namespaces/" + replicasNamespace + "/widgets/"
	for i := range objects {
		a := r.send(ctx, http.MethodDelete, fmt.Sprintf("%sd%d?timeout=%s", path, i, outageRequestTimeout), "")
		t.Logf("DELETE d%d with etcd down: %v", i, a)
		if a.err != nil || a.code != http.StatusGatewayTimeout || a.reason != string(metav1.StatusReasonTimeout) || a.retryAfter != "" {
			t.Errorf("DELETE d%d with etcd down: %v, want kube's 504 Timeout", i, a)
		}
	}
	e.Start(t)
	for i := range objects {
		var err error
		deadline := time.Now().Add(30 * time.Second)
		for {
			_, err = r.widgets.Get(ctx, fmt.Sprintf("d%d", i), metav1.GetOptions{})
			if err == nil || time.Now().After(deadline) || !isTransient(err) {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		if err != nil {
			t.Errorf("d%d after etcd is back: %v, want it still there", i, err)
		}
	}
}

// isTransient tells an error of a replica still reconnecting to etcd.
func isTransient(err error) bool {
	var st interface{ Status() metav1.Status }
	if errors.As(err, &st) {
		c := st.Status().Code
		return c == http.StatusServiceUnavailable || c == http.StatusGatewayTimeout || c == http.StatusInternalServerError
	}
	return true
}
