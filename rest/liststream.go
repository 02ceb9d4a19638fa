package rest

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"sync"

	"github.com/apikit-dev/apikit/audit"
	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
)

// listToSend reads the page of a list response: the store's shared objects when it
// can list them (shared is then true, and nothing may modify the items), else its
// copies.
func (h *Handler) listToSend(ctx context.Context, prefix string, opts storage.ListOptions) (lr *storage.ListResult, shared bool, err error) {
	if sl, ok := h.store.(storage.SharedLister); ok {
		lr, err = sl.ListShared(ctx, prefix, opts)
		return lr, true, err
	}
	lr, err = h.store.List(ctx, prefix, opts)
	return lr, false, err
}

// respondList sends the items of a list read at the URL version, encoded one at a
// time onto the wire: each item is converted to the URL version (and to its Table row
// or PartialObjectMetadata) only when its turn comes, so neither the converted list nor
// its encoding is ever held whole. What goes on the wire is byte for byte what
// respond sends for the whole list. The whole list is built and sent as before where
// streaming cannot apply: no items, HEAD, an audit policy that records response
// bodies, or a media type without a streaming encoder. Pretty-printed JSON (for
// curl and browsers, as kube-apiserver does) is indented as it streams. shared says the
// items are the store's own objects (listToSend), read here without being modified.
func (rq *request) respondList(lr *storage.ListResult, shared bool) {
	// A kind converted many objects at a time (a CRD's conversion webhook) converts the
	// list's items in one call, before they are read one by one.
	if items, ok, err := rq.h.reg.ReadItemsAs(lr.Items, rq.res, rq.gv, shared); err != nil {
		rq.fail(err)
		return
	} else if ok {
		converted := *lr
		converted.Items = items
		lr, shared = &converted, false
	}
	whole := func() {
		objs := lr.Items
		if shared {
			objs = make([]scheme.Object, len(lr.Items))
			for i, o := range lr.Items {
				objs[i] = rq.h.reg.Unshared(o)
			}
		}
		list, err := rq.newListOf(lr, objs)
		if err != nil {
			rq.fail(err)
			return
		}
		rq.respond(http.StatusOK, list)
	}
	if len(lr.Items) == 0 || rq.r.Method == http.MethodHead || rq.auditsResponseBody() {
		whole()
		return
	}
	list, err := rq.newListOf(lr, nil)
	if err != nil {
		rq.fail(err)
		return
	}
	out, st := rq.h.negotiate(rq.r, rq.responseOptions(list))
	if st != nil {
		rq.fail(st)
		return
	}
	streamer, ok := out.Serializer.(codec.ListStreamer)
	if !ok {
		whole()
		return
	}
	src, err := rq.listSource(list, lr.Items, shared, out.As)
	if err != nil {
		whole()
		return
	}
	lw := newListWriter(rq.w, rq.r, func(hdr http.Header) {
		hdr.Set("Content-Type", out.ContentType())
		hdr.Set("X-Content-Type-Options", "nosniff")
		addWarnings(rq.w, rq.warnings)
	})
	if out.MediaType == codec.MediaTypeJSON && prettyPrint(rq.r) {
		// Indented as it streams, byte for byte as respond indents a whole document.
		iw := codec.NewIndentWriter(lw)
		if err = streamer.EncodeList(iw, src); err == nil {
			err = iw.Flush()
		}
	} else {
		err = streamer.EncodeList(lw, src)
	}
	if err == nil {
		err = lw.Close()
	}
	switch {
	case err == nil:
	case !lw.started:
		// Nothing is sent yet: the whole-list path answers, with the Status it gives
		// for this failure (a list that cannot be split is sent whole).
		lw.release()
		whole()
	default:
		// The status line and part of the body are on the wire: a Status now would
		// read as the tail of a 200 list. Breaking the connection (a missing final
		// chunk in HTTP/1.1, a reset stream in HTTP/2) is what tells the client the
		// list is incomplete.
		lw.release()
		if lw.wireErr == nil { // a failed write is a client gone, not a server fault
			rq.h.log.Error("rest: list response failed after it started", "method", rq.r.Method, "path", rq.r.URL.Path, "error", err)
		}
		panic(http.ErrAbortHandler)
	}
}

// newListOf is newList holding objs with the list metadata of lr.
func (rq *request) newListOf(lr *storage.ListResult, objs []scheme.Object) (scheme.ListObject, error) {
	list, err := rq.newList(objs)
	if err != nil {
		return nil, err
	}
	list.SetResourceVersion(lr.ResourceVersion)
	list.SetContinue(lr.Continue)
	list.SetRemainingItemCount(lr.RemainingItemCount)
	return list, nil
}

// errNotStreamed says a response is sent whole: an "as" target of a list that is not
// streamed, or Table options the whole-list path answers with its Status.
var errNotStreamed = errors.New("response is not streamed")

// listSource describes how the list's items become the elements written for the "as"
// target: the list's own items, a PartialObjectMetadataList's or a Table's rows. shared
// says objs are the store's own objects: each is then read as a watch event's object is
// (registry.Store.SharedAs), copied first if reading would change it.
func (rq *request) listSource(list scheme.ListObject, objs []scheme.Object, shared bool, as string) (codec.ListSource, error) {
	readAs := rq.h.reg.ReadAs
	if shared {
		readAs = rq.h.reg.SharedAs
	}
	item := func(i int) (scheme.Object, error) { return readAs(objs[i], rq.gv) }
	switch as {
	case "":
		one := make([]scheme.Object, 1)
		// slot is the list's one item when the list holds copies (not pointers): the
		// next item is copied over it instead of a new one-item slice being made.
		var slot reflect.Value
		return codec.ListSource{List: list, Len: len(objs), Hold: func(i int) error {
			if i < 0 {
				slot = reflect.Value{}
				return scheme.SetList(list, one[:0])
			}
			o, err := item(i)
			if err != nil {
				return err
			}
			ov := reflect.ValueOf(o)
			if slot.IsValid() && ov.Kind() == reflect.Pointer && ov.Type().Elem() == slot.Type() {
				slot.Set(ov.Elem())
				return nil
			}
			one[0] = o
			if err := scheme.SetList(list, one); err != nil {
				return err
			}
			if held, err := scheme.ExtractList(list); err == nil && len(held) == 1 {
				if hv := reflect.ValueOf(held[0]); hv.Kind() == reflect.Pointer && ov.Kind() == reflect.Pointer && hv.Pointer() != ov.Pointer() {
					slot = hv.Elem()
				}
			}
			return nil
		}}, nil
	case asPartialObjectMetadataList:
		tm := scheme.TypeMeta{APIVersion: scheme.MetaGroupVersion.String(), Kind: asPartialObjectMetadata}
		pl := &scheme.PartialObjectMetadataList{
			TypeMeta: scheme.TypeMeta{APIVersion: scheme.MetaGroupVersion.String(), Kind: asPartialObjectMetadataList},
			ListMeta: scheme.ListMeta{ResourceVersion: list.GetResourceVersion(), Continue: list.GetContinue(), RemainingItemCount: list.GetRemainingItemCount()},
		}
		one := make([]scheme.PartialObjectMetadata, 1)
		return codec.ListSource{List: pl, Len: len(objs), Hold: func(i int) error {
			if i < 0 {
				pl.Items = one[:0]
				return nil
			}
			o, err := item(i)
			if err != nil {
				return err
			}
			one[0] = scheme.PartialObjectMetadata{TypeMeta: tm, ObjectMeta: metaOf(o)}
			pl.Items = one
			return nil
		}}, nil
	case asTable:
		// A bad option or printer is answered by the whole-list path, with its Status.
		p, opts, err := rq.tablePrinter()
		if err != nil {
			return codec.ListSource{}, errNotStreamed
		}
		t, err := p.Objects(nil, opts)
		if err != nil {
			return codec.ListSource{}, errNotStreamed
		}
		t.ResourceVersion = list.GetResourceVersion()
		t.Continue = list.GetContinue()
		t.RemainingItemCount = list.GetRemainingItemCount()
		return codec.ListSource{List: t, Len: len(objs), Hold: func(i int) error {
			t.Rows = t.Rows[:0:0]
			if i < 0 {
				return nil
			}
			o, err := item(i)
			if err != nil {
				return err
			}
			row, err := p.Row(o, opts)
			if err != nil {
				return err
			}
			t.Rows = append(t.Rows, row)
			return nil
		}}, nil
	}
	return codec.ListSource{}, errNotStreamed
}

// auditsResponseBody reports whether the request's audit event records the response
// object, which needs the whole list.
func (rq *request) auditsResponseBody() bool {
	rec := rq.h.auditRecordOf(rq.r)
	return rec != nil && rec.ev.Level == audit.LevelRequestResponse
}

// listWriter is the body of a streamed list response. Like the writer kube-apiserver's
// SerializeObject encodes into, it holds the first gzipThreshold bytes back: a
// response that ends within them is sent as respond sends it (one Write, headers
// set, never compressed), and one that grows past them is sent compressed when the
// client accepts gzip — the same decision respond makes on the whole body — then
// written through a fixed buffer as it is encoded. So a list response holds at most
// gzipThreshold bytes plus the buffers (and the compressor's window) however long it is.
// Every buffer comes from a pool and goes back to it once the response no longer needs
// it, so a list allocates next to nothing for its bytes.
type listWriter struct {
	w      http.ResponseWriter
	r      *http.Request
	header func(http.Header)
	// held is what is held back, in a buffer of heldBuffers (nil before the first Write).
	held    *[]byte
	started bool
	body    *bufio.Writer
	zw      *gzip.Writer
	// wireErr is the first error writing to w.
	wireErr error
}

func newListWriter(w http.ResponseWriter, r *http.Request, header func(http.Header)) *listWriter {
	return &listWriter{w: w, r: r, header: header}
}

// listBodyBuffer is the size of the buffer between the encoder and the connection.
const listBodyBuffer = 32 << 10

var (
	listBodyBuffers = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, listBodyBuffer) }}
	heldBuffers     = sync.Pool{New: func() any {
		b := make([]byte, 0, gzipThreshold)
		return &b
	}}
	gzipWriters = sync.Pool{New: func() any {
		zw, _ := gzip.NewWriterLevel(nil, gzip.DefaultCompression)
		return zw
	}}
)

func (lw *listWriter) Write(p []byte) (int, error) {
	if !lw.started {
		if lw.held == nil {
			lw.held = heldBuffers.Get().(*[]byte)
		}
		if held := *lw.held; len(held)+len(p) <= gzipThreshold {
			*lw.held = append(held, p...)
			return len(p), nil
		}
		if err := lw.start(true); err != nil {
			return 0, err
		}
	}
	if lw.zw != nil {
		return lw.zw.Write(p)
	}
	return lw.body.Write(p)
}

// start sends the header and what was held back; long is whether the body is past
// the gzip threshold.
func (lw *listWriter) start(long bool) error {
	lw.started = true
	hdr := lw.w.Header()
	lw.header(hdr)
	if !long {
		lw.w.WriteHeader(http.StatusOK)
		var err error
		if lw.held != nil {
			_, err = wireWriter{lw}.Write(*lw.held)
		}
		lw.releaseHeld()
		return err
	}
	lw.body = listBodyBuffers.Get().(*bufio.Writer)
	lw.body.Reset(wireWriter{lw})
	if acceptsGzip(lw.r) {
		hdr.Set("Content-Encoding", "gzip")
		hdr.Add("Vary", "Accept-Encoding")
		lw.zw = gzipWriters.Get().(*gzip.Writer)
		lw.zw.Reset(lw.body)
	}
	lw.w.WriteHeader(http.StatusOK)
	var err error
	if lw.held != nil {
		if lw.zw != nil {
			_, err = lw.zw.Write(*lw.held)
		} else {
			_, err = lw.body.Write(*lw.held)
		}
	}
	lw.releaseHeld()
	return err
}

// releaseHeld returns the buffer of what was held back to its pool: neither the
// connection nor the compressor keeps a slice passed to Write.
func (lw *listWriter) releaseHeld() {
	if lw.held != nil {
		*lw.held = (*lw.held)[:0]
		heldBuffers.Put(lw.held)
		lw.held = nil
	}
}

// Close sends what is held back or buffered and ends the compressed stream.
func (lw *listWriter) Close() error {
	if !lw.started {
		return lw.start(false)
	}
	var err error
	if lw.zw != nil {
		err = lw.zw.Close()
	}
	if ferr := lw.body.Flush(); err == nil {
		err = ferr
	}
	lw.release()
	if err != nil {
		return fmt.Errorf("writing the list response: %w", err)
	}
	return nil
}

// wireWriter writes to the connection, noting the first failure.
type wireWriter struct{ lw *listWriter }

func (ww wireWriter) Write(p []byte) (int, error) {
	n, err := ww.lw.w.Write(p)
	if err != nil && ww.lw.wireErr == nil {
		ww.lw.wireErr = err
	}
	return n, err
}

// release returns the buffers to their pools.
func (lw *listWriter) release() {
	lw.releaseHeld()
	if lw.zw != nil {
		lw.zw.Reset(io.Discard)
		gzipWriters.Put(lw.zw)
		lw.zw = nil
	}
	if lw.body != nil {
		lw.body.Reset(nil)
		listBodyBuffers.Put(lw.body)
		lw.body = nil
	}
}
