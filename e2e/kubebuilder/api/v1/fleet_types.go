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

// FleetSpec defines the desired state of Fleet
type FleetSpec struct {
	// mission is what every drone of the fleet flies.
	// +kubebuilder:validation:Enum=Patrol;Survey;Delivery
	// +kubebuilder:default=Patrol
	// +optional
	Mission string `json:"mission,omitempty"`

	// sectors are the areas the fleet covers; each gets a ConfigMap with its flight plan.
	// +kubebuilder:validation:MaxItems=16
	// +listType=set
	// +optional
	Sectors []string `json:"sectors,omitempty"`
}

// FleetStatus defines the observed state of Fleet.
type FleetStatus struct {
	// conditions represent the current state of the Fleet resource.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// configMaps is the number of flight-plan ConfigMaps the fleet owns.
	// +optional
	ConfigMaps int32 `json:"configMaps,omitempty"`

	// drone is the name of the Drone the fleet owns.
	// +optional
	Drone string `json:"drone,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status

// Fleet is the Schema for the fleets API
type Fleet struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is a standard object metadata
	// +optional
	metav1.ObjectMeta `json:"metadata,omitzero"`

	// spec defines the desired state of Fleet
	// +required
	Spec FleetSpec `json:"spec"`

	// status defines the observed state of Fleet
	// +optional
	Status FleetStatus `json:"status,omitzero"`
}

// +kubebuilder:object:root=true

// FleetList contains a list of Fleet
type FleetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitzero"`
	Items           []Fleet `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Fleet{}, &FleetList{})
}
