package cbor

import (
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// CBOR major types.
const (
	majorUint   = 0
	majorNegInt = 1
	majorBytes  = 2
	majorText   = 3
	majorArray  = 4
	majorMap    = 5
	majorTag    = 6
	majorSimple = 7
)

// tagSelfDescribed is the self-described CBOR tag (55799), encoded 0xd9 0xd9 0xf7.
const tagSelfDescribed = 55799

// errIncomplete says the input ends inside a data item; a stream reader reads more.
var errIncomplete = io.ErrUnexpectedEOF

// scanner reads CBOR data item heads and skips items over a byte slice, bounds-checked
// and depth-limited, without building values. It never allocates per item.
type scanner struct {
	data  []byte
	pos   int
	depth int
}

// head reads one data item head: major type, additional information and argument.
// For indefinite lengths (additional information 31) arg is 0.
func (s *scanner) head() (major, info byte, arg uint64, err error) {
	if s.pos >= len(s.data) {
		return 0, 0, 0, errIncomplete
	}
	b := s.data[s.pos]
	major, info = b>>5, b&0x1f
	s.pos++
	switch {
	case info < 24:
		return major, info, uint64(info), nil
	case info <= 27:
		n := 1 << (info - 24)
		if len(s.data)-s.pos < n {
			return 0, 0, 0, errIncomplete
		}
		for _, c := range s.data[s.pos : s.pos+n] {
			arg = arg<<8 | uint64(c)
		}
		s.pos += n
		return major, info, arg, nil
	case info == 31 && (major == majorBytes || major == majorText || major == majorArray || major == majorMap || major == majorSimple):
		return major, info, 0, nil
	}
	return 0, 0, 0, fmt.Errorf("cbor: invalid additional information %d for major type %d at byte offset %d", info, major, s.pos-1)
}

// enter counts one level of nesting and fails beyond maxNestedLevels.
func (s *scanner) enter() error {
	s.depth++
	if s.depth > maxNestedLevels {
		return fmt.Errorf("cbor: exceeded max nested level %d", maxNestedLevels)
	}
	return nil
}

// skip moves past one complete data item, checking that it is well formed.
func (s *scanner) skip() error {
	major, info, arg, err := s.head()
	if err != nil {
		return err
	}
	switch major {
	case majorUint, majorNegInt:
		return nil
	case majorBytes, majorText:
		if info == 31 {
			return s.skipChunks(major)
		}
		return s.skipBytes(arg)
	case majorArray, majorMap:
		if err := s.enter(); err != nil {
			return err
		}
		err := s.skipItems(major, info, arg)
		s.depth--
		return err
	case majorTag:
		if err := s.enter(); err != nil {
			return err
		}
		err := s.skip()
		s.depth--
		return err
	default: // simple values and floats
		if info == 31 {
			return fmt.Errorf("cbor: unexpected break at byte offset %d", s.pos-1)
		}
		if info == 24 && arg < 32 {
			return fmt.Errorf("cbor: invalid simple value %d at byte offset %d", arg, s.pos-2)
		}
		return nil
	}
}

// skipItems skips the content of an array or map whose head was just read. It has no
// defer (skip recurses once per nested item, and a deferred call there costs more
// than the skipping).
func (s *scanner) skipItems(major, info byte, arg uint64) error {
	per := uint64(1)
	if major == majorMap {
		per = 2
	}
	if info == 31 {
		for {
			if done, err := s.atBreak(); done || err != nil {
				return err
			}
			for i := uint64(0); i < per; i++ {
				if err := s.skip(); err != nil {
					return err
				}
			}
		}
	}
	// Every item takes at least one byte: a count beyond the remaining input is
	// incomplete without looping over it.
	if arg > uint64(len(s.data)-s.pos) {
		return errIncomplete
	}
	for n := arg * per; n > 0; n-- {
		// Short strings and small integers, most of any object, inline.
		if s.pos < len(s.data) {
			b := s.data[s.pos]
			if m, ai := b>>5, b&0x1f; ai < 24 {
				switch m {
				case majorUint, majorNegInt:
					s.pos++
					continue
				case majorBytes, majorText:
					if int(ai) < len(s.data)-s.pos {
						s.pos += 1 + int(ai)
						continue
					}
				}
			}
		}
		if err := s.skip(); err != nil {
			return err
		}
	}
	return nil
}

func (s *scanner) skipBytes(n uint64) error {
	if n > uint64(len(s.data)-s.pos) {
		return errIncomplete
	}
	s.pos += int(n)
	return nil
}

// skipChunks skips the definite-length chunks of an indefinite-length string.
func (s *scanner) skipChunks(major byte) error {
	for {
		if done, err := s.atBreak(); done || err != nil {
			return err
		}
		m, info, arg, err := s.head()
		if err != nil {
			return err
		}
		if m != major || info == 31 {
			return fmt.Errorf("cbor: wrong chunk in indefinite-length string at byte offset %d", s.pos-1)
		}
		if err := s.skipBytes(arg); err != nil {
			return err
		}
	}
}

// atBreak reports whether the next byte is the break that ends an indefinite-length
// item, and consumes it; input that ends before it is incomplete.
func (s *scanner) atBreak() (bool, error) {
	if s.pos >= len(s.data) {
		return false, errIncomplete
	}
	if s.data[s.pos] == 0xff {
		s.pos++
		return true, nil
	}
	return false, nil
}

// skipSelfDescribed moves past any self-described CBOR tags before a data item.
func (s *scanner) skipSelfDescribed() {
	for len(s.data)-s.pos >= 3 && s.data[s.pos] == 0xd9 && s.data[s.pos+1] == 0xd9 && s.data[s.pos+2] == 0xf7 {
		s.pos += 3
	}
}

// errNotString says a key or value that must be a string is not one.
var errNotString = errors.New("cbor: not a string")

// str reads a text or byte string, definite or indefinite length. The result aliases
// the input when definite, else it is assembled in buf.
func (s *scanner) str(buf []byte) ([]byte, error) {
	start := s.pos
	major, info, arg, err := s.head()
	if err != nil {
		return nil, err
	}
	if major != majorText && major != majorBytes {
		s.pos = start
		return nil, errNotString
	}
	if info != 31 {
		if err := s.skipBytes(arg); err != nil {
			return nil, err
		}
		b := s.data[s.pos-int(arg) : s.pos]
		if major == majorText && !utf8.Valid(b) {
			return nil, fmt.Errorf("cbor: invalid UTF-8 string at byte offset %d", start)
		}
		return b, nil
	}
	out := buf[:0]
	for {
		done, err := s.atBreak()
		if err != nil {
			return nil, err
		}
		if done {
			if major == majorText && !utf8.Valid(out) {
				return nil, fmt.Errorf("cbor: invalid UTF-8 string at byte offset %d", start)
			}
			return out, nil
		}
		m, ci, carg, err := s.head()
		if err != nil {
			return nil, err
		}
		if m != major || ci == 31 {
			return nil, fmt.Errorf("cbor: wrong chunk in indefinite-length string at byte offset %d", s.pos-1)
		}
		if err := s.skipBytes(carg); err != nil {
			return nil, err
		}
		out = append(out, s.data[s.pos-int(carg):s.pos]...)
	}
}

// container reads an array or map head: count is the number of items (pairs for a
// map), or -1 for indefinite length. ok is false (and nothing is consumed) when the
// next item is not of the wanted major type.
func (s *scanner) container(want byte) (count int, ok bool, err error) {
	start := s.pos
	major, info, arg, err := s.head()
	if err != nil {
		return 0, false, err
	}
	if major != want {
		s.pos = start
		return 0, false, nil
	}
	if info == 31 {
		return -1, true, nil
	}
	if arg > uint64(len(s.data)-s.pos) {
		return 0, false, errIncomplete
	}
	return int(arg), true, nil
}

// more reports whether a container with count items (-1: indefinite) has another
// after i items, consuming the break of an indefinite one.
func (s *scanner) more(count, i int) bool {
	if count >= 0 {
		return i < count
	}
	if s.pos < len(s.data) && s.data[s.pos] == 0xff {
		s.pos++
		return false
	}
	return s.pos < len(s.data)
}

// itemLength returns the length of the first complete data item of data, or
// errIncomplete if data ends inside it.
func itemLength(data []byte) (int, error) {
	s := scanner{data: data}
	if err := s.skip(); err != nil {
		return 0, err
	}
	return s.pos, nil
}
