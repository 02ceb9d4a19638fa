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

// Package controller holds the Fleet operator's reconciler, laid out as kubebuilder scaffolds it.
package controller

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/recorder"

	fleetv1 "github.com/apikit-dev/apikit/e2e/kubebuilder/api/v1"
)

// Condition types and event reasons the reconciler reports.
const (
	TypeAvailable = "Available"

	ReasonConfigMapCreated = "ConfigMapCreated"
	ReasonDroneLaunched    = "DroneLaunched"
	ReasonReconciled       = "Reconciled"
)

// FleetReconciler reconciles a Fleet object
type FleetReconciler struct {
	client.Client
	// APIReader reads past the manager's cache, to recheck a Fleet before adopting a child.
	APIReader client.Reader
	Scheme    *runtime.Scheme
	Recorder  recorder.EventRecorder
}

// errFleetGoing stops a reconcile that would adopt a child for a Fleet being deleted.
var errFleetGoing = errors.New("the fleet is being deleted")

// +kubebuilder:rbac:groups=fleet.example.com,resources=fleets,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=fleet.example.com,resources=fleets/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=fleet.example.com,resources=fleets/finalizers,verbs=update
// +kubebuilder:rbac:groups=fleet.example.com,resources=drones,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=core,resources=configmaps,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile gives every Fleet one flight-plan ConfigMap per sector and one Drone, all controlled by
// the Fleet through an ownerReference, so that deleting the Fleet is the garbage collector's job and
// not the reconciler's: there is no finalizer here, as in most kubebuilder operators.
func (r *FleetReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := logf.FromContext(ctx)

	fleet := &fleetv1.Fleet{}
	if err := r.Get(ctx, req.NamespacedName, fleet); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !fleet.DeletionTimestamp.IsZero() {
		// Being deleted: creating children now would only give the garbage collector more to do.
		return ctrl.Result{}, nil
	}

	for _, sector := range fleet.Spec.Sectors {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fleet.Name + "-" + sector, Namespace: fleet.Namespace}}
		op, err := controllerutil.CreateOrUpdate(ctx, r.Client, cm, func() error {
			cm.Data = map[string]string{"sector": sector, "mission": fleet.Spec.Mission}
			return r.control(ctx, fleet, cm)
		})
		if errors.Is(err, errFleetGoing) {
			return ctrl.Result{}, nil
		}
		if err != nil {
			return ctrl.Result{}, fmt.Errorf("configmap %s: %w", cm.Name, err)
		}
		if op == controllerutil.OperationResultCreated {
			r.Recorder.Eventf(fleet, cm, corev1.EventTypeNormal, ReasonConfigMapCreated, "Create", "created flight plan %s for sector %s", cm.Name, sector)
		}
	}

	drone := &fleetv1.Drone{ObjectMeta: metav1.ObjectMeta{Name: fleet.Name + "-lead", Namespace: fleet.Namespace}}
	op, err := controllerutil.CreateOrUpdate(ctx, r.Client, drone, func() error {
		drone.Spec.Mission = fleet.Spec.Mission
		return r.control(ctx, fleet, drone)
	})
	if errors.Is(err, errFleetGoing) {
		return ctrl.Result{}, nil
	}
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("drone %s: %w", drone.Name, err)
	}
	if op == controllerutil.OperationResultCreated {
		r.Recorder.Eventf(fleet, drone, corev1.EventTypeNormal, ReasonDroneLaunched, "Create", "launched drone %s", drone.Name)
	}

	observed := fleet.Status.DeepCopy()
	fleet.Status.ConfigMaps = int32(len(fleet.Spec.Sectors))
	fleet.Status.Drone = drone.Name
	meta.SetStatusCondition(&fleet.Status.Conditions, metav1.Condition{
		Type:               TypeAvailable,
		Status:             metav1.ConditionTrue,
		Reason:             ReasonReconciled,
		Message:            fmt.Sprintf("%d flight plans and drone %s are in place", len(fleet.Spec.Sectors), drone.Name),
		ObservedGeneration: fleet.Generation,
	})
	if equality.Semantic.DeepEqual(observed, &fleet.Status) {
		return ctrl.Result{}, nil
	}
	if err := r.Status().Update(ctx, fleet); err != nil {
		return ctrl.Result{}, fmt.Errorf("fleet status: %w", err)
	}
	log.V(1).Info("reconciled", "configMaps", len(fleet.Spec.Sectors), "drone", drone.Name)
	return ctrl.Result{}, nil
}

// control makes fleet the controller of obj. An existing obj without a controller is adopted,
// and adoption first rereads the Fleet past the cache, as kube's own controllers do: when a Fleet
// is deleted with propagationPolicy Orphan, the garbage collector removes the ownerReferences of
// its children before the Fleet goes away, and a reconcile that still sees the cached, undeleted
// Fleet would otherwise take them back (and the garbage collector would then delete them as
// dependents of a missing owner).
func (r *FleetReconciler) control(ctx context.Context, fleet *fleetv1.Fleet, obj client.Object) error {
	if obj.GetResourceVersion() != "" && metav1.GetControllerOf(obj) == nil {
		current := &fleetv1.Fleet{}
		err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(fleet), current)
		if apierrors.IsNotFound(err) || err == nil && (current.UID != fleet.UID || !current.DeletionTimestamp.IsZero()) {
			return errFleetGoing
		}
		if err != nil {
			return fmt.Errorf("rechecking fleet before adopting %s: %w", obj.GetName(), err)
		}
	}
	return controllerutil.SetControllerReference(fleet, obj, r.Scheme)
}

// SetupWithManager sets up the controller with the Manager.
func (r *FleetReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&fleetv1.Fleet{}).
		Owns(&corev1.ConfigMap{}).
		Owns(&fleetv1.Drone{}).
		Named("fleet").
		Complete(r)
}
