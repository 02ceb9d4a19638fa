package etcd

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
)

// Defaults of the zero Options.
const (
	DefaultPrefix           = "/registry"
	DefaultDialTimeout      = 5 * time.Second
	DefaultRequestTimeout   = 30 * time.Second
	DefaultFutureWait       = 3 * time.Second
	DefaultBookmarkInterval = time.Minute
	// DefaultCompactionInterval is kube-apiserver's --etcd-compaction-interval. A zero
	// Options.CompactionInterval means no compactor; set this to run one.
	DefaultCompactionInterval = 5 * time.Minute
)

// Options configure a Store. Endpoints and Codec are required.
type Options struct {
	// Endpoints are the etcd client URLs, e.g. "https://10.0.0.1:2379".
	Endpoints []string
	// Prefix is put before every storage key (DefaultPrefix, "/registry", as
	// kube-apiserver's --etcd-prefix). Replicas that share data share the prefix.
	Prefix string
	// TLS configures the connection; nil means plain TCP. Client certificates go in
	// TLS.Certificates, the cluster's CA in TLS.RootCAs.
	TLS *tls.Config
	// DialTimeout bounds New's first contact with the cluster (DefaultDialTimeout).
	DialTimeout time.Duration
	// Codec encodes stored objects (required; NewCodec(s) for a scheme s).
	Codec Codec
	// CompactionInterval is how often the compactor runs; 0 runs none (another replica,
	// or etcd's own --auto-compaction, compacts). Each run compacts to the revision the
	// previous run saw, so at least one interval of history stays.
	CompactionInterval time.Duration
	// Logger receives what a client is not told (etcd's own errors); nil discards it.
	Logger *slog.Logger

	// RequestTimeout bounds each etcd call whose context has no earlier deadline
	// (DefaultRequestTimeout): an unreachable cluster then fails the call with
	// storage.ErrUnavailable instead of hanging.
	RequestTimeout time.Duration
	// FutureWait is how long a read or watch at a resourceVersion etcd has not reached
	// waits for it before failing with storage.ErrTooLargeResourceVersion
	// (DefaultFutureWait, as kube-apiserver's 3s).
	FutureWait time.Duration
	// BookmarkInterval is how often a watch that allows bookmarks asks etcd for a
	// progress notification (DefaultBookmarkInterval).
	BookmarkInterval time.Duration
}

// withDefaults returns opts with every zero field set to its default, or an error for
// a missing required field.
func (opts Options) withDefaults() (Options, error) {
	if len(opts.Endpoints) == 0 {
		return opts, errors.New("etcd: Options.Endpoints is required")
	}
	if opts.Codec == nil {
		return opts, errors.New("etcd: Options.Codec is required")
	}
	if opts.Prefix == "" {
		opts.Prefix = DefaultPrefix
	}
	opts.Prefix = strings.TrimSuffix(opts.Prefix, "/")
	if opts.DialTimeout <= 0 {
		opts.DialTimeout = DefaultDialTimeout
	}
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = DefaultRequestTimeout
	}
	if opts.FutureWait <= 0 {
		opts.FutureWait = DefaultFutureWait
	}
	if opts.BookmarkInterval <= 0 {
		opts.BookmarkInterval = DefaultBookmarkInterval
	}
	if opts.CompactionInterval < 0 {
		return opts, fmt.Errorf("etcd: Options.CompactionInterval %s is negative", opts.CompactionInterval)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return opts, nil
}

// Store is the storage backend on an etcd v3 cluster; see the package documentation. It
// is safe for concurrent use; create one with New and end it with Close.
type Store struct {
	client *clientv3.Client
	opts   Options
	codec  Codec
	log    *slog.Logger

	// done ends the compactor and every watch when the Store closes; wg counts their
	// goroutines. mu orders a Watch's wg.Add before Close's Wait.
	done      chan struct{}
	closeOnce sync.Once
	wg        sync.WaitGroup
	mu        sync.Mutex
	closed    bool
	// bookmarkWatches counts the watches that allow bookmarks; see runProgressRequester.
	bookmarkWatches atomic.Int64
}

// errClosed is the error of a Watch on a closed Store.
var errClosed = errors.New("etcd: store is closed")

var (
	_ storage.Interface         = (*Store)(nil)
	_ storage.Versioned         = (*Store)(nil)
	_ storage.Compactor         = (*Store)(nil)
	_ storage.ProgressRequester = (*Store)(nil)
)

// New connects to the cluster and returns a Store on it. It fails when no endpoint
// answers a quorum read within opts.DialTimeout, so a misconfigured replica stops at
// start rather than serving errors.
func New(ctx context.Context, opts Options) (*Store, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	client, err := clientv3.New(clientv3.Config{
		Endpoints:   opts.Endpoints,
		TLS:         opts.TLS,
		DialTimeout: opts.DialTimeout,
		// Keepalives notice a dead member so the client moves to another one.
		DialKeepAliveTime:    10 * time.Second,
		DialKeepAliveTimeout: opts.DialTimeout,
		// The etcd client logs through zap; what a Store's caller needs to know it logs
		// through Options.Logger itself.
		Logger: zap.NewNop(),
		// A replica must not be served by a member that was partitioned away and
		// restarted from an old snapshot.
		RejectOldCluster: true,
		Context:          context.WithoutCancel(ctx),
	})
	if err != nil {
		return nil, fmt.Errorf("etcd: connect: %w", err)
	}
	s := &Store{client: client, opts: opts, codec: opts.Codec, log: opts.Logger, done: make(chan struct{})}
	dctx, cancel := context.WithTimeout(ctx, opts.DialTimeout)
	defer cancel()
	if err := s.Check(dctx); err != nil {
		client.Close()
		return nil, fmt.Errorf("etcd: no member answered within %s: %w", opts.DialTimeout, err)
	}
	if opts.CompactionInterval > 0 {
		s.wg.Add(1)
		go s.runCompactor(opts.CompactionInterval)
	}
	s.wg.Add(1)
	go s.runProgressRequester()
	return s, nil
}

// Close stops the compactor, ends every watch and closes the connection.
func (s *Store) Close() error {
	var err error
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		close(s.done)
		s.wg.Wait()
		err = s.client.Close()
	})
	return err
}

// healthKey is read by Check; it need not exist.
const healthKey = "/health"

// Check is a quorum read of one key, the health of the cluster for this replica (what
// /readyz/etcd reports): it fails with storage.ErrUnavailable when the cluster cannot be
// reached or has no leader, or with the context's error.
func (s *Store) Check(ctx context.Context) error {
	ctx, cancel := s.opContext(ctx)
	defer cancel()
	_, err := s.client.Get(ctx, s.opts.Prefix+healthKey, clientv3.WithCountOnly())
	if err != nil && !errors.Is(err, rpctypes.ErrPermissionDenied) {
		return s.fail(ctx, err, "")
	}
	return nil
}

// etcdKey is where the object at storage key lives.
func (s *Store) etcdKey(key string) string { return s.opts.Prefix + key }

// storageKey is the storage key of an etcd key under the Store's prefix.
func (s *Store) storageKey(etcdKey []byte) string {
	return strings.TrimPrefix(string(etcdKey), s.opts.Prefix)
}

// opContext bounds one etcd call by RequestTimeout unless ctx ends sooner, and makes it
// require a leader, so a partitioned member answers with an error rather than stale data.
func (s *Store) opContext(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx = clientv3.WithRequireLeader(ctx)
	if d, ok := ctx.Deadline(); ok && time.Until(d) <= s.opts.RequestTimeout {
		return context.WithCancel(ctx)
	}
	return context.WithTimeoutCause(ctx, s.opts.RequestTimeout, errRequestTimeout)
}

// errRequestTimeout is the cause of an opContext that ran out of RequestTimeout, as
// opposed to the caller's own context ending.
var errRequestTimeout = errors.New("etcd request timed out")

// call runs one etcd call under an opContext and maps its error (see fail).
func (s *Store) call(ctx context.Context, key string, fn func(ctx context.Context) error) error {
	octx, cancel := s.opContext(ctx)
	defer cancel()
	if err := fn(octx); err != nil {
		return s.fail(octx, err, key)
	}
	return nil
}

// decode reads a stored value into a new object at its revision.
func (s *Store) decode(key string, kv *mvccpb.KeyValue) (scheme.Object, error) {
	obj, err := s.codec.Decode(kv.Value)
	if err != nil {
		return nil, storage.WithKey(fmt.Errorf("decode stored object: %w", err), key)
	}
	obj.SetResourceVersion(storage.FormatResourceVersion(uint64(kv.ModRevision)))
	return obj, nil
}

// encode returns the bytes to store for obj, which carry no resourceVersion (etcd's
// revision is the version); obj's resourceVersion is left cleared.
func (s *Store) encode(key string, obj scheme.Object) ([]byte, error) {
	obj.SetResourceVersion("")
	data, err := s.codec.Encode(obj)
	if err != nil {
		return nil, storage.NewErrorf(storage.ErrInvalidObject, key, "encode: %v", err)
	}
	return data, nil
}

// Create stores obj at key, which must not exist: a transaction on the key's create
// revision, so two replicas creating one name race safely. See storage.Interface.
func (s *Store) Create(ctx context.Context, key string, obj scheme.Object) (scheme.Object, error) {
	if obj.GetResourceVersion() != "" {
		return nil, storage.NewErrorf(storage.ErrInvalidObject, key, "resourceVersion should not be set on objects to be created")
	}
	data, err := s.encode(key, obj)
	if err != nil {
		return nil, err
	}
	ctx, cancel := s.opContext(ctx)
	defer cancel()
	ek := s.etcdKey(key)
	resp, err := s.client.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(ek), "=", 0)).
		Then(clientv3.OpPut(ek, string(data))).
		Commit()
	if err != nil {
		return nil, s.failWrite(ctx, err, key)
	}
	if !resp.Succeeded {
		return nil, storage.NewError(storage.ErrAlreadyExists, key)
	}
	obj.SetResourceVersion(storage.FormatResourceVersion(uint64(resp.Header.Revision)))
	return obj, nil
}

// Get returns the object at key; see storage.Interface. Every read is a quorum read
// (linearizable), so "Any" and "Not older than" are served the latest state too.
func (s *Store) Get(ctx context.Context, key string, opts storage.GetOptions) (scheme.Object, error) {
	spec, err := storage.ResolveGet(opts)
	if err != nil {
		return nil, storage.WithKey(err, key)
	}
	resp, err := s.get(ctx, key)
	if err != nil {
		return nil, err
	}
	// A read is at the cluster's latest revision, so a version not older than N costs a
	// wait (and a second read) only when N is ahead of it.
	if spec.Mode == storage.ReadNotOlderThan && uint64(resp.Header.Revision) < spec.ResourceVersion {
		if err := s.waitFor(ctx, key, spec.ResourceVersion); err != nil {
			return nil, err
		}
		if resp, err = s.get(ctx, key); err != nil {
			return nil, err
		}
	}
	if len(resp.Kvs) == 0 {
		return nil, storage.NewError(storage.ErrNotFound, key)
	}
	return s.decode(key, resp.Kvs[0])
}

// get is a quorum read of key.
func (s *Store) get(ctx context.Context, key string) (*clientv3.GetResponse, error) {
	var resp *clientv3.GetResponse
	err := s.call(ctx, key, func(ctx context.Context) (err error) {
		resp, err = s.client.Get(ctx, s.etcdKey(key))
		return err
	})
	return resp, err
}

// current is the state of one key as read: its object, its stored bytes and its mod
// revision (0 when the key does not exist).
type current struct {
	obj  scheme.Object
	data []byte
	rev  int64
}

// readCurrent turns the result of a get of key into its current state.
func (s *Store) readCurrent(key string, kvs []*mvccpb.KeyValue) (current, error) {
	if len(kvs) == 0 {
		return current{}, nil
	}
	obj, err := s.decode(key, kvs[0])
	if err != nil {
		return current{}, err
	}
	return current{obj: obj, data: kvs[0].Value, rev: kvs[0].ModRevision}, nil
}

// readKey reads the current state of key.
func (s *Store) readKey(ctx context.Context, key string) (current, error) {
	resp, err := s.get(ctx, key)
	if err != nil {
		return current{}, err
	}
	return s.readCurrent(key, resp.Kvs)
}

// writeIfAt runs op on key in a transaction that holds only while the key is at
// revision rev (0: absent); otherwise the response holds the key's current state.
func (s *Store) writeIfAt(ctx context.Context, key string, rev int64, op clientv3.Op) (*clientv3.TxnResponse, error) {
	ek := s.etcdKey(key)
	octx, cancel := s.opContext(ctx)
	defer cancel()
	txn, err := s.client.Txn(octx).
		If(clientv3.Compare(clientv3.ModRevision(ek), "=", rev)).
		Then(op).
		Else(clientv3.OpGet(ek)).
		Commit()
	if err != nil {
		return nil, s.failWrite(octx, err, key)
	}
	return txn, nil
}

// startState is the state GuaranteedUpdate and Delete start from: the caller's cached
// object when it has one with a resourceVersion (fresh is false: it may be stale, and
// its data is encoded only when needed), else the key read from etcd (fresh).
func (s *Store) startState(ctx context.Context, key string, cached scheme.Object) (cur current, fresh bool, err error) {
	if cached != nil {
		if rv, err := storage.ParseResourceVersion(cached.GetResourceVersion()); err == nil && rv > 0 && rv <= math.MaxInt64 {
			return current{obj: cached, rev: int64(rv)}, false, nil
		}
	}
	cur, err = s.readKey(ctx, key)
	return cur, true, err
}

// GuaranteedUpdate runs tryUpdate on the object and writes the result in a transaction
// that holds only if the key is still at the revision the object had; when another
// writer (on any replica) got there first, the transaction's other branch returns the
// new state and the loop runs again on it. It starts from opts.CachedExisting when the
// watch cache passed one, saving a read: every decision taken on that possibly stale
// state (a failed precondition, an error of tryUpdate, a write that changes nothing) is
// taken again on the state read from etcd, as kube-apiserver's store does. See
// storage.Interface.
func (s *Store) GuaranteedUpdate(ctx context.Context, key string, opts storage.UpdateOptions, tryUpdate storage.UpdateFunc) (scheme.Object, error) {
	cur, fresh, err := s.startState(ctx, key, opts.CachedExisting)
	if err != nil {
		return nil, err
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, storage.WithKey(err, key)
		}
		out, data, unchanged, err := s.computeUpdate(key, &cur, fresh, opts, tryUpdate)
		if (err != nil || unchanged) && !fresh {
			// Decided on a cached state: decide again on etcd's.
			if cur, err = s.readKey(ctx, key); err != nil {
				return nil, err
			}
			fresh = true
			continue
		}
		if err != nil {
			return nil, err
		}
		if unchanged {
			return out, nil
		}
		txn, err := s.writeIfAt(ctx, key, cur.rev, clientv3.OpPut(s.etcdKey(key), string(data)))
		if err != nil {
			return nil, err
		}
		if txn.Succeeded {
			out.SetResourceVersion(storage.FormatResourceVersion(uint64(txn.Header.Revision)))
			return out, nil
		}
		if cur, err = s.readCurrent(key, txn.Responses[0].GetResponseRange().Kvs); err != nil {
			return nil, err
		}
		fresh = true
	}
}

// computeUpdate checks opts on cur and runs tryUpdate on it (on a copy when cur is a
// cached state, which is shared and must not be written to), returning the new object and its encoding, or
// unchanged when the new object encodes as cur does (out then carries cur's version).
func (s *Store) computeUpdate(key string, cur *current, fresh bool, opts storage.UpdateOptions, tryUpdate storage.UpdateFunc) (out scheme.Object, data []byte, unchanged bool, err error) {
	if cur.obj == nil && !opts.IgnoreNotFound {
		return nil, nil, false, storage.NewError(storage.ErrNotFound, key)
	}
	curRV := storage.FormatResourceVersion(uint64(cur.rev))
	in := cur.obj
	if cur.obj != nil {
		if err := opts.Preconditions.Check(key, cur.obj); err != nil {
			return nil, nil, false, err
		}
		if !fresh {
			in = scheme.DeepCopy(cur.obj) // the cache's object is shared: read it only
		}
		if cur.data == nil { // a cached state: its bytes, to tell a write that changes nothing
			if cur.data, err = s.encode(key, in); err != nil {
				return nil, nil, false, err
			}
			in.SetResourceVersion(curRV)
		}
	}
	if out, err = tryUpdate(in); err != nil {
		return nil, nil, false, err
	}
	if out == nil {
		return nil, nil, false, storage.NewErrorf(storage.ErrInvalidObject, key, "the update function returned no object")
	}
	if rv := out.GetResourceVersion(); rv != "" && rv != curRV {
		return nil, nil, false, storage.NewErrorf(storage.ErrConflict, key, "the object has been modified; please apply your changes to the latest version and try again")
	}
	if data, err = s.encode(key, out); err != nil {
		return nil, nil, false, err
	}
	if cur.obj != nil && bytes.Equal(data, cur.data) {
		out.SetResourceVersion(curRV)
		return out, data, true, nil
	}
	return out, data, false, nil
}

// Delete removes the object at key in a transaction on the revision that was checked,
// so the preconditions and opts.Validate hold on exactly what is removed. It starts from
// opts.CachedExisting when given; a failed check on it is checked again on the state
// read from etcd. See storage.Interface.
func (s *Store) Delete(ctx context.Context, key string, opts storage.DeleteOptions) (scheme.Object, error) {
	ek := s.etcdKey(key)
	cur, fresh, err := s.startState(ctx, key, opts.CachedExisting)
	if err != nil {
		return nil, err
	}
	for {
		if cur.obj == nil {
			return nil, storage.NewError(storage.ErrNotFound, key)
		}
		err := opts.Preconditions.Check(key, cur.obj)
		if err == nil && opts.Validate != nil {
			err = opts.Validate(ctx, cur.obj)
		}
		if err != nil {
			if fresh {
				return nil, err
			}
			if cur, err = s.readKey(ctx, key); err != nil {
				return nil, err
			}
			fresh = true
			continue
		}
		txn, err := s.writeIfAt(ctx, key, cur.rev, clientv3.OpDelete(ek))
		if err != nil {
			return nil, err
		}
		if txn.Succeeded {
			if !fresh {
				return scheme.DeepCopy(cur.obj), nil // the cache's object is shared
			}
			return cur.obj, nil
		}
		if cur, err = s.readCurrent(key, txn.Responses[0].GetResponseRange().Kvs); err != nil {
			return nil, err
		}
		fresh = true
	}
}

// Count returns how many objects are under prefix, with a count-only range: etcd sends
// no values.
func (s *Store) Count(ctx context.Context, prefix string) (int64, error) {
	prefix = storage.EnsurePrefix(prefix)
	octx, cancel := s.opContext(ctx)
	defer cancel()
	resp, err := s.client.Get(octx, s.etcdKey(prefix), clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		return 0, s.fail(octx, err, prefix)
	}
	return resp.Count, nil
}

// CurrentResourceVersion returns the cluster's current revision, from a quorum read.
func (s *Store) CurrentResourceVersion(ctx context.Context) (uint64, error) {
	rev, err := s.currentRevision(ctx, "")
	return uint64(rev), err
}

// currentRevision reads the cluster's revision with a count-only quorum read of one key.
func (s *Store) currentRevision(ctx context.Context, key string) (int64, error) {
	octx, cancel := s.opContext(ctx)
	defer cancel()
	resp, err := s.client.Get(octx, s.opts.Prefix+healthKey, clientv3.WithCountOnly())
	if err != nil {
		return 0, s.fail(octx, err, key)
	}
	return resp.Header.Revision, nil
}

// waitFor returns once the cluster's revision has reached rv, or fails with
// ErrTooLargeResourceVersion after FutureWait. It polls with a growing pause: a
// revision ahead of every replica's view is rare (a client that read from a newer
// cluster), so the wait is not worth a watch.
func (s *Store) waitFor(ctx context.Context, key string, rv uint64) error {
	deadline := time.NewTimer(s.opts.FutureWait)
	defer deadline.Stop()
	pause := 10 * time.Millisecond
	for {
		cur, err := s.currentRevision(ctx, key)
		if err != nil {
			return err
		}
		if uint64(cur) >= rv {
			return nil
		}
		t := time.NewTimer(pause)
		select {
		case <-t.C:
		case <-deadline.C:
			t.Stop()
			return storage.NewErrorAt(storage.ErrTooLargeResourceVersion, key, rv,
				"Too large resource version: %d, current: %d", rv, cur)
		case <-ctx.Done():
			t.Stop()
			return storage.WithKey(ctx.Err(), key)
		}
		pause = min(2*pause, 200*time.Millisecond)
	}
}

// revisionError turns etcd's refusal of a read at rev into the storage error: a
// compacted revision is ErrGone (410) and a future one ErrTooLargeResourceVersion. Any
// other error gives nil.
func revisionError(err error, key string, rev uint64) error {
	switch {
	case errors.Is(err, rpctypes.ErrCompacted):
		return storage.NewErrorAt(storage.ErrGone, key, rev, "too old resource version: %d", rev)
	case errors.Is(err, rpctypes.ErrFutureRev):
		return storage.NewErrorAt(storage.ErrTooLargeResourceVersion, key, rev, "Too large resource version: %d", rev)
	}
	return nil
}

// unavailableDetail is what a client reads when etcd cannot serve it; it names no
// endpoint.
const unavailableDetail = "storage is unavailable, please try again"

// fail turns an etcd client error of an operation on key, run under ctx (an opContext),
// into a *storage.Error. The caller's context ending is returned as the context's error;
// anything that says the cluster cannot serve (unreachable, no leader, the Store's own
// request timeout) is ErrUnavailable; the etcd error itself, which may name an
// endpoint, only goes to the log.
func (s *Store) fail(ctx context.Context, err error, key string) error {
	var se *storage.Error
	if errors.As(err, &se) {
		return storage.WithKey(err, key)
	}
	if ctx.Err() != nil && context.Cause(ctx) != errRequestTimeout {
		return storage.WithKey(ctx.Err(), key)
	}
	if context.Cause(ctx) == errRequestTimeout || unavailable(err) {
		// Debug, not Warn: during an outage every request fails so, and /readyz/etcd
		// (Check) is where an operator sees it.
		s.log.Debug("etcd: unavailable", "key", key, "err", err)
		return storage.NewErrorf(storage.ErrUnavailable, key, unavailableDetail)
	}
	s.log.Error("etcd: request failed", "key", key, "err", err)
	return storage.WithKey(fmt.Errorf("etcd: %w", err), key)
}

// failWrite is fail for a transaction that writes (under ctx, an opContext), where
// what matters is whether it may have been applied. Only an error that says etcd did
// not take the request (no leader, too many requests, no connection to send it on) is
// ErrUnavailable, the 503 that tells a client to try again. Any other failure leaves
// the outcome unknown, as it does for kube-apiserver: the request may have reached
// etcd, which applies it once it runs again. That is ErrTimeout, with etcd's own text
// when etcd said so (kube answers its 500 with that text), without when the request
// ran out of time or lost its connection (kube's 504). The caller's context ending is
// returned as the context's error, as by fail.
func (s *Store) failWrite(ctx context.Context, err error, key string) error {
	var se *storage.Error
	switch {
	case errors.As(err, &se):
		return storage.WithKey(err, key)
	case ctx.Err() != nil && context.Cause(ctx) != errRequestTimeout:
		return storage.WithKey(ctx.Err(), key)
	case notApplied(err):
		s.log.Debug("etcd: unavailable", "key", key, "err", err)
		return storage.NewErrorf(storage.ErrUnavailable, key, unavailableDetail)
	}
	for _, text := range unknownOutcomeErrors {
		if errors.Is(err, text) {
			s.log.Debug("etcd: write of unknown outcome", "key", key, "err", err)
			return storage.NewErrorf(storage.ErrTimeout, key, "%s", text.Error())
		}
	}
	if context.Cause(ctx) == errRequestTimeout || unavailable(err) {
		s.log.Debug("etcd: write of unknown outcome", "key", key, "err", err)
		return storage.NewError(storage.ErrTimeout, key)
	}
	s.log.Error("etcd: request failed", "key", key, "err", err)
	return storage.WithKey(fmt.Errorf("etcd: %w", err), key)
}

// unknownOutcomeErrors are etcd's answers to a proposal it could not see through: it may
// be applied all the same. Their texts name no endpoint; kube-apiserver shows them.
var unknownOutcomeErrors = []error{
	rpctypes.ErrTimeout, rpctypes.ErrTimeoutDueToLeaderFail, rpctypes.ErrTimeoutDueToConnectionLost,
	rpctypes.ErrTimeoutWaitAppliedIndex, rpctypes.ErrLeaderChanged, rpctypes.ErrStopped,
}

// notApplied tells whether err says etcd did not take a request: the member had no
// leader (the client requires one, and the member checks before anything else), was
// too far behind to take more, or the client had no connection to send it on (etcd's
// client retries a write only then, for the same reason).
func notApplied(err error) bool {
	if errors.Is(err, rpctypes.ErrNoLeader) || errors.Is(err, rpctypes.ErrTooManyRequests) {
		return true
	}
	if st, ok := status.FromError(err); ok && st.Code() == codes.Unavailable {
		switch st.Message() {
		case "there is no address available", "there is no connection available":
			return true
		}
	}
	return false
}

// unavailable tells whether err says the cluster cannot serve now: no connection, no
// leader, a leader change or a timeout inside etcd. Such a read may be retried; for a
// write, see failWrite.
func unavailable(err error) bool {
	switch {
	case errors.Is(err, rpctypes.ErrNoLeader), errors.Is(err, rpctypes.ErrLeaderChanged),
		errors.Is(err, rpctypes.ErrTimeout), errors.Is(err, rpctypes.ErrTimeoutDueToLeaderFail),
		errors.Is(err, rpctypes.ErrTimeoutDueToConnectionLost), errors.Is(err, rpctypes.ErrTimeoutWaitAppliedIndex),
		errors.Is(err, rpctypes.ErrTooManyRequests), errors.Is(err, rpctypes.ErrStopped),
		errors.Is(err, context.DeadlineExceeded):
		return true
	}
	switch status.Code(err) {
	case codes.Unavailable, codes.DeadlineExceeded:
		return true
	}
	return false
}
