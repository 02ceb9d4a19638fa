package protobuf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/watch"
)

// Kubernetes streams protobuf watch events as frames: a 4-byte big-endian length,
// then a meta/v1 WatchEvent {type=1, object=2 RawExtension{raw=1}} without envelope,
// whose raw holds the enveloped object.

// AppendWatchEvent appends the WatchEvent message (no envelope, no frame header) of an
// event type and an already encoded (enveloped) object.
func AppendWatchEvent(b []byte, typ string, object []byte) []byte {
	b = appendString(b, 1, typ)
	b, start := beginMessage(b, 2)
	if object != nil {
		b = appendBytesField(b, rawExtensionNumber, object)
	}
	return endMessage(b, start)
}

// DecodeWatchEvent reads a WatchEvent message; object aliases data.
func DecodeWatchEvent(data []byte) (typ string, object []byte, err error) {
	r := reader{b: data, msg: "WatchEvent"}
	for {
		ok, err := r.next()
		if err != nil || !ok {
			return typ, object, err
		}
		switch r.num {
		case 1:
			typ, err = r.string()
		case 2:
			var v []byte
			if v, err = r.bytes(); err == nil {
				rr := reader{b: v, msg: "RawExtension"}
				for {
					var more bool
					if more, err = rr.next(); err != nil || !more {
						break
					}
					if rr.num == rawExtensionNumber {
						object, err = rr.bytes()
					} else {
						err = rr.skip()
					}
					if err != nil {
						break
					}
				}
			}
		default:
			err = r.skip()
		}
		if err != nil {
			return "", nil, err
		}
	}
}

// EncodeEvent writes one watch event as a frame. The object is encoded with
// ev.Encoded, so watchers sharing a published change share its encoding.
func (s *Serializer) EncodeEvent(w io.Writer, ev watch.Event) error {
	obj, err := ev.Encoded(encodedKey, func(o scheme.Kinded) ([]byte, error) {
		gvk := o.GetObjectKind().GroupVersionKind()
		return s.AppendAs(nil, gvk, o)
	})
	if err != nil {
		return err
	}
	return codec.WriteAppended(w, ev, func(b []byte) ([]byte, error) {
		return s.AppendEvent(b, string(ev.Type), obj), nil
	})
}

// StreamContentType returns application/vnd.kubernetes.protobuf;stream=watch, the
// Content-Type of a stream of length-prefixed frames.
func (s *Serializer) StreamContentType() string { return codec.MediaTypeProtobuf + ";stream=watch" }

// AppendEvent appends one watch event as a frame of the stream: a 4-byte big-endian
// length, then the WatchEvent message of eventType and object, an enveloped object
// as Encode writes it.
func (s *Serializer) AppendEvent(dst []byte, eventType string, object []byte) []byte {
	dst = append(dst, 0, 0, 0, 0)
	start := len(dst)
	dst = AppendWatchEvent(dst, eventType, object)
	binary.BigEndian.PutUint32(dst[start-4:], uint32(len(dst)-start))
	return dst
}

// encodedKey names this serializer's object encoding in watch.Event's cache.
var encodedKey any = struct{ mediaType string }{"application/vnd.kubernetes.protobuf"}

// DecodeEvent reads the body of one frame: the event type and its object, decoded
// into into when given (see Decode).
func (s *Serializer) DecodeEvent(frame []byte, into scheme.Kinded) (watch.Event, error) {
	typ, object, err := DecodeWatchEvent(frame)
	if err != nil {
		return watch.Event{}, err
	}
	res, err := s.Decode(object, nil, into)
	if err != nil {
		return watch.Event{}, fmt.Errorf("watch event %s: %w", typ, err)
	}
	return watch.Event{Type: watch.EventType(typ), Object: res.Object}, nil
}

// FrameWriter writes length-prefixed frames: 4-byte big-endian length, then the data.
type FrameWriter struct {
	w io.Writer
}

// NewFrameWriter returns a FrameWriter writing to w.
func NewFrameWriter(w io.Writer) *FrameWriter { return &FrameWriter{w: w} }

// Write writes p as one frame, header and body in one Write.
func (f *FrameWriter) Write(p []byte) (int, error) {
	if uint64(len(p)) > 1<<32-1 {
		return 0, fmt.Errorf("protobuf frame of %d bytes is too large", len(p))
	}
	b := make([]byte, 4, 4+len(p))
	binary.BigEndian.PutUint32(b, uint32(len(p)))
	if _, err := f.w.Write(append(b, p...)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// DefaultMaxFrameSize bounds a frame's length when the reader is given none.
const DefaultMaxFrameSize = 64 << 20

// ErrFrameTooLarge is a frame header claiming more than the reader's maximum.
var ErrFrameTooLarge = errors.New("protobuf frame exceeds the maximum size")

// FrameReader reads length-prefixed frames. Memory grows with the bytes actually
// read, never with what a header claims.
type FrameReader struct {
	r   io.Reader
	max int
	buf []byte
}

// NewFrameReader returns a FrameReader over r accepting frames up to maxSize bytes
// (DefaultMaxFrameSize when 0 or less).
func NewFrameReader(r io.Reader, maxSize int) *FrameReader {
	if maxSize <= 0 {
		maxSize = DefaultMaxFrameSize
	}
	return &FrameReader{r: r, max: maxSize}
}

// ReadFrame returns the next frame's body, valid until the next call. It returns
// io.EOF at a clean end of stream and io.ErrUnexpectedEOF inside a frame.
func (f *FrameReader) ReadFrame() ([]byte, error) {
	var h [4]byte
	if _, err := io.ReadFull(f.r, h[:]); err != nil {
		return nil, err
	}
	n := int(binary.BigEndian.Uint32(h[:]))
	if n > f.max {
		return nil, fmt.Errorf("%w: %d > %d bytes", ErrFrameTooLarge, n, f.max)
	}
	const chunk = 64 << 10
	f.buf = f.buf[:0]
	for len(f.buf) < n {
		k := min(n-len(f.buf), chunk)
		if cap(f.buf)-len(f.buf) < k {
			f.buf = append(f.buf[:cap(f.buf)], make([]byte, k)...)[:len(f.buf)]
		}
		m, err := io.ReadFull(f.r, f.buf[len(f.buf):len(f.buf)+k])
		f.buf = f.buf[:len(f.buf)+m]
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
	return f.buf, nil
}
