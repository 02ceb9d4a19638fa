package etcd

import (
	"context"
	"encoding/base64"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/storagetest"
)

func TestOptions_DefaultsAndRequiredFields(t *testing.T) {
	codec := NewCodec(testScheme(t))
	for _, tc := range []struct {
		name    string
		in      Options
		wantErr bool
		check   func(t *testing.T, o Options)
	}{
		{"endpoints are required", Options{Codec: codec}, true, nil},
		{"a codec is required", Options{Endpoints: []string{"http://127.0.0.1:2379"}}, true, nil},
		{"a negative compaction interval is refused", Options{Endpoints: []string{"x"}, Codec: codec, CompactionInterval: -time.Second}, true, nil},
		{"zero fields take kube's defaults", Options{Endpoints: []string{"x"}, Codec: codec}, false, func(t *testing.T, o Options) {
			if o.Prefix != "/registry" || o.DialTimeout != 5*time.Second || o.FutureWait != 3*time.Second ||
				o.RequestTimeout != DefaultRequestTimeout || o.BookmarkInterval != time.Minute || o.CompactionInterval != 0 || o.Logger == nil {
				t.Errorf("defaults = %+v", o)
			}
		}},
		{"a trailing slash of the prefix is dropped", Options{Endpoints: []string{"x"}, Codec: codec, Prefix: "/apikit/"}, false, func(t *testing.T, o Options) {
			if o.Prefix != "/apikit" {
				t.Errorf("prefix = %q, want /apikit", o.Prefix)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.in.withDefaults()
			if (err != nil) != tc.wantErr {
				t.Fatalf("error = %v, want error %v", err, tc.wantErr)
			}
			if tc.check != nil {
				tc.check(t, got)
			}
		})
	}
}

func TestStore_KeysLiveUnderThePrefix(t *testing.T) {
	s := &Store{opts: Options{Prefix: "/registry"}}
	key := storage.Key(storagetest.Widgets, "ns1", "a")
	ek := s.etcdKey(key)
	if ek != "/registry/storagetest.apikit.dev/widgets/ns1/a" {
		t.Errorf("etcd key = %q", ek)
	}
	if back := s.storageKey([]byte(ek)); back != key {
		t.Errorf("storage key of %q = %q, want %q", ek, back, key)
	}
}

func TestRevisionError_CompactedIsGoneAndFutureIsTooLarge(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want error
	}{
		{"compacted", rpctypes.ErrCompacted, storage.ErrGone},
		{"future", rpctypes.ErrFutureRev, storage.ErrTooLargeResourceVersion},
		{"other", rpctypes.ErrNoLeader, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := revisionError(tc.err, "/k/", 7)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("error = %v, want nil", err)
				}
				return
			}
			se, ok := err.(*storage.Error)
			if !ok || se.Err != tc.want || se.Key != "/k/" || se.ResourceVersion != 7 {
				t.Errorf("error = %#v, want %v about /k/ at 7", err, tc.want)
			}
		})
	}
}

func TestFail_MapsEtcdErrorsWithoutLeakingThem(t *testing.T) {
	s := &Store{opts: Options{RequestTimeout: time.Hour}, log: discardLogger()}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	timedOut, cancel2 := context.WithTimeoutCause(context.Background(), 0, errRequestTimeout)
	defer cancel2()
	endpointErr := status.Error(codes.Unavailable, "connection refused to 10.1.2.3:2379")
	for _, tc := range []struct {
		name string
		ctx  context.Context
		err  error
		want error
	}{
		{"unreachable", context.Background(), endpointErr, storage.ErrUnavailable},
		{"no leader", context.Background(), rpctypes.ErrNoLeader, storage.ErrUnavailable},
		{"the store's own timeout", timedOut, context.DeadlineExceeded, storage.ErrUnavailable},
		{"the caller's cancellation", cancelled, status.Error(codes.Canceled, "context canceled"), context.Canceled},
		{"a storage error passes", context.Background(), storage.NewError(storage.ErrGone, ""), storage.ErrGone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := s.fail(tc.ctx, tc.err, "/core/pods/ns/a")
			se, ok := err.(*storage.Error)
			if !ok || !errors.Is(err, tc.want) || se.Key != "/core/pods/ns/a" {
				t.Fatalf("error = %#v, want a *storage.Error of %v about the key", err, tc.want)
			}
			if tc.want == storage.ErrUnavailable && se.Detail != unavailableDetail {
				t.Errorf("detail = %q: a client must not read etcd's error", se.Detail)
			}
		})
	}
}

// A failed write is ErrUnavailable, the 503 that tells a client to try again, only when
// etcd did not take it; any other failure leaves its outcome unknown (etcd may apply
// it later): ErrTimeout, with etcd's own text when etcd gave one, and never an endpoint.
func TestFailWrite_SaysTryAgainOnlyForWritesEtcdDidNotTake(t *testing.T) {
	s := &Store{opts: Options{RequestTimeout: time.Hour}, log: discardLogger()}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	deadline, cancel1 := context.WithTimeout(context.Background(), 0)
	defer cancel1()
	timedOut, cancel2 := context.WithTimeoutCause(context.Background(), 0, errRequestTimeout)
	defer cancel2()
	for _, tc := range []struct {
		name   string
		ctx    context.Context
		err    error
		want   error
		detail string
	}{
		{"no leader", context.Background(), rpctypes.ErrNoLeader, storage.ErrUnavailable, unavailableDetail},
		{"too many requests", context.Background(), rpctypes.ErrTooManyRequests, storage.ErrUnavailable, unavailableDetail},
		{"no connection to send on", context.Background(), status.Error(codes.Unavailable, "there is no connection available"), storage.ErrUnavailable, unavailableDetail},
		{"etcd timed out", context.Background(), rpctypes.ErrTimeout, storage.ErrTimeout, "etcdserver: request timed out"},
		{"etcd timed out after a leader failure", context.Background(), rpctypes.ErrTimeoutDueToLeaderFail, storage.ErrTimeout, "etcdserver: request timed out, possibly due to previous leader failure"},
		{"etcd timed out after a lost connection", context.Background(), rpctypes.ErrTimeoutDueToConnectionLost, storage.ErrTimeout, "etcdserver: request timed out, possibly due to connection lost"},
		{"the leader changed", context.Background(), rpctypes.ErrLeaderChanged, storage.ErrTimeout, "etcdserver: leader changed"},
		{"etcd stopped", context.Background(), rpctypes.ErrStopped, storage.ErrTimeout, "etcdserver: server stopped"},
		{"the connection broke after the send", context.Background(), status.Error(codes.Unavailable, "error reading from server: read tcp 10.1.2.3:2379: EOF"), storage.ErrTimeout, ""},
		{"the keepalive gave up", context.Background(), status.Error(codes.Unavailable, "keepalive ping failed to receive ACK within timeout"), storage.ErrTimeout, ""},
		{"the store's own timeout", timedOut, context.DeadlineExceeded, storage.ErrTimeout, ""},
		{"the caller's deadline", deadline, context.DeadlineExceeded, context.DeadlineExceeded, ""},
		{"the caller's cancellation", cancelled, status.Error(codes.Canceled, "context canceled"), context.Canceled, ""},
		{"a storage error passes", context.Background(), storage.NewError(storage.ErrConflict, ""), storage.ErrConflict, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := s.failWrite(tc.ctx, tc.err, "/core/pods/ns/a")
			se, ok := err.(*storage.Error)
			if !ok || !errors.Is(err, tc.want) || se.Key != "/core/pods/ns/a" {
				t.Fatalf("error = %#v, want a *storage.Error of %v about the key", err, tc.want)
			}
			if se.Detail != tc.detail {
				t.Errorf("detail = %q, want %q", se.Detail, tc.detail)
			}
		})
	}
}

func TestContinueToken_NamesTheRevisionAndTheKeyBelowThePrefix(t *testing.T) {
	s := &Store{opts: Options{Prefix: "/registry"}}
	const prefix = "/core/pods/ns1/"
	key := s.storageKey([]byte("/registry/core/pods/ns1/b"))
	tok, err := storage.EncodeContinue(42, prefix, key)
	if err != nil {
		t.Fatal(err)
	}
	if raw, _ := base64.RawURLEncoding.DecodeString(tok); strings.Contains(string(raw), prefix) {
		t.Errorf("token %s carries the storage key", raw)
	}
	spec, err := storage.ResolveList(prefix, storage.ListOptions{Continue: tok, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if spec.Mode != storage.ReadExact || spec.ResourceVersion != 42 || spec.From != prefix+"b\x00" {
		t.Errorf("token resolves to %+v", spec)
	}
	if got := s.etcdKey(spec.From); got != "/registry/core/pods/ns1/b\x00" {
		t.Errorf("next range starts at %q", got)
	}
	// A forged token of the old shape naming a namespace that sorts before ns1 would
	// start the range there, and the range (which ends at ns1's end) would hold that
	// namespace's pods: it is refused.
	old := base64.RawURLEncoding.EncodeToString([]byte(`{"v":"apikit.storage/v1","rv":42,"start":"/core/pods/ns0/a"}`))
	if _, err := storage.ResolveList(prefix, storage.ListOptions{Continue: old, Limit: 1}); !errors.Is(err, storage.ErrInvalidContinue) {
		t.Errorf("a token naming another namespace: error = %v, want ErrInvalidContinue", err)
	}
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
