package rest

import (
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// A watch over HTTP/1.1 is written on the connection itself once its header is out
// (http.Hijacker), each batch of events as one chunk in one write(2). Through the
// ResponseWriter the same batch costs two or three: net/http copies a chunk through
// its 4 KiB connection buffer, writes out each full buffer, and writes the chunk's
// closing CRLF at the flush. With 1,000 watchers each event is written 1,000 times,
// and those writes were most of a busy server's CPU.
//
// What net/http did for the stream is done here: the chunked framing, the write
// deadlines, noticing the client leave (net/http's background read stops with the
// hijack), and ending the stream at http.Server.Shutdown (which no longer tracks the
// connection, but runs the functions given to RegisterOnShutdown). The response says
// "Connection: close", as the connection cannot go back to net/http: the client
// opens a new one for its next request. http.Server.Close alone does not reach a
// hijacked watch; it ends when the request's context does (a server's BaseContext),
// at its timeout, or when the client leaves.
//
// HTTP/2 (kubectl and client-go over TLS) and HTTP/1.0 streams, and ResponseWriters
// that cannot be hijacked (a host's middleware without Unwrap), keep the
// ResponseWriter.

// chunkHeadroom is the space a watch batch keeps free before its frames for the chunk
// header: up to 16 hex digits of the chunk size and CRLF.
const chunkHeadroom = 18

// chunkEnd ends a chunked body: the last chunk and an empty trailer.
const chunkEnd = "0\r\n\r\n"

// watchConn is the connection a watch writes on after taking it over from net/http.
type watchConn struct {
	conn net.Conn
	// srv is the server whose Shutdown ends the watch; nil when unknown.
	srv *http.Server
	// stop ends the watch: the client left or its server shuts down.
	stop func()
}

// claimWatchConn prepares an HTTP/1.1 watch to take its connection over from net/http
// once its header is out (see takeOver), before the header is written: the response
// says "Connection: close", and the watch is registered with its server so that a
// Shutdown its client may see begin finds it. It returns nil when the stream stays on
// the ResponseWriter: not HTTP/1.1, or the server already shuts down (it still tracks
// the stream there). stop ends the watch.
func (rq *request) claimWatchConn(stop func()) *watchConn {
	if !rq.canHijackWatch() {
		return nil
	}
	wc := &watchConn{stop: stop}
	wc.srv, _ = rq.r.Context().Value(http.ServerContextKey).(*http.Server)
	if wc.srv != nil && !rq.h.hijacked.add(wc) {
		return nil
	}
	rq.w.Header().Set("Connection", "close")
	return wc
}

// takeOver hijacks the connection once the response header has been flushed, and tells
// false (forgetting wc) when the ResponseWriter cannot be hijacked. Then stop is called
// when the client closes the connection or sends anything (a watch's client only
// reads), as well as at the server's Shutdown.
func (wc *watchConn) takeOver(rq *request) bool {
	conn, brw, err := http.NewResponseController(rq.w).Hijack()
	if err != nil {
		rq.h.hijacked.remove(wc)
		return false
	}
	wc.conn = conn
	go func() {
		// The read returns when the client closes the connection, sends anything (a
		// pipelined request, which the stream cannot serve), or the stream closes
		// the connection; net/http's own read of the connection ended with the hijack.
		_, _ = brw.Reader.Read(make([]byte, 1))
		wc.stop()
	}()
	return true
}

// canHijackWatch tells whether the stream may move to the connection: HTTP/1.1, where
// net/http frames the body in chunks and the connection is the stream's alone.
func (rq *request) canHijackWatch() bool {
	return rq.r.ProtoMajor == 1 && rq.r.ProtoMinor >= 1
}

// writeChunk writes frames[chunkHeadroom:] as one chunk in one write; the chunk's
// header goes into the headroom, its CRLF after the frames.
func (wc *watchConn) writeChunk(frames []byte) error {
	var digits [16]byte
	size := strconv.AppendUint(digits[:0], uint64(len(frames)-chunkHeadroom), 16)
	start := chunkHeadroom - len(size) - 2
	copy(frames[start:], size)
	frames[chunkHeadroom-2], frames[chunkHeadroom-1] = '\r', '\n'
	frames = append(frames, '\r', '\n')
	_, err := wc.conn.Write(frames[start:])
	return err
}

// close ends the chunked body, if the client still reads, and closes the connection.
// The end's write is bounded even when Options.WatchWriteTimeout turned the per-write
// bound off, as the connection is closed right after it.
func (wc *watchConn) close(h *Handler) {
	timeout := h.limits.watchWriteTimeout
	if timeout <= 0 {
		timeout = DefaultWatchWriteTimeout
	}
	_ = wc.conn.SetWriteDeadline(time.Now().Add(timeout))
	_, _ = io.WriteString(wc.conn, chunkEnd)
	_ = wc.conn.Close()
	h.hijacked.remove(wc)
}

// hijackedWatches ends the watches written on hijacked connections when their server
// shuts down.
type hijackedWatches struct {
	mu sync.Mutex
	// servers are the servers seen, each with its watches; an entry without watches
	// stays, as its server keeps the Shutdown function registered for it.
	servers map[*http.Server]*serverWatches
}

type serverWatches struct {
	watches      map[*watchConn]struct{}
	shuttingDown bool
}

// add records wc under its server, registering the server's Shutdown function the first
// time, and tells false when that server is shutting down.
func (hw *hijackedWatches) add(wc *watchConn) bool {
	hw.mu.Lock()
	defer hw.mu.Unlock()
	sw := hw.servers[wc.srv]
	if sw == nil {
		if hw.servers == nil {
			hw.servers = make(map[*http.Server]*serverWatches)
		}
		sw = &serverWatches{watches: make(map[*watchConn]struct{})}
		hw.servers[wc.srv] = sw
		srv := wc.srv
		srv.RegisterOnShutdown(func() { hw.shutdown(srv) })
	}
	if sw.shuttingDown {
		return false
	}
	sw.watches[wc] = struct{}{}
	return true
}

func (hw *hijackedWatches) remove(wc *watchConn) {
	if wc.srv == nil {
		return
	}
	hw.mu.Lock()
	defer hw.mu.Unlock()
	if sw := hw.servers[wc.srv]; sw != nil {
		delete(sw.watches, wc)
	}
}

// shutdown ends srv's watches; each writes the end of its body and closes its
// connection as its stream returns.
func (hw *hijackedWatches) shutdown(srv *http.Server) {
	hw.mu.Lock()
	sw := hw.servers[srv]
	var stops []func()
	if sw != nil {
		sw.shuttingDown = true
		for wc := range sw.watches {
			stops = append(stops, wc.stop)
		}
	}
	hw.mu.Unlock()
	for _, stop := range stops {
		stop()
	}
}
