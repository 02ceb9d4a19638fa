// Package v1 holds the events.k8s.io/v1 kinds, laid out like k8s.io/api/events/v1
// (import it as eventsv1): Event and EventList, which carry core/v1's ObjectReference,
// EventSource and EventSeries. The resource shares the storage of core/v1 events;
// package builtin registers the kinds and the conversions between the two groups.
package v1
