// Package jsonwire holds the JSON encoders of strings and times that package codec's
// encoder and the audit events' hand-written encoder share: the bytes encoding/json
// writes, without reflection. It is internal and imports only the standard library,
// so that leaf packages (audit) can use it without importing codec.
package jsonwire

import (
	"encoding/binary"
	"time"
	"unicode/utf8"
	"unsafe"
)

// HexDigits are the digits of the \u escapes JSON writes.
const HexDigits = "0123456789abcdef"

// safeASCII marks the ASCII bytes that encoding/json (with HTML escaping) writes as is.
var safeASCII = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// AppendTime appends t in UTC as a JSON string, the bytes of scheme.Time's MarshalJSON
// or, with micro, of scheme.MicroTime's; a zero t is not special-cased.
func AppendTime(b []byte, t time.Time, micro bool) []byte {
	b = append(b, '"')
	b = appendRFC3339(b, t, micro)
	return append(b, '"')
}

// Constants of the word-at-a-time test of safeWord.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// safeWord tells whether all eight bytes of w are safeASCII, eight at a time (object
// names, label values and the like are mostly letters): no byte has its high bit set
// (non-ASCII), is below 0x20, or is one of '"', '\\', '<', '>' and '&'. Each test is
// the classic "has a zero byte" trick on w or on w XOR a repeated byte.
func safeWord(w uint64) bool {
	q, bs, lt, gt, amp := w^('"'*ones), w^('\\'*ones), w^('<'*ones), w^('>'*ones), w^('&'*ones)
	bad := w | // a high bit: not ASCII
		(w-0x20*ones)&^w | // a byte below 0x20
		(q-ones)&^q | (bs-ones)&^bs | (lt-ones)&^lt | (gt-ones)&^gt | (amp-ones)&^amp
	return bad&highs == 0
}

// load64 reads the eight bytes of s at i, which the caller has checked are there, as a
// little-endian word, in one load.
func load64(s string, i int) uint64 {
	return binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))
}

// AppendString appends s as a JSON string the way encoding/json writes it with HTML
// escaping on.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if i+8 <= len(s) && safeWord(load64(s, i)) {
			i += 8
			continue
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if safeASCII[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', HexDigits[c>>4], HexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', HexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// rfc3339Micro is scheme.RFC3339Micro, the layout of meta/v1 MicroTime.
const rfc3339Micro = "2006-01-02T15:04:05.000000Z07:00"

// appendRFC3339 appends t in UTC as time.RFC3339 ("2006-01-02T15:04:05Z") or, with
// micro, scheme.RFC3339Micro ("2006-01-02T15:04:05.000000Z"): the same bytes as
// time.Time.AppendFormat at a tenth of its cost, which parses the layout on every
// call; every object's creationTimestamp and every audit event's two times go through
// it. Years outside 0..9999 take AppendFormat's path.
func appendRFC3339(b []byte, t time.Time, micro bool) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		if micro {
			return t.AppendFormat(b, rfc3339Micro)
		}
		return t.AppendFormat(b, time.RFC3339)
	}
	hour, minute, second := t.Clock()
	b = appendDigits(b, year, 4)
	b = append(b, '-')
	b = appendDigits(b, int(month), 2)
	b = append(b, '-')
	b = appendDigits(b, day, 2)
	b = append(b, 'T')
	b = appendDigits(b, hour, 2)
	b = append(b, ':')
	b = appendDigits(b, minute, 2)
	b = append(b, ':')
	b = appendDigits(b, second, 2)
	if micro {
		b = append(b, '.')
		b = appendDigits(b, t.Nanosecond()/1000, 6)
	}
	return append(b, 'Z')
}

// appendDigits appends the n lowest decimal digits of v >= 0, zero-padded.
func appendDigits(b []byte, v, n int) []byte {
	var d [6]byte
	for i := n - 1; i >= 0; i-- {
		d[i] = byte('0' + v%10)
		v /= 10
	}
	return append(b, d[:n]...)
}
