package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	ctrlclient "sigs.k8s.io/controller-runtime/pkg/client"
)

// runningPod creates a pod labelled app=<app> and makes it Running and Ready through
// pods/status, as a kubelet would.
func runningPod(t *testing.T, ctx context.Context, cs kubernetes.Interface, name, app string) *corev1.Pod {
	t.Helper()
	pod, err := cs.CoreV1().Pods("default").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": app}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:1.27"}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod.Status.Phase = corev1.PodRunning
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	if pod, err = cs.CoreV1().Pods("default").UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if pod.Status.Phase != corev1.PodRunning {
		t.Fatalf("pods/status: phase %q, want Running", pod.Status.Phase)
	}
	return pod
}

// TestPodSubresources_ClientGo drives pods/binding, pods/eviction (with a PDB blocking
// and then allowing it) and pods/ephemeralcontainers through client-go's typed
// clientset, in JSON and in protobuf, and PDBs through CRUD, watch and status.
func TestPodSubresources_ClientGo(t *testing.T) {
	srv := newBuiltinServer(t)
	for _, ct := range builtinContentTypes {
		t.Run(ct, func(t *testing.T) {
			cs, _ := contentTypeClientset(t, srv, ct)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			suffix := map[bool]string{true: "-pb", false: ""}[strings.Contains(ct, "protobuf")]
			pods := cs.CoreV1().Pods("default")

			t.Run("bind", func(t *testing.T) {
				name := "bind" + suffix
				if _, err := pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx"}}}}, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
				b := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: name}, Target: corev1.ObjectReference{Kind: "Node", Name: "node-1"}}
				if err := pods.Bind(ctx, b, metav1.CreateOptions{}); err != nil {
					t.Fatalf("bind: %v", err)
				}
				got, err := pods.Get(ctx, name, metav1.GetOptions{})
				if err != nil || got.Spec.NodeName != "node-1" {
					t.Fatalf("after bind: nodeName %q, %v", got.Spec.NodeName, err)
				}
				if err := pods.Bind(ctx, b, metav1.CreateOptions{}); !apierrors.IsConflict(err) || !strings.Contains(err.Error(), `is already assigned to node "node-1"`) {
					t.Errorf("second bind: %v, want kube's 409", err)
				}
			})

			t.Run("evict", func(t *testing.T) {
				app := "evict" + suffix
				pod := runningPod(t, ctx, cs, app, app)
				pdbs := cs.PolicyV1().PodDisruptionBudgets("default")
				crudWatch(t, pdbs, &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "crud" + suffix},
					Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: ptrIntOrString(intstr.FromInt32(1))}}, "crud"+suffix,
					func(p *policyv1.PodDisruptionBudget) { p.Spec.MinAvailable = ptrIntOrString(intstr.FromString("50%")) })
				pdb, err := pdbs.Create(ctx, &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: app},
					Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: ptrIntOrString(intstr.FromInt32(1)),
						Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}}}, metav1.CreateOptions{})
				if err != nil {
					t.Fatal(err)
				}
				pdb.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: pdb.Generation, CurrentHealthy: 1, DesiredHealthy: 1, ExpectedPods: 1}
				if pdb, err = pdbs.UpdateStatus(ctx, pdb, metav1.UpdateOptions{}); err != nil {
					t.Fatal(err)
				}
				ev := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: pod.Name}}
				err = pods.EvictV1(ctx, ev)
				if !apierrors.IsTooManyRequests(err) {
					t.Fatalf("evict under a PDB allowing none: %v, want 429", err)
				}
				if st, ok := err.(apierrors.APIStatus); !ok || st.Status().Details == nil || len(st.Status().Details.Causes) != 1 ||
					st.Status().Details.Causes[0].Type != policyv1.DisruptionBudgetCause {
					t.Errorf("429 without kube's DisruptionBudget cause: %#v", err)
				}
				pdb.Status.DisruptionsAllowed, pdb.Status.CurrentHealthy = 1, 2
				if _, err = pdbs.UpdateStatus(ctx, pdb, metav1.UpdateOptions{}); err != nil {
					t.Fatal(err)
				}
				if err := pods.EvictV1(ctx, ev); err != nil {
					t.Fatalf("evict under a PDB allowing one: %v", err)
				}
				if _, err := pods.Get(ctx, pod.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
					t.Errorf("evicted pod: %v, want NotFound", err)
				}
				got, err := pdbs.Get(ctx, app, metav1.GetOptions{})
				if err != nil || got.Status.DisruptionsAllowed != 0 || got.Status.DisruptedPods[pod.Name].Time.IsZero() {
					t.Errorf("PDB after the eviction: %+v, %v; want none allowed and the pod disrupted", got.Status, err)
				}
			})

			t.Run("ephemeralcontainers", func(t *testing.T) {
				pod := runningPod(t, ctx, cs, "debug"+suffix, "debug"+suffix)
				pod.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "dbg", Image: "busybox"}, TargetContainerName: "app"}}
				got, err := pods.UpdateEphemeralContainers(ctx, pod.Name, pod, metav1.UpdateOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if len(got.Spec.EphemeralContainers) != 1 || got.Spec.EphemeralContainers[0].TerminationMessagePolicy != corev1.TerminationMessageReadFile {
					t.Errorf("ephemeral containers %+v, want dbg, defaulted", got.Spec.EphemeralContainers)
				}
				got.Spec.EphemeralContainers = nil
				if _, err := pods.UpdateEphemeralContainers(ctx, pod.Name, got, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) ||
					!strings.Contains(err.Error(), `existing ephemeral containers "dbg" may not be removed`) {
					t.Errorf("removing it: %v, want kube's 422", err)
				}
			})
		})
	}
}

func ptrIntOrString(v intstr.IntOrString) *intstr.IntOrString { return &v }

// expectDiscoveryEntries fails t unless list has each entry of want, by name, as
// "Kind group version verbs" (group and version are those of another group's kind).
func expectDiscoveryEntries(t *testing.T, list *metav1.APIResourceList, want map[string]string) {
	t.Helper()
	for _, r := range list.APIResources {
		if w, ok := want[r.Name]; ok {
			if got := r.Kind + " " + r.Group + " " + r.Version + " " + strings.Join(r.Verbs, ","); got != w {
				t.Errorf("%s: %q, want %q", r.Name, got, w)
			}
			delete(want, r.Name)
		}
	}
	if len(want) > 0 {
		t.Errorf("discovery lacks %v", want)
	}
}

// TestPodSubresources_DiscoveryAsKubectlDrainReadsIt checks what kubectl drain's
// CheckEvictionSupport reads (pods/eviction in /api/v1 with group policy and version
// v1), then evicts as drain does: a PDB that allows nothing keeps answering 429.
func TestPodSubresources_DiscoveryAsKubectlDrainReadsIt(t *testing.T) {
	srv := newBuiltinServer(t)
	cs, _ := contentTypeClientset(t, srv, "application/json") // as kubectl reads discovery
	list, err := cs.Discovery().ServerResourcesForGroupVersion("v1")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"pods/binding":             "Binding   create",
		"pods/eviction":            "Eviction policy v1 create",
		"pods/ephemeralcontainers": "Pod   get,patch,update",
		"bindings":                 "Binding   create",
	}
	expectDiscoveryEntries(t, list, want)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pod := runningPod(t, ctx, cs, "drained", "drained")
	pdb, err := cs.PolicyV1().PodDisruptionBudgets("default").Create(ctx, &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "keep"},
		Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: ptrIntOrString(intstr.FromInt32(0)), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "drained"}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pdb.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: pdb.Generation, CurrentHealthy: 1, DesiredHealthy: 1, ExpectedPods: 1}
	if _, err := cs.PolicyV1().PodDisruptionBudgets("default").UpdateStatus(ctx, pdb, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	grace := int64(30)
	for range 3 { // drain retries a 429; a bounded few tries must all be refused
		err := cs.CoreV1().Pods("default").EvictV1(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: "default"},
			DeleteOptions: &metav1.DeleteOptions{GracePeriodSeconds: &grace}})
		if !apierrors.IsTooManyRequests(err) || !strings.Contains(err.Error(), "Cannot evict pod as it would violate the pod's disruption budget.") {
			t.Fatalf("eviction: %v, want kube's 429", err)
		}
	}
}

// TestPodSubresources_PDBInformerAndControllerRuntime syncs an informer over PDBs and
// writes a PDB and its status through controller-runtime's client over protobuf.
func TestPodSubresources_PDBInformerAndControllerRuntime(t *testing.T) {
	srv := newBuiltinServer(t)
	cs, cfg := contentTypeClientset(t, srv, "application/vnd.kubernetes.protobuf")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := ctrlclient.New(cfg, ctrlclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "cr", Namespace: "default"},
		Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: ptrIntOrString(intstr.FromString("25%")), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "cr"}}}}
	if err := c.Create(ctx, pdb); err != nil {
		t.Fatal(err)
	}
	if pdb.Generation != 1 {
		t.Errorf("generation %d, want 1", pdb.Generation)
	}
	pdb.Status.ExpectedPods, pdb.Status.ObservedGeneration = 4, 1
	if err := c.Status().Update(ctx, pdb); err != nil {
		t.Fatal(err)
	}
	factory := informers.NewSharedInformerFactory(cs, 0)
	inf := factory.Policy().V1().PodDisruptionBudgets().Informer()
	stop := make(chan struct{})
	factory.Start(stop)
	defer func() { close(stop); factory.Shutdown() }() // stop the informers before waiting for them
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			t.Errorf("informer of %v did not sync", typ)
		}
	}
	obj, ok, err := inf.GetStore().GetByKey("default/cr")
	if !ok || err != nil || obj.(*policyv1.PodDisruptionBudget).Status.ExpectedPods != 4 {
		t.Errorf("informer: %v %v %v, want default/cr with expectedPods 4", obj, ok, err)
	}
}
