package cbor

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/watch"
)

// DefaultMaxEventSize is the largest watch event an [EventDecoder] reads unless told
// otherwise: a data item claiming more fails instead of being buffered.
const DefaultMaxEventSize = 64 << 20

// AppendEvent appends one application/cbor-seq entry to dst: the watch event
// {"type": typ, "object": object} as one self-described CBOR data item, byte for byte
// what apimachinery writes for a metav1.WatchEvent. object is the encoded object as
// Encode writes it (its self-described tag is added when missing), typically shared
// between watchers through watch.Event.Encoded.
func AppendEvent(dst []byte, typ watch.EventType, object []byte) []byte {
	dst = appendEventHead(dst, typ)
	if !bytes.HasPrefix(object, selfDescribed) {
		dst = append(dst, selfDescribed...)
	}
	return append(dst, object...)
}

// appendEventHead appends what comes before the object in an event: the tag, the
// map head, the type pair and the "object" key.
func appendEventHead(dst []byte, typ watch.EventType) []byte {
	dst = append(dst, selfDescribed...)
	dst = append(dst, 0xa2) // map of two pairs, keys in length-first order
	dst = append(dst, 0x44, 't', 'y', 'p', 'e')
	dst = appendHead(dst, majorBytes, uint64(len(typ)))
	dst = append(dst, typ...)
	return append(dst, 0x46, 'o', 'b', 'j', 'e', 'c', 't')
}

// EncodeEvent encodes ev.Object and writes the event as one application/cbor-seq entry,
// in one Write. The object is encoded in place after the event's head, in one pooled
// buffer.
func (s *Serializer) EncodeEvent(w io.Writer, ev watch.Event) error {
	buf := getBuffer()
	defer putBuffer(buf)
	buf.Write(appendEventHead(buf.AvailableBuffer(), ev.Type))
	if err := s.Encode(buf, ev.Object); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// StreamContentType returns application/cbor-seq: a CBOR watch is a sequence of data
// items, one per event.
func (s *Serializer) StreamContentType() string { return codec.MediaTypeCBORSeq }

// AppendEvent appends one watch event as one application/cbor-seq data item; see the
// function AppendEvent.
func (s *Serializer) AppendEvent(dst []byte, eventType string, object []byte) []byte {
	return AppendEvent(dst, watch.EventType(eventType), object)
}

// EventDecoder reads watch events from an application/cbor-seq stream, one data item
// at a time, buffering at most MaxEventSize bytes of one event.
type EventDecoder struct {
	// MaxEventSize bounds one event's encoding; 0 means DefaultMaxEventSize.
	MaxEventSize int

	r   io.Reader
	s   *Serializer
	buf []byte // unread input starts at buf[off:]
	off int
	eof bool
}

// NewEventDecoder returns a decoder of the events in r, whose objects s decodes.
func NewEventDecoder(r io.Reader, s *Serializer) *EventDecoder {
	return &EventDecoder{r: r, s: s}
}

// Next returns the type and the encoded object (with its self-described tag) of the
// next event. The object aliases the decoder's buffer until the next call. At the
// end of the stream it returns io.EOF; a stream ending inside an event is
// io.ErrUnexpectedEOF.
func (d *EventDecoder) Next() (watch.EventType, []byte, error) {
	item, err := d.nextItem()
	if err != nil {
		return "", nil, err
	}
	s := scanner{data: item}
	s.skipSelfDescribed()
	count, ok, err := s.container(majorMap)
	if err != nil || !ok {
		return "", nil, fmt.Errorf("cbor: watch event must be a map, got %s", typeName(item, s.pos))
	}
	var typ watch.EventType
	var object []byte
	for i := 0; s.more(count, i); i++ {
		kb, err := s.str(nil)
		if err != nil {
			return "", nil, fmt.Errorf("cbor: watch event key: %w", err)
		}
		start := s.pos
		switch string(kb) {
		case "type":
			tb, err := s.str(nil)
			if err != nil {
				return "", nil, fmt.Errorf("cbor: watch event type: %w", err)
			}
			typ = watch.EventType(tb)
		case "object":
			if err := s.skip(); err != nil {
				return "", nil, err
			}
			object = item[start:s.pos]
		default:
			if err := s.skip(); err != nil {
				return "", nil, err
			}
		}
	}
	if typ == "" {
		return "", nil, errors.New("cbor: watch event has no type")
	}
	if object == nil || bytes.Equal(object, []byte{0xf6}) {
		return "", nil, fmt.Errorf("cbor: %s watch event has no object", typ)
	}
	if !bytes.HasPrefix(object, selfDescribed) {
		object = append(append(make([]byte, 0, len(selfDescribed)+len(object)), selfDescribed...), object...)
	}
	return typ, object, nil
}

// Decode reads the next event and decodes its object with the serializer: ERROR
// events carry a *scheme.Status, others an object of the kind the document names
// (defaults fills what it leaves out, may be nil). Field issues are not reported.
func (d *EventDecoder) Decode(defaults *scheme.GroupVersionKind) (watch.Event, error) {
	typ, object, err := d.Next()
	if err != nil {
		return watch.Event{}, err
	}
	var into scheme.Kinded
	if typ == watch.Error {
		into = &scheme.Status{}
	}
	var res codec.Result
	if into != nil {
		_, err = Unmarshal(object, into)
		res.Object = into
	} else {
		res, err = d.s.Decode(object, defaults, nil)
	}
	if err != nil {
		return watch.Event{}, fmt.Errorf("decoding %s watch event: %w", typ, err)
	}
	return watch.Event{Type: typ, Object: res.Object}, nil
}

// nextItem returns the bytes of the next complete data item, reading as needed.
func (d *EventDecoder) nextItem() ([]byte, error) {
	limit := d.MaxEventSize
	if limit <= 0 {
		limit = DefaultMaxEventSize
	}
	for {
		if avail := d.buf[d.off:]; len(avail) > 0 {
			n, err := itemLength(avail)
			if err == nil {
				if n > limit {
					return nil, fmt.Errorf("cbor: watch event of %d bytes exceeds the limit of %d", n, limit)
				}
				d.off += n
				return avail[:n:n], nil
			}
			if err != errIncomplete {
				return nil, err
			}
			if len(avail) >= limit {
				return nil, fmt.Errorf("cbor: watch event exceeds the limit of %d bytes", limit)
			}
		}
		if d.eof {
			if d.off < len(d.buf) {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, io.EOF
		}
		// Move the unread tail to the front and read more, growing by doubling.
		n := copy(d.buf, d.buf[d.off:])
		d.buf, d.off = d.buf[:n], 0
		if cap(d.buf)-n < 4096 {
			nb := make([]byte, n, max(2*cap(d.buf), 8192))
			copy(nb, d.buf)
			d.buf = nb
		}
		m, err := d.r.Read(d.buf[n:cap(d.buf)])
		d.buf = d.buf[:n+m]
		if errors.Is(err, io.EOF) {
			d.eof = true
		} else if err != nil {
			return nil, err
		}
	}
}
