package controllers

import (
	"context"
	"fmt"
	"time"

	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
)

// eventsGR is core/v1 Events, which kube's controllers record through client-go's
// record.EventRecorder.
var eventsGR = scheme.GroupResource{Resource: "events"}

// garbageCollectorComponent is the source.component and reportingComponent of the
// garbage collector's events, as kube-controller-manager's recorder writes them.
const garbageCollectorComponent = "garbage-collector-controller"

// Event types.
const eventTypeWarning = "Warning"

// recordEvent stores a core/v1 Event about n as client-go's recorder makes one: named
// after the object and the time in hexadecimal nanoseconds, in its namespace ("default"
// for a cluster-scoped object), with count 1 and equal first and last timestamps. A
// scheme that serves no core/v1 events records none.
func (m *Manager) recordEvent(ctx context.Context, n *node, typ, reason, message string) error {
	r, ok := m.opts.Scheme.Resource(eventsGR)
	if !ok {
		return nil
	}
	now := time.Now()
	if m.opts.Clock != nil {
		now = m.opts.Clock()
	}
	ns := n.namespace
	if ns == "" {
		ns = "default"
	}
	name := fmt.Sprintf("%s.%x", n.name, now.UnixNano())
	stamp := now.UTC().Format(time.RFC3339)
	involved := map[string]any{"kind": n.gk.Kind, "apiVersion": n.obj.GetObjectKind().GroupVersionKind().GroupVersion().String(), "name": n.name, "uid": string(n.uid)}
	if n.namespace != "" {
		involved["namespace"] = n.namespace
	}
	gvk := scheme.GroupVersionKind{Group: r.Group, Version: m.opts.Scheme.StorageVersion(r), Kind: r.Kind}
	obj, err := newObject(m.opts.Scheme, gvk, map[string]any{
		"apiVersion":         gvk.GroupVersion().String(),
		"kind":               gvk.Kind,
		"metadata":           map[string]any{"name": name, "namespace": ns, "uid": string(scheme.NewUID()), "creationTimestamp": stamp},
		"involvedObject":     involved,
		"reason":             reason,
		"message":            message,
		"source":             map[string]any{"component": garbageCollectorComponent},
		"firstTimestamp":     stamp,
		"lastTimestamp":      stamp,
		"count":              int64(1),
		"type":               typ,
		"reportingComponent": garbageCollectorComponent,
		"reportingInstance":  "",
	})
	if err != nil {
		return err
	}
	if _, err := m.store.Create(ctx, storage.Key(eventsGR, ns, name), obj); err != nil {
		return fmt.Errorf("controllers: recording event %s/%s: %w", ns, name, err)
	}
	return nil
}

// newObject returns the object of unstructured content m as the scheme stores kind gvk:
// m itself for a schema-only kind, else the kind's Go type.
func newObject(s *scheme.Scheme, gvk scheme.GroupVersionKind, m map[string]any) (scheme.Object, error) {
	if s.IsUnstructured(gvk) {
		return &scheme.Unstructured{Object: m}, nil
	}
	k, err := s.New(gvk)
	if err != nil {
		return nil, fmt.Errorf("controllers: %w", err)
	}
	obj, ok := k.(scheme.Object)
	if !ok {
		return nil, fmt.Errorf("controllers: %s is not an object kind", gvk)
	}
	if err := conversion.FromUnstructured(m, obj); err != nil {
		return nil, fmt.Errorf("controllers: %s: %w", gvk.Kind, err)
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	return obj, nil
}
