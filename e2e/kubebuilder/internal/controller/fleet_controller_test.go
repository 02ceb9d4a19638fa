/*
Copyright 2026.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package controller

import (
	"errors"
	"time"

	eventsv1 "k8s.io/api/events/v1"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	fleetv1 "github.com/apikit-dev/apikit/e2e/kubebuilder/api/v1"
)

// holdFinalizer is a finalizer of the test's own that keeps a dependent from going away, so that a
// Foreground deletion can be seen waiting for it.
const holdFinalizer = "test.example.com/hold"

var _ = Describe("Fleet Controller", func() {
	const (
		timeout  = 10 * time.Second
		interval = 20 * time.Millisecond
	)
	sectors := []string{"north", "south"}

	var (
		namespace string
		fleet     *fleetv1.Fleet
	)

	// children are the objects the reconciler makes for fleet, empty until fetched.
	children := func() []client.Object {
		objs := []client.Object{&fleetv1.Drone{ObjectMeta: metav1.ObjectMeta{Name: fleet.Name + "-lead", Namespace: namespace}}}
		for _, s := range sectors {
			objs = append(objs, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fleet.Name + "-" + s, Namespace: namespace}})
		}
		return objs
	}
	// gone reports whether obj no longer exists: a NotFound that names it, so that a 404 for an
	// unrouted path does not pass for a deleted object.
	gone := func(obj client.Object) func() bool {
		return func() bool {
			err := k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), obj)
			var status apierrors.APIStatus
			if !apierrors.IsNotFound(err) || !errors.As(err, &status) {
				return false
			}
			details := status.Status().Details
			return details != nil && details.Name == obj.GetName()
		}
	}

	BeforeEach(func() {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "fleet-test-"}}
		Expect(k8sClient.Create(ctx, ns)).To(Succeed())
		namespace = ns.Name

		By("creating the custom resource for the Kind Fleet")
		fleet = &fleetv1.Fleet{
			ObjectMeta: metav1.ObjectMeta{Name: "armada", Namespace: namespace},
			Spec:       fleetv1.FleetSpec{Sectors: sectors},
		}
		Expect(k8sClient.Create(ctx, fleet)).To(Succeed())

		By("waiting for the reconciler to make every child")
		for _, obj := range children() {
			Eventually(func() error { return k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), obj) }, timeout, interval).Should(Succeed())
		}
	})

	AfterEach(func() {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}
		Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, ns))).To(Succeed())
	})

	It("creates owner-referenced ConfigMaps and a Drone", func() {
		Expect(fleet.Spec.Mission).To(Equal("Patrol"), "the CRD's default is applied on create")
		want := metav1.OwnerReference{
			APIVersion: "fleet.example.com/v1", Kind: "Fleet", Name: fleet.Name, UID: fleet.UID,
			Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
		}
		for _, obj := range children() {
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
			Expect(obj.GetOwnerReferences()).To(ConsistOf(want), "%T %s", obj, obj.GetName())
		}

		drone := &fleetv1.Drone{}
		Expect(k8sClient.Get(ctx, types.NamespacedName{Name: fleet.Name + "-lead", Namespace: namespace}, drone)).To(Succeed())
		Expect(drone.Spec).To(Equal(fleetv1.DroneSpec{Mission: "Patrol", Altitude: 120}))

		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(fleet), fleet)).To(Succeed())
			g.Expect(meta.IsStatusConditionTrue(fleet.Status.Conditions, TypeAvailable)).To(BeTrue())
			g.Expect(fleet.Status.ConfigMaps).To(Equal(int32(len(sectors))))
			g.Expect(fleet.Status.Drone).To(Equal(drone.Name))
		}, timeout, interval).Should(Succeed())
	})

	// The manager's recorder writes events.k8s.io/v1 Events; apikit serves them
	// apart from core/v1 Events (kube stores both in one resource).
	It("records Events about the Fleet", func() {
		Eventually(func(g Gomega) {
			events := &eventsv1.EventList{}
			g.Expect(k8sClient.List(ctx, events, client.InNamespace(namespace))).To(Succeed())
			reasons := map[string]int{}
			for _, e := range events.Items {
				if e.Regarding.UID == fleet.UID {
					reasons[e.Reason]++
				}
			}
			g.Expect(reasons).To(Equal(map[string]int{ReasonConfigMapCreated: len(sectors), ReasonDroneLaunched: 1}))
		}, timeout, interval).Should(Succeed())
	})

	It("runs as the elected leader, holding the Lease", func() {
		Eventually(k8sManager.Elected(), timeout).Should(BeClosed())
		lease := &coordinationv1.Lease{}
		Expect(k8sClient.Get(ctx, types.NamespacedName{Name: leaderElectionID, Namespace: "default"}, lease)).To(Succeed())
		Expect(lease.Spec.HolderIdentity).NotTo(BeNil())
		Expect(*lease.Spec.HolderIdentity).NotTo(BeEmpty())
		Expect(lease.Spec.LeaseDurationSeconds).To(Equal(ptr.To(int32(15))))
	})

	It("collects the children after a Background deletion of the Fleet", func() {
		Expect(k8sClient.Delete(ctx, fleet, client.PropagationPolicy(metav1.DeletePropagationBackground))).To(Succeed())

		Eventually(gone(fleet), timeout, interval).Should(BeTrue())
		for _, obj := range children() {
			Eventually(gone(obj), timeout, interval).Should(BeTrue(), "%T %s", obj, obj.GetName())
		}
	})

	It("keeps the Fleet until its dependents are gone after a Foreground deletion", func() {
		drone := &fleetv1.Drone{}
		Expect(k8sClient.Get(ctx, types.NamespacedName{Name: fleet.Name + "-lead", Namespace: namespace}, drone)).To(Succeed())
		held := drone.DeepCopy()
		controllerutil.AddFinalizer(held, holdFinalizer)
		Expect(k8sClient.Patch(ctx, held, client.MergeFrom(drone))).To(Succeed())

		Expect(k8sClient.Delete(ctx, fleet, client.PropagationPolicy(metav1.DeletePropagationForeground))).To(Succeed())

		By("the garbage collector deleting the held Drone")
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(held), held)).To(Succeed())
			g.Expect(held.DeletionTimestamp).NotTo(BeNil())
		}, timeout, interval).Should(Succeed())

		By("the Fleet waiting for it")
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(fleet), fleet)).To(Succeed())
		Expect(fleet.DeletionTimestamp).NotTo(BeNil())
		Expect(fleet.Finalizers).To(ContainElement(metav1.FinalizerDeleteDependents))

		By("releasing the Drone")
		released := held.DeepCopy()
		controllerutil.RemoveFinalizer(released, holdFinalizer)
		Expect(k8sClient.Patch(ctx, released, client.MergeFrom(held))).To(Succeed())

		Eventually(gone(fleet), timeout, interval).Should(BeTrue())
		for _, obj := range children() {
			Eventually(gone(obj), timeout, interval).Should(BeTrue(), "%T %s", obj, obj.GetName())
		}
	})

	It("deletes everything in a namespace when the namespace is deleted", func() {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}
		Expect(k8sClient.Delete(ctx, ns)).To(Succeed())

		Eventually(gone(ns), timeout, interval).Should(BeTrue())
		Eventually(gone(fleet), timeout, interval).Should(BeTrue())
		for _, obj := range children() {
			Eventually(gone(obj), timeout, interval).Should(BeTrue(), "%T %s", obj, obj.GetName())
		}
		events := &eventsv1.EventList{}
		Expect(k8sClient.List(ctx, events, client.InNamespace(namespace))).To(Succeed())
		Expect(events.Items).To(BeEmpty())
	})
})
