package protobuf

import (
	"bytes"
	"fmt"
	"io"

	"github.com/apikit-dev/apikit/codec"
	"google.golang.org/protobuf/encoding/protowire"
)

var _ codec.ListStreamer = (*Serializer)(nil)

// keptRecords bounds the encoded items EncodeList keeps from its sizing pass to write
// them without encoding them again: lists up to this size are encoded once, bigger
// ones encode the items past it a second time instead of holding them.
const keptRecords = 256 << 10

// EncodeList writes a list item by item, byte for byte what Encode writes for the whole
// list (see [codec.ListStreamer]). The envelope's raw field is length-prefixed, so the
// items' encoded sizes are summed first; the first keptRecords bytes of items are kept
// from that pass and the rest encoded again as they are written, one at a time. The
// list message is its metadata followed by one items field per item, so the list
// holding one item is the empty list's message followed by that item's field.
func (s *Serializer) EncodeList(w io.Writer, src codec.ListSource) error {
	empty, err := src.EncodeEmpty(s)
	if err != nil || src.Len == 0 {
		if err == nil {
			_, err = w.Write(empty)
		}
		return err
	}
	defer func() { _ = src.Hold(-1) }()
	u, err := DecodeEnvelope(empty)
	if err != nil || u.Raw == nil {
		return codec.ErrListNotStreamable
	}
	// Raw aliases empty: its offset there is what their capacities differ by.
	rawAt := cap(empty) - cap(u.Raw)
	rawHeadAt := rawAt - protowire.SizeVarint(uint64(len(u.Raw))) - protowire.SizeTag(2)
	if rawHeadAt < len(Magic) || empty[rawHeadAt] != byte(2<<3|protowire.BytesType) {
		return codec.ErrListNotStreamable
	}
	head, rawEmpty, tail := empty[:rawHeadAt], u.Raw, empty[rawAt+len(u.Raw):]
	var buf bytes.Buffer
	record := func(i int) ([]byte, error) {
		if err := src.EncodeHolding(s, i, &buf); err != nil {
			return nil, err
		}
		b := buf.Bytes()
		u, err := DecodeEnvelope(b)
		if err != nil || !bytes.HasPrefix(b, head) || !bytes.HasSuffix(b, tail) || !bytes.HasPrefix(u.Raw, rawEmpty) {
			return nil, fmt.Errorf("item %d: %w", i, codec.ErrListNotStreamable)
		}
		return u.Raw[len(rawEmpty):], nil
	}
	var kept []byte
	keptAll := 0 // items 0..keptAll-1 are in kept
	total := 0
	for i := range src.Len {
		r, err := record(i)
		if err != nil {
			return err
		}
		total += len(r)
		if keptAll == i && len(kept)+len(r) <= keptRecords {
			kept = append(kept, r...)
			keptAll++
		}
	}
	out := append(bytes.Clone(head), byte(2<<3|protowire.BytesType))
	out = protowire.AppendVarint(out, uint64(len(rawEmpty)+total))
	out = append(out, rawEmpty...)
	if _, err := w.Write(append(out, kept...)); err != nil {
		return err
	}
	written := len(kept)
	for i := keptAll; i < src.Len; i++ {
		r, err := record(i)
		if err != nil {
			return err
		}
		written += len(r)
		if written > total {
			return fmt.Errorf("item %d encoded longer than when the list was sized: %w", i, codec.ErrListNotStreamable)
		}
		if _, err := w.Write(r); err != nil {
			return err
		}
	}
	if written != total {
		return fmt.Errorf("items encoded to %d bytes, sized at %d: %w", written, total, codec.ErrListNotStreamable)
	}
	_, err = w.Write(tail)
	return err
}
