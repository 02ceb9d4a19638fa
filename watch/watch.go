package watch

import "github.com/apikit-dev/apikit/scheme"

// EventType is the type of a watch event, exactly as it travels on the wire.
type EventType string

// The five watch event types of the Kubernetes API.
const (
	Added    EventType = "ADDED"
	Modified EventType = "MODIFIED"
	Deleted  EventType = "DELETED"
	Bookmark EventType = "BOOKMARK"
	Error    EventType = "ERROR"
)

// Event is one change seen by a watch. For Added and Modified, Object is the object after
// the change; for Deleted, the last state before deletion (with the deletion's
// resourceVersion); for Bookmark, an object of the watched kind carrying only a
// resourceVersion (and annotations); for Error, a *scheme.Status.
type Event struct {
	Type   EventType
	Object scheme.Kinded
}

// Interface is a running watch. Events arrive on ResultChan until the watch ends, when the
// channel is closed. Stop ends the watch and releases its resources; it is safe to call
// more than once and from any goroutine.
type Interface interface {
	ResultChan() <-chan Event
	Stop()
}
