package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/registry/strategies"
	apikitrest "github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
)

func newBuiltinServer(t testing.TB) *apitest.Server {
	t.Helper()
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return apitest.NewServer(t, s, apitest.Options{REST: apikitrest.Options{Strategies: strategies.Builtin()}, Controllers: true, TLS: true, Token: "builtin-token"})
}

func builtinClientset(t *testing.T, srv *apitest.Server) *kubernetes.Clientset {
	t.Helper()
	cfg := &rest.Config{Host: srv.URL, BearerToken: srv.Token(), TLSClientConfig: rest.TLSClientConfig{CAData: srv.CertificateAuthority}}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// crudWatch creates, gets, updates, lists and deletes one object of a kind through a
// typed client, with a watch open throughout that must see ADDED, MODIFIED, DELETED.
func crudWatch[T any, L any](t *testing.T, c interface {
	Create(context.Context, T, metav1.CreateOptions) (T, error)
	Get(context.Context, string, metav1.GetOptions) (T, error)
	Update(context.Context, T, metav1.UpdateOptions) (T, error)
	List(context.Context, metav1.ListOptions) (L, error)
	Delete(context.Context, string, metav1.DeleteOptions) error
	Watch(context.Context, metav1.ListOptions) (watch.Interface, error)
}, obj T, name string, change func(T)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	w, err := c.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	defer w.Stop()
	if _, err := c.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create: %v", err)
	}
	got, err := c.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	change(got)
	if _, err := c.Update(ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update: %v", err)
	}
	if _, err := c.List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatalf("list: %v", err)
	}
	if err := c.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	for _, want := range []watch.EventType{watch.Added, watch.Modified, watch.Deleted} {
		for {
			select {
			case ev, ok := <-w.ResultChan():
				// The default namespaces are there from the start, and a namespace
				// is Terminating (MODIFIED) before the namespace controller
				// empties it and it goes.
				if m, err := meta.Accessor(ev.Object); ok && err == nil && m.GetName() != name {
					continue
				}
				if ok && want == watch.Deleted && ev.Type == watch.Modified {
					continue
				}
				if !ok || ev.Type != want {
					t.Fatalf("watch event %v (open %v), want %s: %+v", ev.Type, ok, want, ev.Object)
				}
			case <-ctx.Done():
				t.Fatalf("no %s watch event", want)
			}
			break
		}
	}
}

func TestBuiltin_ClientGoTypedClientsetServesEveryKind(t *testing.T) {
	srv := newBuiltinServer(t)
	cs := builtinClientset(t, srv)
	ns := "default"
	now := metav1.NewMicroTime(time.Now())
	holder := "a"
	t.Run("namespaces", func(t *testing.T) {
		crudWatch(t, cs.CoreV1().Namespaces(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}}, "team",
			func(n *corev1.Namespace) { n.Labels = map[string]string{"x": "y"} })
	})
	t.Run("configmaps", func(t *testing.T) {
		crudWatch(t, cs.CoreV1().ConfigMaps(ns), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"},
			Data: map[string]string{"a": "b"}, BinaryData: map[string][]byte{"bin": {0, 1}}}, "cm",
			func(c *corev1.ConfigMap) { c.Data["a"] = "c" })
	})
	t.Run("secrets", func(t *testing.T) {
		crudWatch(t, cs.CoreV1().Secrets(ns), &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"},
			StringData: map[string]string{"p": "q"}}, "s",
			func(s *corev1.Secret) {
				if string(s.Data["p"]) != "q" || s.Type != corev1.SecretTypeOpaque {
					t.Errorf("stored secret = %+v, want data p=q and type Opaque", s)
				}
				s.Data["p"] = []byte("r")
			})
	})
	t.Run("serviceaccounts", func(t *testing.T) {
		crudWatch(t, cs.CoreV1().ServiceAccounts(ns), &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "sa"},
			ImagePullSecrets: []corev1.LocalObjectReference{{Name: "pull"}}}, "sa",
			func(s *corev1.ServiceAccount) { s.Secrets = []corev1.ObjectReference{{Name: "tok"}} })
	})
	t.Run("core events", func(t *testing.T) {
		crudWatch(t, cs.CoreV1().Events(ns), &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "ev"},
			InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "p", Namespace: ns}, Reason: "Started", EventTime: now,
			ReportingController: "ctl", ReportingInstance: "i"}, "ev",
			func(e *corev1.Event) {
				if !e.EventTime.Time.Equal(now.Truncate(time.Microsecond)) {
					t.Errorf("eventTime = %v, want %v", e.EventTime, now)
				}
				e.Count = 2
			})
	})
	t.Run("events.k8s.io events", func(t *testing.T) {
		crudWatch(t, cs.EventsV1().Events(ns), &eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Name: "ev1"}, EventTime: now,
			ReportingController: "ctl", ReportingInstance: "i", Action: "Do", Reason: "Did", Type: "Normal",
			Regarding: corev1.ObjectReference{Kind: "Pod", Name: "p"}}, "ev1",
			func(e *eventsv1.Event) { e.Note = "n" })
	})
	t.Run("leases", func(t *testing.T) {
		crudWatch(t, cs.CoordinationV1().Leases(ns), &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "l"},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, RenewTime: &now}}, "l",
			func(l *coordinationv1.Lease) {
				if l.Spec.RenewTime == nil || !l.Spec.RenewTime.Time.Equal(now.Truncate(time.Microsecond)) {
					t.Errorf("renewTime = %v, want %v", l.Spec.RenewTime, now)
				}
				l.Spec.HolderIdentity = nil
			})
	})
	t.Run("immutable configmap refuses data changes", func(t *testing.T) {
		ctx := context.Background()
		yes := true
		cm, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "frozen"},
			Immutable: &yes, Data: map[string]string{"a": "b"}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cm.Data["a"] = "c"
		_, err = cs.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{})
		if err == nil || !strings.Contains(err.Error(), "data: Forbidden: field is immutable when `immutable` is set") {
			t.Errorf("update of an immutable configmap: %v", err)
		}
	})
	t.Run("selfsubjectreview", func(t *testing.T) {
		review, err := cs.AuthenticationV1().SelfSubjectReviews().Create(context.Background(), &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if review.Status.UserInfo.Username != "resttest" {
			t.Errorf("userInfo = %+v, want resttest", review.Status.UserInfo)
		}
	})
}

func TestBuiltin_Kubectl(t *testing.T) {
	srv := newBuiltinServer(t)
	es := &exampleServer{KubeconfigPath: srv.KubeconfigPath}
	es.mustKubectl(t, "create", "configmap", "x", "--from-literal=a=b")
	es.mustKubectl(t, "create", "secret", "generic", "s", "--from-literal=p=q")
	out := es.mustKubectl(t, "get", "secret", "s", "-o", "json")
	var secret struct {
		Data map[string]string `json:"data"`
		Type string            `json:"type"`
	}
	if err := json.Unmarshal([]byte(out.Stdout), &secret); err != nil {
		t.Fatalf("%v: %s", err, out.Stdout)
	}
	if secret.Data["p"] != "cQ==" || secret.Type != "Opaque" {
		t.Errorf("secret data = %v type %q, want p=cQ== (base64 of q), Opaque", secret.Data, secret.Type)
	}
	out = es.mustKubectl(t, "get", "cm,secrets,sa")
	for _, want := range []string{"configmap/x", "secret/s", "Opaque"} {
		if !strings.Contains(out.Stdout, want) {
			t.Errorf("kubectl get cm,secrets,sa: no %q in\n%s", want, out.Stdout)
		}
	}
	es.mustKubectl(t, "create", "ns", "team")
	es.mustKubectl(t, "create", "configmap", "inside", "-n", "team", "--from-literal=a=b")
	out = es.mustKubectl(t, "get", "ns", "team", "-o", "jsonpath={.status.phase}")
	if out.Stdout != "Active" {
		t.Errorf("kubectl get ns team: phase %q, want Active", out.Stdout)
	}
	// kubectl delete waits until the namespace is gone: the namespace controller must
	// empty it and remove its finalizer.
	es.mustKubectl(t, "delete", "ns", "team", "--timeout=20s")
	if res := es.kubectl(t, "", "get", "ns", "team"); res.ExitCode == 0 || !strings.Contains(res.Stderr, "NotFound") {
		t.Errorf("kubectl get ns team after delete: exit %d, stderr %s; want NotFound", res.ExitCode, res.Stderr)
	}
	cs := builtinClientset(t, srv)
	ev := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "x.1", Namespace: "default"}, Reason: "Tested",
		Message: "an event", Type: "Normal", InvolvedObject: corev1.ObjectReference{Kind: "ConfigMap", Namespace: "default", Name: "x"}}
	if _, err := cs.CoreV1().Events("default").Create(context.Background(), ev, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	out = es.mustKubectl(t, "get", "events")
	// kube's table says LAST SEEN and configmap/x; apikit's columns are path
	// expressions (NAME, TYPE, REASON, OBJECT as the involved object's name, MESSAGE).
	if !strings.Contains(out.Stdout, "Tested") || !strings.Contains(out.Stdout, "an event") {
		t.Errorf("kubectl get events:\n%s", out.Stdout)
	}
	out = es.mustKubectl(t, "auth", "whoami")
	if !strings.Contains(out.Stdout, "resttest") || !strings.Contains(out.Stdout, "system:masters") {
		t.Errorf("kubectl auth whoami:\n%s", out.Stdout)
	}
	if res := es.kubectl(t, "", "get", "--raw", "/apis/authentication.k8s.io/v1/selfsubjectreviews"); res.ExitCode == 0 ||
		!strings.Contains(res.Stderr, "MethodNotAllowed") {
		t.Errorf("GET selfsubjectreviews: exit %d, stderr %s; want 405 MethodNotAllowed", res.ExitCode, res.Stderr)
	}
}

// kube-apiserver stores both Event kinds as one resource: what client-go's events
// recorder writes through events.k8s.io/v1 is what kubectl get events lists.
func TestBuiltin_EventsK8sIOEventShowsInCoreEvents(t *testing.T) {
	srv := newBuiltinServer(t)
	cs := builtinClientset(t, srv)
	ctx := context.Background()
	ev := &eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Name: "web.1", Namespace: "default"}, EventTime: metav1.NewMicroTime(time.Now()),
		ReportingController: "ctl", ReportingInstance: "ctl-1", Action: "Reconcile", Reason: "Synced", Type: "Normal",
		Note: "synced the web app", Regarding: corev1.ObjectReference{Kind: "ConfigMap", Namespace: "default", Name: "web"}}
	if _, err := cs.EventsV1().Events("default").Create(ctx, ev, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	list, err := cs.CoreV1().Events("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 {
		t.Fatalf("core events: %d items, want 1", len(list.Items))
	}
	got := list.Items[0]
	if got.Name != "web.1" || got.Message != ev.Note || got.InvolvedObject != ev.Regarding ||
		got.ReportingController != ev.ReportingController || got.ReportingInstance != ev.ReportingInstance ||
		got.Reason != ev.Reason || got.Action != ev.Action || got.Type != ev.Type {
		t.Errorf("core event = %+v, want the fields of %+v", got, ev)
	}
	es := &exampleServer{KubeconfigPath: srv.KubeconfigPath}
	out := es.mustKubectl(t, "get", "events")
	if !strings.Contains(out.Stdout, "Synced") || !strings.Contains(out.Stdout, "synced the web app") {
		t.Errorf("kubectl get events:\n%s", out.Stdout)
	}
}
