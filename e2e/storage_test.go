package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/utils/ptr"
	ctrlclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/registry/admission"
	"github.com/apikit-dev/apikit/registry/strategies"
	apikitrest "github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
)

// newStorageServer serves the built-in kinds with kube's strategies and kube-apiserver's
// default admission plugins (admission.Builtin()), as envtest's drop-in does.
func newStorageServer(t testing.TB) *apitest.Server {
	t.Helper()
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	p := admission.Builtin()
	return apitest.NewServer(t, s, apitest.Options{REST: apikitrest.Options{Strategies: strategies.Builtin(),
		MutatingAdmission: p.Mutating, ValidatingAdmission: p.Validating}, Controllers: true, TLS: true, Token: "storage-token"})
}

func gi(n string) resource.Quantity { return resource.MustParse(n) }

// storageEvent waits (bounded) for the watch's next event of type want.
func storageEvent(t *testing.T, w watch.Interface, want watch.EventType) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("the watch closed before a %s event", want)
			}
			if ev.Type == want {
				return
			}
		case <-timeout:
			t.Fatalf("no %s event", want)
		}
	}
}

// TestStorage_ClientGoTypedClientsetServesClaimsVolumesAndNodes drives the three kinds
// through client-go's typed clientset in JSON and protobuf as kube's controllers and a
// kubelet do: created with kube's defaults, finalizers and taint; status written
// through /status; a claim's deletion waits for its pvc-protection finalizer; nodes
// selected by spec.unschedulable.
func TestStorage_ClientGoTypedClientsetServesClaimsVolumesAndNodes(t *testing.T) {
	srv := newStorageServer(t)
	for _, ct := range builtinContentTypes {
		t.Run(ct, func(t *testing.T) {
			cs, _ := contentTypeClientset(t, srv, ct)
			core := cs.CoreV1()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			suffix := map[bool]string{true: "-pb", false: ""}[strings.Contains(ct, "protobuf")]

			w, err := core.PersistentVolumeClaims("default").Watch(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			pvc, err := core.PersistentVolumeClaims("default").Create(ctx, &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data" + suffix},
				Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: gi("1Gi")}}}}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			storageEvent(t, w, watch.Added)
			if pvc.Status.Phase != corev1.ClaimPending || pvc.Spec.VolumeMode == nil || *pvc.Spec.VolumeMode != corev1.PersistentVolumeFilesystem ||
				strings.Join(pvc.Finalizers, ",") != "kubernetes.io/pvc-protection" {
				t.Errorf("created claim: phase %q, volumeMode %v, finalizers %v; want Pending, Filesystem, pvc-protection", pvc.Status.Phase, pvc.Spec.VolumeMode, pvc.Finalizers)
			}
			pvc.Spec.VolumeName = "pv" + suffix
			if pvc, err = core.PersistentVolumeClaims("default").Update(ctx, pvc, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			pvc.Status = corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, AccessModes: pvc.Spec.AccessModes,
				Capacity: corev1.ResourceList{corev1.ResourceStorage: gi("1Gi")}}
			if pvc, err = core.PersistentVolumeClaims("default").UpdateStatus(ctx, pvc, metav1.UpdateOptions{}); err != nil || pvc.Status.Phase != corev1.ClaimBound {
				t.Fatalf("claim status update: %v %v", err, pvc.Status)
			}
			storageEvent(t, w, watch.Modified)
			// Without a StorageClass that allows it, a bound claim does not grow.
			pvc.Spec.Resources.Requests[corev1.ResourceStorage] = gi("2Gi")
			if _, err := core.PersistentVolumeClaims("default").Update(ctx, pvc, metav1.UpdateOptions{}); err == nil ||
				!strings.Contains(err.Error(), "only dynamically provisioned pvc can be resized") {
				t.Errorf("resize without a class: %v, want kube's 403", err)
			}
			if err := core.PersistentVolumeClaims("default").Delete(ctx, pvc.Name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			got, err := core.PersistentVolumeClaims("default").Get(ctx, pvc.Name, metav1.GetOptions{})
			if err != nil || got.DeletionTimestamp == nil {
				t.Fatalf("a deleted claim with its finalizer: %v %v, want it terminating", err, got)
			}
			got.Finalizers = nil
			if _, err := core.PersistentVolumeClaims("default").Update(ctx, got, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			storageEvent(t, w, watch.Deleted)

			pv, err := core.PersistentVolumes().Create(ctx, &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv" + suffix},
				Spec: corev1.PersistentVolumeSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Capacity:               corev1.ResourceList{corev1.ResourceStorage: gi("5Gi")},
					PersistentVolumeSource: corev1.PersistentVolumeSource{NFS: &corev1.NFSVolumeSource{Server: "nfs.example.com", Path: "/exports"}}}}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if pv.Spec.PersistentVolumeReclaimPolicy != corev1.PersistentVolumeReclaimRetain || pv.Status.Phase != corev1.VolumePending ||
				pv.Status.LastPhaseTransitionTime == nil || strings.Join(pv.Finalizers, ",") != "kubernetes.io/pv-protection" {
				t.Errorf("created volume: %+v %+v %v", pv.Spec.PersistentVolumeReclaimPolicy, pv.Status, pv.Finalizers)
			}
			pv.Status.Phase = corev1.VolumeAvailable
			if pv, err = core.PersistentVolumes().UpdateStatus(ctx, pv, metav1.UpdateOptions{}); err != nil || pv.Status.Phase != corev1.VolumeAvailable {
				t.Fatalf("volume status update: %v %+v", err, pv)
			}

			node, err := core.Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n" + suffix},
				Status: corev1.NodeStatus{Capacity: corev1.ResourceList{corev1.ResourceCPU: gi("4"), corev1.ResourcePods: gi("110")}}}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(node.Spec.Taints) != 1 || node.Spec.Taints[0].Key != "node.kubernetes.io/not-ready" || node.Status.Allocatable.Cpu().String() != "4" {
				t.Errorf("registered node: taints %v, allocatable %v; want the not-ready taint and allocatable from capacity", node.Spec.Taints, node.Status.Allocatable)
			}
			node.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: metav1.Now()}}
			if node, err = core.Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			node.Spec.Unschedulable = true
			if _, err = core.Nodes().Update(ctx, node, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			for _, sel := range []bool{true, false} {
				list, err := core.Nodes().List(ctx, metav1.ListOptions{FieldSelector: "spec.unschedulable=" + map[bool]string{true: "true", false: "false"}[sel]})
				if err != nil {
					t.Fatal(err)
				}
				found := false
				for _, n := range list.Items {
					found = found || n.Name == node.Name
					if n.Spec.Unschedulable != sel {
						t.Errorf("spec.unschedulable=%v selected node %s with %v", sel, n.Name, n.Spec.Unschedulable)
					}
				}
				if found != sel {
					t.Errorf("spec.unschedulable=%v: cordoned node %s selected %v", sel, node.Name, found)
				}
			}
		})
	}
}

// TestStorage_InformersSync starts client-go informers over claims, volumes and nodes in
// protobuf, as kube's controllers run them.
func TestStorage_InformersSync(t *testing.T) {
	srv := newStorageServer(t)
	cs, _ := contentTypeClientset(t, srv, "application/vnd.kubernetes.protobuf")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := cs.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "inf"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	factory := informers.NewSharedInformerFactory(cs, 0)
	nodes := factory.Core().V1().Nodes().Informer()
	_ = factory.Core().V1().PersistentVolumes().Informer()
	_ = factory.Core().V1().PersistentVolumeClaims().Informer()
	factory.Start(ctx.Done())
	// Shutdown waits for the informers, which stop when ctx ends: cancel first.
	defer func() { cancel(); factory.Shutdown() }()
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			t.Errorf("informer of %v did not sync", typ)
		}
	}
	if _, ok, err := nodes.GetStore().GetByKey("inf"); !ok || err != nil {
		t.Errorf("the nodes informer lacks inf: %v", err)
	}
}

// TestStorage_ControllerRuntimeClient writes a claim and its status through
// controller-runtime's client over protobuf, patches a claim and a node, and sees
// kube's refusal of a spec change.
func TestStorage_ControllerRuntimeClient(t *testing.T) {
	srv := newStorageServer(t)
	_, cfg := contentTypeClientset(t, srv, "application/vnd.kubernetes.protobuf")
	c, err := ctrlclient.New(cfg, ctrlclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "cr", Namespace: "default"},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}, StorageClassName: ptr.To("fast"),
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: gi("3Gi")}}}}
	if err := c.Create(ctx, pvc); err != nil {
		t.Fatal(err)
	}
	pvc.Status.Phase = corev1.ClaimLost
	if err := c.Status().Update(ctx, pvc); err != nil || pvc.Status.Phase != corev1.ClaimLost {
		t.Fatalf("status update: %v %v", err, pvc.Status.Phase)
	}
	// A merge patch of the labels; a strategic merge patch of a node's taints replaces
	// the list, which k8s.io/api marks atomic (no patch merge key).
	patched := pvc.DeepCopy()
	patched.Labels = map[string]string{"tier": "db"}
	if err := c.Patch(ctx, patched, ctrlclient.MergeFrom(pvc)); err != nil || patched.Labels["tier"] != "db" || patched.Status.Phase != corev1.ClaimLost {
		t.Fatalf("merge patch: %v %v %v", err, patched.Labels, patched.Status.Phase)
	}
	pvc = patched
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "cr-node"}}
	if err := c.Create(ctx, node); err != nil {
		t.Fatal(err)
	}
	smp := []byte(`{"spec":{"taints":[{"key":"dedicated","value":"db","effect":"NoExecute"}]}}`)
	if err := c.Patch(ctx, node, ctrlclient.RawPatch(types.StrategicMergePatchType, smp)); err != nil {
		t.Fatal(err)
	}
	if len(node.Spec.Taints) != 1 || node.Spec.Taints[0].Key != "dedicated" {
		t.Errorf("taints after a strategic merge patch: %v, want the patch's list alone", node.Spec.Taints)
	}
	pvc.Spec.StorageClassName = ptr.To("slow")
	err = c.Update(ctx, pvc)
	if err == nil || !strings.Contains(err.Error(), "spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims") ||
		!strings.Contains(err.Error(), `- "StorageClassName": "fast",`) {
		t.Errorf("class change: %v, want kube's refusal with its diff", err)
	}
}

// TestStorage_KubectlColumns lists claims, volumes and nodes with kubectl -o wide and
// reads kube's columns.
func TestStorage_KubectlColumns(t *testing.T) {
	srv := newStorageServer(t)
	es := &exampleServer{KubeconfigPath: srv.KubeconfigPath}
	cs, _ := contentTypeClientset(t, srv, "application/json")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := cs.CoreV1().PersistentVolumeClaims("default").Create(ctx, &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data"},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: gi("1Gi")}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().PersistentVolumes().Create(ctx, &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-1"},
		Spec: corev1.PersistentVolumeSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce, corev1.ReadOnlyMany},
			Capacity:               corev1.ResourceList{corev1.ResourceStorage: gi("5Gi")},
			PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/data"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{"node-role.kubernetes.io/worker": ""}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ args, header, row string }{
		{"pvc", "NAME STATUS VOLUME CAPACITY ACCESS MODES STORAGECLASS VOLUMEATTRIBUTESCLASS AGE VOLUMEMODE", "data Pending <unset>"},
		{"pv", "NAME CAPACITY ACCESS MODES RECLAIM POLICY STATUS CLAIM STORAGECLASS VOLUMEATTRIBUTESCLASS REASON AGE VOLUMEMODE", "pv-1 5Gi RWO,ROX Retain Pending <unset>"},
		{"nodes", "NAME STATUS ROLES AGE VERSION INTERNAL-IP EXTERNAL-IP OS-IMAGE KERNEL-VERSION CONTAINER-RUNTIME", "n1 Unknown worker"},
	} {
		out := es.mustKubectl(t, "get", c.args, "-o", "wide")
		lines := strings.Split(strings.TrimSpace(out.Stdout), "\n")
		if len(lines) != 2 || strings.Join(strings.Fields(lines[0]), " ") != c.header {
			t.Errorf("kubectl get %s -o wide:\n%s\nwant the header %s", c.args, out.Stdout, c.header)
			continue
		}
		if row := strings.Join(strings.Fields(lines[1]), " "); !strings.HasPrefix(row, c.row) {
			t.Errorf("kubectl get %s row %q, want it to start %q", c.args, row, c.row)
		}
	}
}
