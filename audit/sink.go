package audit

import (
	"fmt"
	"io"
	"sync"
)

// Sink receives audit events. ProcessEvent is called from the goroutines serving
// requests, so it must be safe for concurrent use; it may keep ev but not modify it. An
// error is logged by the server, which goes on serving, like kube-apiserver's log
// backend.
type Sink interface {
	ProcessEvent(ev *Event) error
}

// WriterSink writes each event as one line of JSON, in one Write, like kube-apiserver's
// --audit-log-path (in the JSON format). It is safe for concurrent use.
type WriterSink struct {
	mu sync.Mutex
	w  io.Writer
}

// NewWriterSink returns a Sink that writes JSON lines to w.
func NewWriterSink(w io.Writer) *WriterSink { return &WriterSink{w: w} }

// ProcessEvent implements Sink.
func (s *WriterSink) ProcessEvent(ev *Event) error {
	buf := lineBuffers.Get().(*[]byte)
	defer lineBuffers.Put(buf)
	line, err := ev.AppendJSON((*buf)[:0])
	if err != nil {
		return fmt.Errorf("audit: encoding event %s: %w", ev.AuditID, err)
	}
	line = append(line, '\n')
	*buf = line
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.w.Write(line); err != nil {
		return fmt.Errorf("audit: writing event %s: %w", ev.AuditID, err)
	}
	return nil
}

// lineBuffers are reused event encodings.
var lineBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// DefaultMaxEventBytes is the body size limit when Config.MaxEventBytes is zero:
// kube-apiserver's --audit-log-truncate-max-event-size default, 100 KiB.
const DefaultMaxEventBytes = 100 << 10

// Config turns auditing on in package rest (rest.Options.Audit).
type Config struct {
	// Policy decides what is recorded of each request; nil records nothing.
	Policy *Policy
	// Sink receives the events; nil records nothing.
	Sink Sink
	// MaxEventBytes bounds each recorded body (request or response object): a larger
	// one is left out and the event annotated audit.k8s.io/truncated=true, as
	// kube-apiserver's truncating backend does. 0 means DefaultMaxEventBytes.
	MaxEventBytes int
}
