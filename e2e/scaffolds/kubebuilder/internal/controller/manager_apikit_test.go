package controller

// This file is apikit's, not the scaffold's. The scaffold's specs call Reconcile by hand;
// these run the same reconcilers the way cmd/main.go does, under a manager (informers over
// the custom resources and over the Deployments they own, in protobuf, and the events
// recorder), on the suite's Environment, and compare each Deployment the controllers store
// with the one kube-apiserver v1.37.2 stores for the same request (testdata/*.kube.json,
// written by this file on controller-runtime's envtest with APIKIT_SCAFFOLD_GOLDEN=write).

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	examplecomv1alpha1 "github.com/apikit-dev/apikit/e2e/scaffolds/kubebuilder/api/v1alpha1"
)

const managedNamespace = "apikit-managed"

var _ = Describe("apikit: the deploy-image controllers under a manager", Ordered, ContinueOnFailure, func() {
	var (
		stop    context.CancelFunc
		done    chan error
		envPrev = map[string]*string{}
	)

	BeforeAll(func() {
		for name, value := range map[string]string{
			"MEMCACHED_IMAGE": "memcached:1.6.26-alpine3.19",
			"BUSYBOX_IMAGE":   "busybox:1.36.1",
		} {
			if old, ok := os.LookupEnv(name); ok {
				envPrev[name] = &old
			} else {
				envPrev[name] = nil
			}
			Expect(os.Setenv(name, value)).To(Succeed())
		}
		Expect(k8sClient.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: managedNamespace}})).To(Succeed())

		// The scaffold's own specs call Reconcile by hand in their namespaces; the manager
		// sees only this one, so the two never reconcile the same object.
		mgr, err := ctrl.NewManager(cfg, ctrl.Options{
			Scheme:  k8sClient.Scheme(),
			Metrics: metricsserver.Options{BindAddress: "0"},
			Cache:   cache.Options{DefaultNamespaces: map[string]cache.Config{managedNamespace: {}}},
			// controller names are unique per process; -count=2 runs the suite twice in one.
			Controller: config.Controller{SkipNameValidation: new(true)},
		})
		Expect(err).NotTo(HaveOccurred())
		Expect((&MemcachedReconciler{
			Client: mgr.GetClient(), Scheme: mgr.GetScheme(), Recorder: mgr.GetEventRecorder("memcached-controller"),
		}).SetupWithManager(mgr)).To(Succeed())
		Expect((&BusyboxReconciler{
			Client: mgr.GetClient(), Scheme: mgr.GetScheme(), Recorder: mgr.GetEventRecorder("busybox-controller"),
		}).SetupWithManager(mgr)).To(Succeed())

		var mctx context.Context
		mctx, stop = context.WithCancel(ctx)
		done = make(chan error, 1)
		go func() { done <- mgr.Start(mctx) }()
	})

	AfterAll(func() {
		if stop != nil {
			stop()
			Eventually(done).WithTimeout(30 * time.Second).Should(Receive(BeNil()))
		}
		for name, old := range envPrev {
			if old == nil {
				_ = os.Unsetenv(name)
			} else {
				_ = os.Setenv(name, *old)
			}
		}
	})

	deployment := func(g Gomega, name string) *appsv1.Deployment {
		d := &appsv1.Deployment{}
		g.Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: managedNamespace, Name: name}, d)).To(Succeed())
		return d
	}

	for _, kind := range []string{"Memcached", "Busybox"} {
		name := "managed-" + map[string]string{"Memcached": "memcached", "Busybox": "busybox"}[kind]
		newCR := func() client.Object {
			meta := metav1.ObjectMeta{Name: name, Namespace: managedNamespace}
			if kind == "Memcached" {
				return &examplecomv1alpha1.Memcached{ObjectMeta: meta,
					Spec: examplecomv1alpha1.MemcachedSpec{Size: new(int32(1)), ContainerPort: 11211}}
			}
			return &examplecomv1alpha1.Busybox{ObjectMeta: meta, Spec: examplecomv1alpha1.BusyboxSpec{Size: new(int32(1))}}
		}

		It(kind+": the manager creates the Deployment kube-apiserver would store", func() {
			cr := newCR()
			Expect(k8sClient.Create(ctx, cr)).To(Succeed())

			var d *appsv1.Deployment
			Eventually(func(g Gomega) { d = deployment(g, name) }).WithTimeout(30 * time.Second).WithPolling(50 * time.Millisecond).Should(Succeed())
			Expect(metav1.IsControlledBy(d, cr)).To(BeTrue(), "ownerReferences %v", d.OwnerReferences)

			got, want := storedAndKube(name)
			delete(got["metadata"].(map[string]any), "managedFields")
			delete(want["metadata"].(map[string]any), "managedFields")
			Expect(cmp.Diff(want, got)).To(BeEmpty(), "stored Deployment differs from kube-apiserver's (-kube +apikit)")
		})

		// A separate spec, so that a difference in managedFields alone (the field sets
		// server-side apply works from) reads as such.
		It(kind+": the Deployment's managedFields are those kube-apiserver records", func() {
			got, want := storedAndKube(name)
			Expect(cmp.Diff(want["metadata"].(map[string]any)["managedFields"], got["metadata"].(map[string]any)["managedFields"])).
				To(BeEmpty(), "managedFields differ from kube-apiserver's (-kube +apikit)")
		})

		It(kind+": a change of spec.size reaches the Deployment, and status says so", func() {
			Eventually(func(g Gomega) {
				cr := newCR()
				g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(cr), cr)).To(Succeed())
				switch o := cr.(type) {
				case *examplecomv1alpha1.Memcached:
					o.Spec.Size = new(int32(3))
				case *examplecomv1alpha1.Busybox:
					o.Spec.Size = new(int32(3))
				}
				g.Expect(k8sClient.Update(ctx, cr)).To(Succeed())
			}).WithTimeout(30 * time.Second).Should(Succeed())
			Eventually(func(g Gomega) {
				d := deployment(g, name)
				g.Expect(d.Spec.Replicas).To(HaveValue(BeEquivalentTo(3)))
				g.Expect(d.Generation).To(BeEquivalentTo(2))
			}).WithTimeout(30 * time.Second).WithPolling(50 * time.Millisecond).Should(Succeed())
			Eventually(func(g Gomega) {
				var conds []metav1.Condition
				switch cr := newCR().(type) {
				case *examplecomv1alpha1.Memcached:
					g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(cr), cr)).To(Succeed())
					conds = cr.Status.Conditions
				case *examplecomv1alpha1.Busybox:
					g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(cr), cr)).To(Succeed())
					conds = cr.Status.Conditions
				}
				g.Expect(conds).To(ContainElement(And(
					HaveField("Type", "Available"), HaveField("Status", metav1.ConditionTrue),
					HaveField("Message", ContainSubstring("3 replicas")))))
			}).WithTimeout(30 * time.Second).WithPolling(50 * time.Millisecond).Should(Succeed())
		})

		It(kind+": a deleted Deployment is recreated through the Owns watch", func() {
			var old *appsv1.Deployment
			Eventually(func(g Gomega) { old = deployment(g, name) }).Should(Succeed())
			Expect(k8sClient.Delete(ctx, old)).To(Succeed())
			Eventually(func(g Gomega) {
				d := deployment(g, name)
				g.Expect(d.UID).NotTo(Equal(old.UID))
				g.Expect(d.Spec.Replicas).To(HaveValue(BeEquivalentTo(3)))
			}).WithTimeout(30 * time.Second).WithPolling(50 * time.Millisecond).Should(Succeed())
		})

		It(kind+": deleting the custom resource runs the finalizer and records its event", func() {
			cr := newCR()
			Expect(k8sClient.Delete(ctx, cr)).To(Succeed())
			Eventually(func(g Gomega) {
				err := k8sClient.Get(ctx, client.ObjectKeyFromObject(cr), cr)
				g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "get after delete: %v", err)
			}).WithTimeout(30 * time.Second).WithPolling(50 * time.Millisecond).Should(Succeed())
			Eventually(func(g Gomega) {
				events := &eventsv1.EventList{}
				g.Expect(k8sClient.List(ctx, events, client.InNamespace(managedNamespace))).To(Succeed())
				g.Expect(events.Items).To(ContainElement(And(
					HaveField("Reason", "Deleting"), HaveField("Action", "DeleteCR"),
					HaveField("Regarding.Name", name), HaveField("Regarding.Kind", kind))))
			}).WithTimeout(30 * time.Second).WithPolling(100 * time.Millisecond).Should(Succeed())
			// kube's envtest runs no garbage collector, so there the Deployment stays; only log.
			d := &appsv1.Deployment{}
			err := k8sClient.Get(ctx, types.NamespacedName{Namespace: managedNamespace, Name: name}, d)
			GinkgoWriter.Printf("Deployment after its owner's deletion: get error %v, deletionTimestamp %v\n", err, d.DeletionTimestamp)
		})
	}
})

// storedAndKube returns the Deployment named name as the suite's server stores it, and as
// kube-apiserver stored it (testdata/NAME.kube.json), both with the fields each server
// sets on its own set aside and through JSON, so numbers compare as the file holds them.
// With APIKIT_SCAFFOLD_GOLDEN=write it writes the file instead, which is how it was made
// on controller-runtime's envtest.
func storedAndKube(name string) (got, want map[string]any) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(appsv1.SchemeGroupVersion.WithKind("Deployment"))
	Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: managedNamespace, Name: name}, u)).To(Succeed())
	normalize(u.Object)
	b, err := json.Marshal(u.Object)
	Expect(err).NotTo(HaveOccurred())
	Expect(json.Unmarshal(b, &got)).To(Succeed())
	path := filepath.Join("testdata", name+".kube.json")
	if os.Getenv("APIKIT_SCAFFOLD_GOLDEN") == "write" {
		b, err := json.MarshalIndent(got, "", "  ")
		Expect(err).NotTo(HaveOccurred())
		Expect(os.MkdirAll("testdata", 0o755)).To(Succeed())
		Expect(os.WriteFile(path, append(b, '\n'), 0o644)).To(Succeed())
	}
	b, err = os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	Expect(json.Unmarshal(b, &want)).To(Succeed())
	return got, want
}

// normalize sets aside what differs between any two servers or runs: uid, resourceVersion,
// timestamps, the owner's uid, managedFields' times and manager (the test binary's name).
func normalize(obj map[string]any) {
	meta, _ := obj["metadata"].(map[string]any)
	for _, k := range []string{"uid", "resourceVersion", "creationTimestamp"} {
		if _, ok := meta[k]; ok {
			meta[k] = "(set aside)"
		}
	}
	refs, _ := meta["ownerReferences"].([]any)
	for _, r := range refs {
		r.(map[string]any)["uid"] = "(set aside)"
	}
	mfs, _ := meta["managedFields"].([]any)
	for _, mf := range mfs {
		m := mf.(map[string]any)
		m["time"] = "(set aside)"
		m["manager"] = "(set aside)"
		// fieldsV1 keys an owner reference by its uid.
		fields, _ := m["fieldsV1"].(map[string]any)
		fmeta, _ := fields["f:metadata"].(map[string]any)
		if orefs, ok := fmeta["f:ownerReferences"].(map[string]any); ok {
			for k, v := range orefs {
				if strings.HasPrefix(k, `k:{"uid":`) {
					delete(orefs, k)
					orefs[`k:{"uid":"(set aside)"}`] = v
				}
			}
		}
	}
}
