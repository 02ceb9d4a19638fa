package codec

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Unmarshal decodes the JSON document data into v, which must be a non-nil pointer.
// It follows encoding/json's rules except that object keys match field names
// case-sensitively and untyped integers become int64 (see the package doc). Unknown and
// duplicate fields do not fail the decode: they are returned as issues. A decode error
// (malformed JSON, a value of the wrong type) is returned as err; v may then be
// partly filled.
func Unmarshal(data []byte, v any) (FieldIssues, error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return nil, fmt.Errorf("codec: Unmarshal needs a non-nil pointer, got %T", v)
	}
	d := decodeState{data: data}
	if err := d.top(func() error { return decoderFor(rv.Type().Elem())(&d, rv.Elem()) }); err != nil {
		return d.issues, err
	}
	return d.issues, nil
}

// DecodeAny decodes a JSON document into the untyped form: map[string]any, []any,
// string, bool, int64, float64 or nil. Duplicate fields are reported as issues.
func DecodeAny(data []byte) (any, FieldIssues, error) {
	d := decodeState{data: data}
	var out any
	err := d.top(func() error {
		var err error
		out, err = d.anyValue()
		return err
	})
	return out, d.issues, err
}

// decodeState is one decode in progress: the input, the read position, the nesting
// depth, the path to the current value (for issues and errors) and what was found.
type decodeState struct {
	data    []byte
	pos     int
	depth   int
	path    []pathElem
	issues  FieldIssues
	seen    map[FieldIssue]struct{}
	scratch []byte
	keys    map[string]string // interned object keys of untyped values
}

// intern returns key as a string, sharing one allocation among the repeated keys of
// untyped objects (every item of a list has the same field names).
func (d *decodeState) intern(key []byte) string {
	if len(key) > 32 {
		return string(key)
	}
	if s, ok := d.keys[string(key)]; ok {
		return s
	}
	s := string(key)
	if d.keys == nil {
		d.keys = make(map[string]string, 16)
	}
	if len(d.keys) < 512 {
		d.keys[s] = s
	}
	return s
}

// pathElem is one step of the path to the current value: a key, or an index when
// key is empty and index >= 0.
type pathElem struct {
	key   string
	index int
}

func (d *decodeState) top(decode func() error) error {
	d.skipWS()
	if d.pos >= len(d.data) {
		return d.syntaxError("unexpected end of JSON input")
	}
	if err := decode(); err != nil {
		return err
	}
	d.skipWS()
	if d.pos < len(d.data) {
		return d.syntaxError(fmt.Sprintf("invalid character %s after top-level value", quoteChar(d.data[d.pos])))
	}
	return nil
}

func (d *decodeState) pushKey(k string) { d.path = append(d.path, pathElem{key: k, index: -1}) }
func (d *decodeState) pushIndex(i int)  { d.path = append(d.path, pathElem{index: i}) }
func (d *decodeState) pop()             { d.path = d.path[:len(d.path)-1] }

// pathString renders the current path like sigs.k8s.io/json: keys joined by ".",
// indexes as "[i]".
func (d *decodeState) pathString() string {
	var b []byte
	for _, e := range d.path {
		if e.index >= 0 && e.key == "" {
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(e.index), 10)
			b = append(b, ']')
			continue
		}
		if len(b) > 0 {
			b = append(b, '.')
		}
		b = append(b, e.key...)
	}
	return string(b)
}

// issue records an unknown or duplicate field named field inside the current value.
func (d *decodeState) issue(t IssueType, field string) {
	if len(d.issues) >= maxIssues {
		return
	}
	p := d.pathString()
	if p != "" {
		p += "." + field
	} else {
		p = field
	}
	x := FieldIssue{Type: t, Path: p}
	if d.seen == nil {
		d.seen = map[FieldIssue]struct{}{}
	}
	if _, ok := d.seen[x]; ok {
		return
	}
	d.seen[x] = struct{}{}
	d.issues = append(d.issues, x)
}

func (d *decodeState) syntaxError(msg string) error {
	return &SyntaxError{Msg: msg, Offset: int64(d.pos)}
}

func (d *decodeState) typeError(value string, t reflect.Type, offset int) error {
	return &TypeError{Value: value, Type: t, Path: d.pathString(), Offset: int64(offset)}
}

func quoteChar(c byte) string {
	if c == '\'' {
		return `'\''`
	}
	if c == '"' {
		return `'"'`
	}
	s := strconv.Quote(string(rune(c)))
	return "'" + s[1:len(s)-1] + "'"
}

func (d *decodeState) unexpected(context string) error {
	if d.pos >= len(d.data) {
		return d.syntaxError("unexpected end of JSON input")
	}
	return d.syntaxError(fmt.Sprintf("invalid character %s %s", quoteChar(d.data[d.pos]), context))
}

func (d *decodeState) skipWS() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// peek skips whitespace and returns the next byte, or 0 at the end of input.
func (d *decodeState) peek() byte {
	d.skipWS()
	if d.pos >= len(d.data) {
		return 0
	}
	return d.data[d.pos]
}

func (d *decodeState) enter() error {
	d.depth++
	if d.depth > MaxDepth {
		return d.syntaxError(fmt.Sprintf("exceeded max depth of %d", MaxDepth))
	}
	return nil
}

// objectStart consumes '{' (already peeked) and reports whether the object is empty.
func (d *decodeState) objectStart() (empty bool, err error) {
	if err := d.enter(); err != nil {
		return false, err
	}
	d.pos++
	if d.peek() == '}' {
		d.pos++
		d.depth--
		return true, nil
	}
	return false, nil
}

// objectKey reads `"key" :` and returns the unquoted key, valid until the next read.
func (d *decodeState) objectKey() ([]byte, error) {
	if d.peek() != '"' {
		return nil, d.unexpected("looking for beginning of object key string")
	}
	key, _, err := d.readString()
	if err != nil {
		return nil, err
	}
	if d.peek() != ':' {
		return nil, d.unexpected("after object key")
	}
	d.pos++
	d.skipWS()
	return key, nil
}

// objectNext consumes ',' or '}' after a member and reports whether the object ended.
func (d *decodeState) objectNext() (done bool, err error) {
	switch d.peek() {
	case ',':
		d.pos++
		return false, nil
	case '}':
		d.pos++
		d.depth--
		return true, nil
	}
	return false, d.unexpected("after object key:value pair")
}

func (d *decodeState) arrayStart() (empty bool, err error) {
	if err := d.enter(); err != nil {
		return false, err
	}
	d.pos++
	if d.peek() == ']' {
		d.pos++
		d.depth--
		return true, nil
	}
	return false, nil
}

func (d *decodeState) arrayNext() (done bool, err error) {
	switch d.peek() {
	case ',':
		d.pos++
		d.skipWS()
		return false, nil
	case ']':
		d.pos++
		d.depth--
		return true, nil
	}
	return false, d.unexpected("after array element")
}

// readString reads a JSON string at d.pos and returns its unquoted bytes. When the
// string has escapes or non-ASCII bytes the result lives in d.scratch (scratch is
// true) and is only valid until the next read.
func (d *decodeState) readString() (s []byte, scratch bool, err error) {
	start := d.pos + 1
	for i := start; i < len(d.data); i++ {
		c := d.data[i]
		switch {
		case c == '"':
			d.pos = i + 1
			return d.data[start:i], false, nil
		case c == '\\' || c < 0x20 || c >= utf8.RuneSelf:
			return d.readStringSlow(start, i)
		}
	}
	d.pos = len(d.data)
	return nil, false, d.syntaxError("unexpected end of JSON input")
}

func (d *decodeState) readStringSlow(start, i int) ([]byte, bool, error) {
	b := append(d.scratch[:0], d.data[start:i]...)
	for i < len(d.data) {
		c := d.data[i]
		switch {
		case c == '"':
			d.pos = i + 1
			d.scratch = b
			return b, true, nil
		case c < 0x20:
			d.pos = i
			return nil, false, d.syntaxError(fmt.Sprintf("invalid character %s in string literal", quoteChar(c)))
		case c == '\\':
			if i+1 >= len(d.data) {
				d.pos = len(d.data)
				return nil, false, d.syntaxError("unexpected end of JSON input")
			}
			e := d.data[i+1]
			switch e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, ok := hex4(d.data, i+2)
				if !ok {
					d.pos = i + 1
					return nil, false, d.syntaxError("invalid \\u escape in string literal")
				}
				i += 6
				if utf16.IsSurrogate(r) {
					if r2, ok := hex4(d.data, i+2); ok && i+1 < len(d.data) && d.data[i] == '\\' && d.data[i+1] == 'u' {
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							b = utf8.AppendRune(b, dec)
							i += 6
							continue
						}
					}
					r = utf8.RuneError
				}
				b = utf8.AppendRune(b, r)
				continue
			default:
				d.pos = i + 1
				return nil, false, d.syntaxError(fmt.Sprintf("invalid character %s in string escape code", quoteChar(e)))
			}
			i += 2
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRune(d.data[i:])
			if r == utf8.RuneError && size == 1 {
				b = utf8.AppendRune(b, utf8.RuneError)
			} else {
				b = append(b, d.data[i:i+size]...)
			}
			i += size
		}
	}
	d.pos = len(d.data)
	d.scratch = b
	return nil, false, d.syntaxError("unexpected end of JSON input")
}

// hex4 reads four hex digits at data[i:].
func hex4(data []byte, i int) (rune, bool) {
	if i+4 > len(data) {
		return 0, false
	}
	var r rune
	for _, c := range data[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r*16 + rune(c)
	}
	return r, true
}

// readNumber reads a JSON number literal and reports whether it is integral (no
// fraction or exponent).
func (d *decodeState) readNumber() (lit []byte, integral bool, err error) {
	start, i, n := d.pos, d.pos, len(d.data)
	integral = true
	if i < n && d.data[i] == '-' {
		i++
	}
	switch {
	case i < n && d.data[i] == '0':
		i++
	case i < n && '1' <= d.data[i] && d.data[i] <= '9':
		for i < n && '0' <= d.data[i] && d.data[i] <= '9' {
			i++
		}
	default:
		d.pos = i
		return nil, false, d.unexpected("in numeric literal")
	}
	if i < n && d.data[i] == '.' {
		integral = false
		i++
		if i >= n || d.data[i] < '0' || d.data[i] > '9' {
			d.pos = i
			return nil, false, d.unexpected("after decimal point in numeric literal")
		}
		for i < n && '0' <= d.data[i] && d.data[i] <= '9' {
			i++
		}
	}
	if i < n && (d.data[i] == 'e' || d.data[i] == 'E') {
		integral = false
		i++
		if i < n && (d.data[i] == '+' || d.data[i] == '-') {
			i++
		}
		if i >= n || d.data[i] < '0' || d.data[i] > '9' {
			d.pos = i
			return nil, false, d.unexpected("in exponent of numeric literal")
		}
		for i < n && '0' <= d.data[i] && d.data[i] <= '9' {
			i++
		}
	}
	d.pos = i
	return d.data[start:i], integral, nil
}

// parseInt parses an integral literal into int64; ok is false on overflow.
func parseInt(lit []byte) (int64, bool) {
	neg := lit[0] == '-'
	if neg {
		lit = lit[1:]
	}
	if len(lit) == 0 || len(lit) > 19 {
		return 0, false
	}
	var u uint64
	for _, c := range lit {
		u = u*10 + uint64(c-'0')
	}
	if neg {
		if u > 1<<63 {
			return 0, false
		}
		return -int64(u), true
	}
	if u > math.MaxInt64 {
		return 0, false
	}
	return int64(u), true
}

// readLiteral consumes true, false or null at d.pos.
func (d *decodeState) readLiteral(word string) error {
	if len(d.data)-d.pos >= len(word) && string(d.data[d.pos:d.pos+len(word)]) == word {
		d.pos += len(word)
		return nil
	}
	// Find the first wrong byte for the message.
	for i := 0; i < len(word); i++ {
		if d.pos+i >= len(d.data) {
			d.pos += i
			return d.syntaxError("unexpected end of JSON input")
		}
		if d.data[d.pos+i] != word[i] {
			d.pos += i
			return d.unexpected(fmt.Sprintf("in literal %s (expecting %s)", word, quoteChar(word[i])))
		}
	}
	return nil
}

// skipValue consumes one JSON value, checking its syntax, without storing it.
func (d *decodeState) skipValue() error {
	switch d.peek() {
	case '{':
		empty, err := d.objectStart()
		if err != nil || empty {
			return err
		}
		for {
			if _, err := d.objectKey(); err != nil {
				return err
			}
			if err := d.skipValue(); err != nil {
				return err
			}
			done, err := d.objectNext()
			if err != nil || done {
				return err
			}
		}
	case '[':
		empty, err := d.arrayStart()
		if err != nil || empty {
			return err
		}
		for {
			if err := d.skipValue(); err != nil {
				return err
			}
			done, err := d.arrayNext()
			if err != nil || done {
				return err
			}
		}
	case '"':
		_, _, err := d.readString()
		return err
	case 't':
		return d.readLiteral("true")
	case 'f':
		return d.readLiteral("false")
	case 'n':
		return d.readLiteral("null")
	case 0:
		if d.pos >= len(d.data) {
			return d.syntaxError("unexpected end of JSON input")
		}
	}
	_, _, err := d.readNumber()
	if err != nil {
		return d.unexpected("looking for beginning of value")
	}
	return err
}

// rawValue consumes one value and returns its bytes.
func (d *decodeState) rawValue() ([]byte, error) {
	d.skipWS()
	start := d.pos
	if err := d.skipValue(); err != nil {
		return nil, err
	}
	return d.data[start:d.pos], nil
}

// anyValue decodes one value into its untyped form.
func (d *decodeState) anyValue() (any, error) {
	switch d.peek() {
	case '{':
		m := make(map[string]any)
		return m, d.anyObjectInto(m)
	case '[':
		return d.anyArray()
	case '"':
		s, _, err := d.readString()
		if err != nil {
			return nil, err
		}
		return string(s), nil
	case 't':
		return true, d.readLiteral("true")
	case 'f':
		return false, d.readLiteral("false")
	case 'n':
		return nil, d.readLiteral("null")
	}
	return d.anyNumber()
}

func (d *decodeState) anyNumber() (any, error) {
	if d.pos >= len(d.data) {
		return nil, d.syntaxError("unexpected end of JSON input")
	}
	if c := d.data[d.pos]; c != '-' && (c < '0' || c > '9') {
		return nil, d.unexpected("looking for beginning of value")
	}
	start := d.pos
	lit, integral, err := d.readNumber()
	if err != nil {
		return nil, err
	}
	if integral {
		if n, ok := parseInt(lit); ok {
			return n, nil
		}
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil {
		return nil, d.typeErrorAt("number "+string(lit), reflect.TypeFor[float64](), start)
	}
	return f, nil
}

func (d *decodeState) typeErrorAt(value string, t reflect.Type, offset int) error {
	return d.typeError(value, t, offset)
}

// anyObjectInto decodes an object (at '{') into m, reporting duplicate keys.
func (d *decodeState) anyObjectInto(m map[string]any) error {
	empty, err := d.objectStart()
	if err != nil || empty {
		return err
	}
	// A map that already holds entries tracks this object's keys on the side, so
	// that only keys repeated within the document count as duplicates.
	var keys map[string]struct{}
	if len(m) > 0 {
		keys = map[string]struct{}{}
	}
	for {
		kb, err := d.objectKey()
		if err != nil {
			return err
		}
		key := d.intern(kb)
		d.pushKey(key)
		v, err := d.anyValue()
		d.pop()
		if err != nil {
			return err
		}
		if keys != nil {
			if _, dup := keys[key]; dup {
				d.issue(DuplicateField, key)
			}
			keys[key] = struct{}{}
			m[key] = v
		} else {
			n := len(m)
			if m[key] = v; len(m) == n {
				d.issue(DuplicateField, key)
			}
		}
		done, err := d.objectNext()
		if err != nil || done {
			return err
		}
	}
}

func (d *decodeState) anyArray() ([]any, error) {
	empty, err := d.arrayStart()
	if err != nil {
		return nil, err
	}
	out := make([]any, 0, 4)
	if empty {
		return out, nil
	}
	for {
		d.pushIndex(len(out))
		v, err := d.anyValue()
		d.pop()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		done, err := d.arrayNext()
		if err != nil {
			return nil, err
		}
		if done {
			return out, nil
		}
	}
}

var errNilPointer = errors.New("codec: cannot set embedded pointer to unexported struct")
