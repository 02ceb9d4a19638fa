package jsonwire

// Meter is an io.Writer that measures a JSON encoding without keeping it: its length
// and how deep its objects and arrays nest, what the limits on stored objects bound.
type Meter struct {
	// N is the length written, Deepest the deepest nesting of objects and arrays.
	N               int64
	Deepest         int
	depth           int
	inString, escap bool
}

// Write counts p and follows the nesting through it.
func (m *Meter) Write(p []byte) (int, error) {
	m.N += int64(len(p))
	for _, c := range p {
		if m.inString {
			switch {
			case m.escap:
				m.escap = false
			case c == '\\':
				m.escap = true
			case c == '"':
				m.inString = false
			}
			continue
		}
		switch c {
		case '"':
			m.inString = true
		case '{', '[':
			m.depth++
			m.Deepest = max(m.Deepest, m.depth)
		case '}', ']':
			m.depth--
		}
	}
	return len(p), nil
}
