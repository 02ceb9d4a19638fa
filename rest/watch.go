package rest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/apikit-dev/apikit/apierrors"
	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/rest/table"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/validation"
	"github.com/apikit-dev/apikit/watch"
)

// minRequestTimeout is kube-apiserver's default --min-request-timeout: a watch without
// timeoutSeconds lasts a random duration between it and twice it.
const minRequestTimeout = 30 * time.Minute

// encodingKey names one encoding of watch event objects in watch.Event.Encoded.
type encodingKey struct {
	gv        scheme.GroupVersion
	mediaType string
	// as and asOptions name a conversion target (Table, PartialObjectMetadata) and
	// the options that shape it.
	as, asOptions string
}

// internEncodingKey returns the one *encodingKey of out's encoding for the stream's
// version, so that the events' shared encodings are found by comparing pointers, not
// four strings, once per event and watcher. The keys are few: versions and media
// types are the served ones, and includeObject matters (and was checked) only for
// Tables.
func (rq *request) internEncodingKey(out output) *encodingKey {
	k := encodingKey{gv: rq.gv, mediaType: out.MediaType, as: out.As}
	if out.As == asTable {
		k.asOptions = rq.query.Get("includeObject")
	}
	if p, ok := rq.h.encodingKeys.Load(k); ok {
		return p.(*encodingKey)
	}
	p, _ := rq.h.encodingKeys.LoadOrStore(k, &k)
	return p.(*encodingKey)
}

// validateWatchOptions checks the combinations kube-apiserver checks for a watch.
func (rq *request) validateWatchOptions() (sendInitial *bool, err error) {
	var errs validation.ErrorList
	q := rq.query
	match := q.Get("resourceVersionMatch")
	if v := q.Get("sendInitialEvents"); q.Has("sendInitialEvents") {
		b, perr := strconv.ParseBool(v)
		if perr != nil {
			return nil, apierrors.NewBadRequest("invalid sendInitialEvents " + strconv.Quote(v))
		}
		sendInitial = &b
		if match != string(storage.ResourceVersionMatchNotOlderThan) {
			errs = append(errs, validation.Forbidden(validation.NewPath("resourceVersionMatch"), "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"))
		}
	}
	if match != "" {
		if sendInitial == nil {
			errs = append(errs, validation.Forbidden(validation.NewPath("resourceVersionMatch"), "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"))
		}
		if match != string(storage.ResourceVersionMatchNotOlderThan) {
			errs = append(errs, validation.NotSupported(validation.NewPath("resourceVersionMatch"), match, []string{string(storage.ResourceVersionMatchNotOlderThan)}))
		}
		if q.Get("continue") != "" {
			errs = append(errs, validation.Forbidden(validation.NewPath("resourceVersionMatch"), "resourceVersionMatch is forbidden when continue is provided"))
		}
	}
	if len(errs) > 0 {
		return nil, newInvalidOptions("ListOptions", errs)
	}
	return sendInitial, nil
}

// watch streams changes in the negotiated stream framing (codec.EventFramer), the events
// the watch has for the stream written together and flushed once (see streamBatches),
// until timeoutSeconds, the client leaving or not reading (each write has a deadline,
// see watchDeadlines), or the storage ending the watch. It runs in three steps:
// validate the options, negotiate the stream's format, stream.
func (rq *request) watch() {
	opts, err := rq.validateWatch()
	if err != nil {
		rq.fail(err)
		return
	}
	out, st := rq.negotiateWatch()
	if st != nil {
		rq.fail(st)
		return
	}
	if err := rq.validateWatchTable(out); err != nil {
		rq.fail(err)
		return
	}
	rq.stream(out, opts)
}

// validateWatchTable checks the Table options (includeObject) of a watch that streams
// Tables before the stream starts, as kube-apiserver does before its 200: a bad value
// is a 400, not a 200 whose first event is an error.
func (rq *request) validateWatchTable(out output) error {
	if out.As != asTable {
		return nil
	}
	if _, err := table.ParseOptions(rq.query); err != nil {
		return apierrors.NewBadRequest(err.Error())
	}
	return nil
}

// watchRequest is what a valid watch request asks for.
type watchRequest struct {
	storage.WatchOptions
	// key is the storage key watched: the collection's prefix, or one object's key
	// when the URL names it.
	key string
	// timeout ends the stream: timeoutSeconds, or a random duration between
	// minRequestTimeout and twice it, like kube-apiserver.
	timeout time.Duration
}

// validateWatch checks the watch options and the selectors and returns the storage
// watch they describe.
func (rq *request) validateWatch() (watchRequest, error) {
	timeoutSeconds, _, err := rq.listOptionInts()
	if err != nil {
		return watchRequest{}, err
	}
	sendInitial, err := rq.validateWatchOptions()
	if err != nil {
		return watchRequest{}, err
	}
	pred, err := rq.predicate()
	if err != nil {
		return watchRequest{}, err
	}
	timeout := watchTimeout(timeoutSeconds)
	key := storage.Prefix(rq.stored, rq.info.Namespace)
	recursive := true
	if len(rq.info.Parts) > 1 {
		key, recursive = rq.key(rq.info.Name), false
	}
	bookmarkGVK := rq.gvk
	return watchRequest{
		key:     key,
		timeout: timeout,
		WatchOptions: storage.WatchOptions{
			ResourceVersion:   rq.query.Get("resourceVersion"),
			Recursive:         recursive,
			Batches:           true,
			Predicate:         pred,
			Bookmarks:         isTrue(rq.query.Get("allowWatchBookmarks")),
			SendInitialEvents: sendInitial,
			NewBookmarkObject: func() scheme.Object {
				k, err := rq.h.scheme.New(bookmarkGVK)
				if err != nil {
					return &scheme.Unstructured{Object: map[string]any{}}
				}
				obj, _ := k.(scheme.Object)
				return obj
			},
		},
	}, nil
}

// maxWatchTimeoutSeconds is the longest timeoutSeconds a time.Duration holds.
const maxWatchTimeoutSeconds = int64(math.MaxInt64 / time.Second)

// watchTimeout is how long a watch lasts: timeoutSeconds, or without it (or at 0) a
// random duration between minRequestTimeout and twice it, like kube-apiserver. A
// negative timeoutSeconds, or one past what a time.Duration holds, is a watch that
// has timed out before it starts (-1, see stream): kube-apiserver's watch timer gets
// a negative duration (its product with time.Second overflows) and fires at once.
// Past twice that bound kube's product wraps round to some positive duration again;
// here every such value ends at once.
func watchTimeout(timeoutSeconds *int64) time.Duration {
	switch {
	case timeoutSeconds == nil || *timeoutSeconds == 0:
		return time.Duration(float64(minRequestTimeout) * (1 + rand.Float64()))
	case *timeoutSeconds < 0 || *timeoutSeconds > maxWatchTimeoutSeconds:
		return -1
	}
	return time.Duration(*timeoutSeconds) * time.Second
}

// negotiateWatch picks the stream's format from the Accept header: a serializer that
// frames events (codec.EventFramer: JSON documents, CBOR data items, protobuf frames);
// YAML has no stream framing and is not offered, as in kube-apiserver.
func (rq *request) negotiateWatch() (output, *scheme.Status) {
	sample, _ := rq.h.scheme.New(rq.gvk)
	return rq.h.negotiate(rq.r, codec.ResponseOptions{
		GVK: rq.gvk, Object: sample, Stream: true,
		AllowAs: func(as string) bool { return as == asPartialObjectMetadata || as == asTable },
	})
}

// stream opens the storage watch and writes its events in out's framing. A watch from
// a resourceVersion older than the history kept starts with 200 and ends with one
// ERROR event carrying the 410 Expired Status, as kube-apiserver does.
func (rq *request) stream(out output, wr watchRequest) {
	framer, ok := out.Serializer.(codec.EventFramer)
	if !ok { // negotiateWatch offers only media types with a stream framing
		rq.fail(apierrors.NewInternalError(fmt.Errorf("media type %s has no watch framing", out.MediaType)))
		return
	}
	wi, err := rq.h.store.Watch(rq.ctx, wr.key, wr.WatchOptions)
	if err != nil && !errors.Is(err, storage.ErrGone) {
		rq.fail(err)
		return
	}

	hdr := rq.w.Header()
	hdr.Set("Content-Type", out.StreamContentType())
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Cache-Control", "no-cache, private")
	if wr.timeout < 0 {
		// Timed out before it started: kube's 200 stream that ends with no event.
		if err == nil {
			wi.Stop()
		}
		addWarnings(rq.w, rq.warnings)
		rq.w.WriteHeader(http.StatusOK)
		_ = http.NewResponseController(rq.w).Flush()
		return
	}
	var wc *watchConn
	if err == nil {
		wc = rq.claimWatchConn(wi.Stop)
	}
	addWarnings(rq.w, rq.warnings)
	deadlines := rq.watchDeadlines(time.Now().Add(wr.timeout))
	defer deadlines.clear()
	deadlines.before()
	rq.w.WriteHeader(http.StatusOK)
	if err != nil {
		rq.writeEvent(out, framer, watch.Event{Type: watch.Error, Object: rq.h.toStatus(err, rq.gr, "")})
		_ = deadlines.flush()
		return
	}
	defer wi.Stop()
	_ = deadlines.flush()

	var sink watchSink = responseSink{rq: rq, deadlines: deadlines}
	if wc != nil && wc.takeOver(rq) {
		defer wc.close(rq.h)
		deadlines.moveTo(wc.conn)
		sink = connSink{wc: wc, deadlines: deadlines}
	}
	ws := &watchStream{out: out, framer: framer, key: rq.internEncodingKey(out), events: rq.watchEventSeriesOf(), sink: sink}
	bw, ok := wi.(watch.Batcher)
	if !ok {
		// Events already queued when the stream times out are not written.
		ctx, cancel := context.WithTimeout(rq.ctx, wr.timeout)
		defer cancel()
		bw = channelBatches{ctx: ctx, results: wi.ResultChan()}
	}
	rq.streamBatches(ws, wi, bw, wr.timeout)
}

// watchStream is what a watch's stream settles once and uses for every event.
type watchStream struct {
	out    output
	framer codec.EventFramer
	// key names the stream's encoding in the events' shared cache (watch.Event.Encoded).
	key    *encodingKey
	events *watchEventSeries // nil without metrics
	sink   watchSink
}

// watchSink writes one batch of a watch's frames, frames[chunkHeadroom:], each under
// its write deadline.
type watchSink interface {
	writeFrames(frames []byte) error
}

// responseSink writes a batch through the ResponseWriter: one Write and one Flush.
type responseSink struct {
	rq        *request
	deadlines *watchDeadlines
}

func (s responseSink) writeFrames(frames []byte) error {
	s.deadlines.before()
	if _, err := s.rq.w.Write(frames[chunkHeadroom:]); err != nil {
		return err
	}
	return s.deadlines.flush()
}

// connSink writes a batch on the hijacked connection as one chunk (see claimWatchConn).
type connSink struct {
	wc        *watchConn
	deadlines *watchDeadlines
}

func (s connSink) writeFrames(frames []byte) error {
	s.deadlines.before()
	return s.wc.writeChunk(frames)
}

// channelBatchEvents bounds the events channelBatches gathers for one batch.
const channelBatchEvents = 256

// channelBatches reads a watch that hands out its events one at a time on its result
// channel (a backend's own watch that is no watch.Batcher) in batches: the event it
// waits for, then those already queued behind it, without waiting for more, until an
// ERROR event (the last of a stream). Before it returns a lone event it lets the
// goroutines ready to run (writers publishing, other watches) go first, once: on a busy
// server more events are queued by then and share the write; on an idle one this
// returns at once.
type channelBatches struct {
	ctx     context.Context
	results <-chan watch.Event
}

func (c channelBatches) NextBatch(dst []watch.Event) ([]watch.Event, bool) {
	select {
	case <-c.ctx.Done():
		return dst, false
	case ev, ok := <-c.results:
		if !ok {
			return dst, false
		}
		dst = append(dst, ev)
	}
	yielded := false
	for len(dst) < channelBatchEvents && dst[len(dst)-1].Type != watch.Error {
		select {
		case ev, ok := <-c.results:
			if !ok {
				return dst, true // the next call reports the end
			}
			dst = append(dst, ev)
			continue
		default:
		}
		if yielded {
			break
		}
		yielded = true
		runtime.Gosched()
	}
	return dst, true
}

// streamBatches writes the events of a watch that hands them out in batches (see
// watch.Batcher): each batch, every event the watch had for this stream when it was
// read, is written in one Write and one Flush (see writeEvents). On a busy server a
// stream thus costs one wake-up and one write(2) for all the events published while it
// was writing, not one per event. The watch is stopped at the timeout, which ends
// NextBatch; the request's context, which the watch was made with, ends it too.
func (rq *request) streamBatches(ws *watchStream, wi watch.Interface, bw watch.Batcher, timeout time.Duration) {
	timer := time.AfterFunc(timeout, wi.Stop)
	defer timer.Stop()
	var batch []watch.Event
	for {
		var ok bool
		batch, ok = bw.NextBatch(batch[:0])
		if !ok {
			return
		}
		end, err := rq.writeEvents(ws, batch)
		clear(batch) // the objects are the history's: do not keep them alive
		if err != nil {
			rq.h.log.Warn("rest: watch stream ended", "path", rq.r.URL.Path, "err", err)
			return
		}
		if end {
			return
		}
	}
}

// writeEvents writes the frames of evs in batches of about watchBatchBytes, each in one
// write (see watchSink). end reports an ERROR event, the last of a stream: the events
// after it are not written.
func (rq *request) writeEvents(ws *watchStream, evs []watch.Event) (end bool, err error) {
	buf := watchFrames.Get().(*[]byte)
	frames := append((*buf)[:0], make([]byte, chunkHeadroom)...)
	var encErr error
	for _, ev := range evs {
		if frames, encErr = rq.appendEventCached(ws, frames, ev); encErr != nil {
			end = true
			break
		}
		if ev.Type == watch.Error {
			end = true
			break
		}
		if len(frames)-chunkHeadroom >= watchBatchBytes {
			if err = ws.sink.writeFrames(frames); err != nil {
				break
			}
			frames = frames[:chunkHeadroom]
		}
	}
	if err == nil && len(frames) > chunkHeadroom {
		// The events gathered before one that failed to encode are sent, as they
		// were when each event was written on its own.
		err = ws.sink.writeFrames(frames)
	}
	if cap(frames) <= 2*watchBatchBytes { // one large object's buffer is not kept
		*buf = frames[:0]
		watchFrames.Put(buf)
	}
	if err == nil {
		err = encErr
	}
	return end, err
}

// watchBatchBytes bounds the frames a watch gathers for one write: the events of a batch
// are written together until the frames reach this size. On a hijacked connection a
// batch is one write(2) whatever its size, so a larger bound saves writes when a watcher
// is behind (at 8 KB a batch of 2 KB events held at most five); the buffer is held only
// while the batch is written, so 1,000 idle watches keep none.
const watchBatchBytes = 32 << 10

// watchFrames holds the buffers of watch batches between writes: a watch holds one only
// while it writes, so that a thousand watches waiting for events do not each keep a
// batch's worth of memory.
var watchFrames = sync.Pool{New: func() any { return new([]byte) }}

// appendEventCached appends the frame of one event, encoding its object at most once
// per version and media type across all the watches that receive the same change.
func (rq *request) appendEventCached(ws *watchStream, dst []byte, ev watch.Event) ([]byte, error) {
	data, err := ev.Encoded(ws.key, func(k scheme.Kinded) ([]byte, error) {
		return rq.encodeEventObject(ws.out, ev.Type, k)
	})
	if err != nil {
		data, err = rq.encodeEventObject(ws.out, watch.Error, apierrors.NewInternalError(err))
		if err != nil {
			return dst, err
		}
		ev.Type = watch.Error
	}
	ws.events.count(len(data))
	return ws.framer.AppendEvent(dst, string(ev.Type), data), nil
}

func (rq *request) writeEvent(out output, framer codec.EventFramer, ev watch.Event) {
	data, err := rq.encodeEventObject(out, ev.Type, ev.Object)
	if err != nil {
		return
	}
	_, _ = rq.w.Write(framer.AppendEvent(nil, string(ev.Type), data))
}

// encodeEventObject converts an event object to the URL version (bookmarks and errors
// are sent as they are) and to the Accept header's target (PartialObjectMetadata,
// Table), and encodes it.
func (rq *request) encodeEventObject(out output, typ watch.EventType, k scheme.Kinded) ([]byte, error) {
	if obj, ok := k.(scheme.Object); ok && typ != watch.Error {
		if typ == watch.Bookmark {
			c := scheme.DeepCopy(obj)
			c.GetObjectKind().SetGroupVersionKind(rq.gvk)
			k = c
		} else {
			conv, err := rq.h.reg.SharedAs(obj, rq.gv)
			if err != nil {
				return nil, err
			}
			k = conv
		}
		switch {
		case out.As == asTable && typ == watch.Bookmark:
			// A bookmark carries only its resourceVersion (and annotations): an
			// empty table at that version.
			tbl, err := rq.table(k)
			if err != nil {
				return nil, err
			}
			if t, ok := tbl.(*table.Table); ok {
				t.Rows = []table.TableRow{}
			}
			k = tbl
		case out.As == asTable:
			tbl, err := rq.table(k)
			if err != nil {
				return nil, err
			}
			k = tbl
		case out.As != "":
			pm, err := toPartialMetadata(k, asPartialObjectMetadata)
			if err != nil {
				return nil, err
			}
			k = pm
		}
	}
	var buf bytes.Buffer
	if err := out.Serializer.Encode(&buf, k); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
