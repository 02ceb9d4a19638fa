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

package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DroneSpec defines the desired state of Drone
type DroneSpec struct {
	// mission the drone flies, copied from its Fleet.
	// +kubebuilder:validation:Enum=Patrol;Survey;Delivery
	// +required
	Mission string `json:"mission"`

	// altitude in metres.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=500
	// +kubebuilder:default=120
	// +optional
	Altitude int32 `json:"altitude,omitempty"`
}

// DroneStatus defines the observed state of Drone.
type DroneStatus struct {
	// phase of the drone.
	// +kubebuilder:validation:Enum=Grounded;Flying
	// +optional
	Phase string `json:"phase,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status

// Drone is the Schema for the drones API
type Drone struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is a standard object metadata
	// +optional
	metav1.ObjectMeta `json:"metadata,omitzero"`

	// spec defines the desired state of Drone
	// +required
	Spec DroneSpec `json:"spec"`

	// status defines the observed state of Drone
	// +optional
	Status DroneStatus `json:"status,omitzero"`
}

// +kubebuilder:object:root=true

// DroneList contains a list of Drone
type DroneList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitzero"`
	Items           []Drone `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Drone{}, &DroneList{})
}
