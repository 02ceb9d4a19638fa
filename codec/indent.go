package codec

import "io"

// indentFlushSize is how much indented output an IndentWriter gathers before it writes
// to its destination.
const indentFlushSize = 32 << 10

// IndentWriter indents a JSON document as it streams through, writing exactly what
// encoding/json's Indent(dst, src, "", "  ") writes for the whole document, so that a
// pretty-printed response (kube-apiserver indents JSON for curl and browsers) can be
// streamed like any other instead of being held whole. Its input must be valid JSON,
// as the codec's encoders write it: IndentWriter does not validate. Whitespace outside
// strings is dropped, except after the top-level value, where it is kept as Indent
// keeps it. Call Flush at the end.
type IndentWriter struct {
	w          io.Writer
	buf        []byte
	depth      int
	started    bool // a non-space byte of the top-level value has been seen
	inString   bool
	escaped    bool // the previous byte in a string was an unescaped backslash
	needIndent bool // after { or [: the line break waits for the next byte
	err        error
}

// NewIndentWriter returns an IndentWriter writing to w.
func NewIndentWriter(w io.Writer) *IndentWriter {
	return &IndentWriter{w: w}
}

// Write indents p and passes the result on, in chunks of up to 32 KiB; it reports the
// first error of the destination.
func (iw *IndentWriter) Write(p []byte) (int, error) {
	if iw.err != nil {
		return 0, iw.err
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if iw.inString {
			// Copy the run of string bytes up to the next quote or backslash at once.
			j := i
			for j < len(p) && !iw.escaped && p[j] != '"' && p[j] != '\\' {
				j++
			}
			if j > i {
				iw.buf = append(iw.buf, p[i:j]...)
				if j == len(p) {
					break
				}
				i, c = j, p[j]
			}
			iw.buf = append(iw.buf, c)
			switch {
			case iw.escaped:
				iw.escaped = false
			case c == '\\':
				iw.escaped = true
			case c == '"':
				iw.inString = false
			}
			continue
		}
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			if iw.started && iw.depth == 0 && !iw.needIndent {
				iw.buf = append(iw.buf, c)
			}
			continue
		}
		iw.started = true
		if iw.needIndent && c != '}' && c != ']' {
			iw.needIndent = false
			iw.depth++
			iw.newline()
		}
		switch c {
		case '"':
			iw.inString = true
			iw.buf = append(iw.buf, c)
		case '{', '[':
			iw.needIndent = true // an empty object or array stays {} or []
			iw.buf = append(iw.buf, c)
		case ',':
			iw.buf = append(iw.buf, c)
			iw.newline()
		case ':':
			iw.buf = append(iw.buf, c, ' ')
		case '}', ']':
			if iw.needIndent {
				iw.needIndent = false
			} else {
				iw.depth--
				iw.newline()
			}
			iw.buf = append(iw.buf, c)
		default:
			iw.buf = append(iw.buf, c)
		}
	}
	if len(iw.buf) >= indentFlushSize {
		if err := iw.Flush(); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// newline starts a new line indented to the current depth.
func (iw *IndentWriter) newline() {
	iw.buf = append(iw.buf, '\n')
	for range iw.depth {
		iw.buf = append(iw.buf, ' ', ' ')
	}
}

// Flush writes what is gathered to the destination.
func (iw *IndentWriter) Flush() error {
	if iw.err != nil {
		return iw.err
	}
	if len(iw.buf) > 0 {
		_, iw.err = iw.w.Write(iw.buf)
		iw.buf = iw.buf[:0]
	}
	return iw.err
}
