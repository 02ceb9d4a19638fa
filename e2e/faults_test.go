package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/examples/widgets/api"
	"github.com/apikit-dev/apikit/scheme"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

// faultServer is an apitest server of the example widgets with a dynamic client whose
// requests are recorded.
type faultServer struct {
	srv      *apitest.Server
	widgets  dynamic.ResourceInterface
	dc       dynamic.Interface
	requests *requestLog
}

func startFaultServer(t *testing.T) *faultServer {
	t.Helper()
	srv := apitest.NewServer(t, api.NewScheme(), apitest.Options{})
	cfg, err := clientcmd.RESTConfigFromKubeConfig(srv.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst = -1, -1
	log := &requestLog{}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &recordingRoundTripper{next: rt, log: log} })
	dc := dynamic.NewForConfigOrDie(cfg)
	return &faultServer{srv: srv, dc: dc, widgets: dc.Resource(gvrWidgets).Namespace("inf"), requests: log}
}

// lists counts the informer's list requests (the GETs of the collection that are not
// watches).
func (fs *faultServer) lists() int {
	n := 0
	for _, u := range fs.requests.matching("GET /apis/toys.example.com/v1/namespaces/inf/widgets?") {
		if !strings.Contains(u, "watch=true") {
			n++
		}
	}
	return n
}

// waitUntil polls cond until it holds or ctx ends; what names the condition in the failure.
func waitUntil(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("gave up waiting until %s", what)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// startInformer runs a classic list-then-watch informer of the widgets in "inf" until
// the test ends, and waits until it has synced and its watch is open.
func (fs *faultServer) startInformer(t *testing.T, ctx context.Context) cache.SharedIndexInformer {
	t.Helper()
	informer := startWidgetInformer(t, ctx, fs.dc, "inf")
	waitUntil(t, ctx, "the informer watches", func() bool { return fs.srv.Faults().OpenWatches() == 1 })
	return informer
}

// createAndSee creates widget name and waits until the informer has it.
func (fs *faultServer) createAndSee(t *testing.T, ctx context.Context, informer cache.SharedIndexInformer, name string) {
	t.Helper()
	if _, err := fs.widgets.Create(ctx, newWidget("inf", name, "red", 1, nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, ctx, "the informer has "+name, func() bool {
		_, ok, _ := informer.GetStore().GetByKey("inf/" + name)
		return ok
	})
}

func TestFaults_InformerRecovers(t *testing.T) {
	clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, false)
	tests := []struct {
		name string
		// fault is injected while the informer watches.
		fault     func(t *testing.T, srv *apitest.Server)
		wantLists int
	}{
		{name: "after CloseWatches it watches again without a list", wantLists: 1, fault: func(t *testing.T, srv *apitest.Server) {
			if n := srv.Faults().CloseWatches(); n != 1 {
				t.Fatalf("CloseWatches = %d, want the informer's 1", n)
			}
		}},
		{name: "after ExpireResourceVersions its next watch is 410 and it lists again", wantLists: 2, fault: func(t *testing.T, srv *apitest.Server) {
			if err := srv.Faults().ExpireResourceVersions(context.Background()); err != nil {
				t.Fatal(err)
			}
			srv.Faults().CloseWatches()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := ctxFor(t)
			fs := startFaultServer(t)
			// A store that was never written lists at version 0, from which client-go
			// watches with no resourceVersion at all.
			if _, err := fs.widgets.Create(ctx, newWidget("inf", "existing", "red", 1, nil), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			informer := fs.startInformer(t, ctx)
			fs.createAndSee(t, ctx, informer, "before")
			tt.fault(t, fs.srv)
			waitUntil(t, ctx, "the informer watches again", func() bool { return fs.srv.Faults().OpenWatches() == 1 })
			fs.createAndSee(t, ctx, informer, "after")
			if got := fs.lists(); got != tt.wantLists {
				t.Errorf("the informer listed %d times, want %d; requests: %q", got, tt.wantLists, fs.requests.matching("/widgets"))
			}
		})
	}
}

func TestFaults_FailNextIsTheClientGoErrorOfItsStatus(t *testing.T) {
	tests := []struct {
		name   string
		status *scheme.Status
		is     func(error) bool
	}{
		{name: "503 ServiceUnavailable", status: &scheme.Status{Code: 503, Reason: scheme.StatusReasonServiceUnavailable}, is: apierrors.IsServiceUnavailable},
		{name: "409 Conflict", status: &scheme.Status{Code: 409, Reason: scheme.StatusReasonConflict}, is: apierrors.IsConflict},
		{name: "410 Expired", status: &scheme.Status{Code: 410, Reason: scheme.StatusReasonExpired}, is: apierrors.IsResourceExpired},
		{name: "500 InternalError", status: &scheme.Status{Code: 500, Reason: scheme.StatusReasonInternalError}, is: apierrors.IsInternalError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := ctxFor(t)
			fs := startFaultServer(t)
			fs.srv.Faults().FailNext(1, apitest.Match{Verb: "create", Resource: "widgets"}, tt.status)
			_, err := fs.widgets.Create(ctx, newWidget("inf", "w", "red", 1, nil), metav1.CreateOptions{})
			if !tt.is(err) {
				t.Fatalf("create with a failure pending = %v, want the %s error", err, tt.name)
			}
			if _, err := fs.widgets.Create(ctx, newWidget("inf", "w", "red", 1, nil), metav1.CreateOptions{}); err != nil {
				t.Errorf("the next create = %v, want success", err)
			}
		})
	}
}

func TestFaults_DelayOutlastsTheClientsDeadline(t *testing.T) {
	fs := startFaultServer(t)
	fs.srv.Faults().Delay(apitest.Match{Verb: "list", Resource: "widgets"}, time.Hour)
	ctx, cancel := context.WithTimeout(ctxFor(t), 100*time.Millisecond)
	defer cancel()
	if _, err := fs.widgets.List(ctx, metav1.ListOptions{}); err == nil || ctx.Err() == nil {
		t.Errorf("a delayed list = %v with its context at %v, want it not to complete before its deadline", err, ctx.Err())
	}
}

func TestClock_FrozenCreationTimestampReachesClientGo(t *testing.T) {
	ctx := ctxFor(t)
	fs := startFaultServer(t)
	t0 := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	fs.srv.Clock().Set(t0)
	for i, name := range []string{"first", "second"} {
		got, err := fs.widgets.Create(ctx, newWidget("inf", name, "red", 1, nil), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := t0.Add(time.Duration(i) * time.Minute)
		if ts := got.GetCreationTimestamp(); !ts.Time.Equal(want) {
			t.Errorf("%s: creationTimestamp = %v, want %v", name, ts.Time, want)
		}
		fs.srv.Clock().Advance(time.Minute)
	}
}
