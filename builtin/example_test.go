package builtin_test

import (
	"fmt"

	"github.com/apikit-dev/apikit/builtin"
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	eventsv1 "github.com/apikit-dev/apikit/builtin/events/v1"
	"github.com/apikit-dev/apikit/scheme"
)

// A host registers the built-in kinds once; the scheme then knows their Go types and
// serves their resources as kube-apiserver does (scope, short names, shared storage).
func ExampleAddToScheme() {
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		panic(err)
	}
	gvk, err := s.KindFor(&eventsv1.Event{}, eventsv1.SchemeGroupVersion)
	if err != nil {
		panic(err)
	}
	fmt.Println(gvk.Group, gvk.Version, gvk.Kind)
	ns, _ := s.Resource(corev1.Namespaces)
	fmt.Println(ns.Kind, ns.Namespaced, ns.ShortNames)
	ev, _ := s.Resource(eventsv1.Events)
	fmt.Println(ev.Kind, ev.Namespaced, s.StorageResource(ev).Group == "")
	// Output:
	// events.k8s.io v1 Event
	// Namespace false [ns]
	// Event true true
}
