package quantity

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Quantity is a fixed-point number with a preferred format, as
// k8s.io/apimachinery's resource.Quantity: "100m", "1.5Gi", "2e3". Its zero value is
// zero ("0"). String, MarshalJSON and MarshalCBOR write the canonical form kube-apiserver
// writes: the input itself when it already was canonical, otherwise the amount in its
// format with the largest suffix that keeps the number an integer ("1000m" is "1",
// "1024Mi" is "1Gi", "0.5" is "500m"), amounts finer than a nano rounded up.
type Quantity struct {
	i int64Amount // the amount when d is nil
	d *decAmount  // the amount when an int64Amount cannot hold it; never mutated
	s string      // the canonical text when Parse saw it already canonical

	// Format is how String writes the amount (DecimalSI, BinarySI or
	// DecimalExponent); the parsed suffix decides it.
	Format
}

// Format is the notation of a quantity's canonical form.
type Format string

// The formats, as in apimachinery.
const (
	DecimalExponent = Format("DecimalExponent") // e.g. 12e6
	BinarySI        = Format("BinarySI")        // e.g. 12Mi (12 × 2^20)
	DecimalSI       = Format("DecimalSI")       // e.g. 12M (12 × 10^6)
)

// splitRE is the grammar the parse errors quote.
const splitRE = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"

// The errors of Parse, with apimachinery's messages.
var (
	ErrFormatWrong = errors.New("quantities must match the regular expression '" + splitRE + "'")
	ErrNumeric     = errors.New("unable to parse numeric part of quantity")
	ErrSuffix      = errors.New("unable to parse quantity's suffix")
)

// maxDigits is how many digits an int64 always holds.
const maxDigits = 18

// MaxDigits bounds the digits of a quantity's number. Converting decimal text to
// binary costs time quadratic in its length (100,000 digits take a quarter of a
// second), and apimachinery has no bound, so a request could hold a CPU core per
// megabyte of digits; no real amount needs more than a few dozen. Longer numbers are
// ErrNumeric.
const MaxDigits = 4096

// MustParse is Parse that panics on error, for constants in code and tests.
func MustParse(s string) Quantity {
	q, err := Parse(s)
	if err != nil {
		panic(fmt.Errorf("cannot parse '%v': %v", s, err))
	}
	return q
}

// NewQuantity is value in the given format.
func NewQuantity(value int64, format Format) *Quantity {
	return &Quantity{i: int64Amount{value: value}, Format: format}
}

// NewMilliQuantity is value thousandths in the given format.
func NewMilliQuantity(value int64, format Format) *Quantity {
	return &Quantity{i: int64Amount{value: value, scale: Milli}, Format: format}
}

// NewScaledQuantity is value × 10^scale in DecimalSI.
func NewScaledQuantity(value int64, scale Scale) *Quantity {
	return &Quantity{i: int64Amount{value: value, scale: scale}, Format: DecimalSI}
}

// Parse reads a quantity: an optionally signed decimal number followed by a suffix
// (n u m "" k M G T P E, Ki Mi Gi Ti Pi Ei, or an exponent e3 / E-3). It accepts and
// rejects exactly what apimachinery's ParseQuantity does, with the same errors.
func Parse(str string) (Quantity, error) {
	if len(str) == 0 {
		return Quantity{}, ErrFormatWrong
	}
	if str == "0" {
		return Quantity{Format: DecimalSI, s: str}, nil
	}
	positive, value, num, denom, suf, err := split(str)
	if err != nil {
		return Quantity{}, err
	}
	base, exponent, format, ok := interpretSuffix(suf)
	if !ok {
		return Quantity{}, ErrSuffix
	}

	// The fast path: the digits fit an int64 and the amount is a multiple of a nano.
	precision, scale, mantissa := int32(0), int32(0), int64(1)
	switch format {
	case DecimalExponent, DecimalSI:
		scale = exponent
		precision = maxDigits - int32(len(num)+len(denom))
	case BinarySI:
		if exponent >= 0 && len(denom) == 0 {
			mantissa <<= uint64(exponent)
			precision = 15 - int32(len(num)) - int32(float32(exponent)*3/10) - 1
		} else {
			precision = -1
		}
	}
	if precision >= 0 {
		scale -= int32(len(denom))
		if scale >= int32(Nano) {
			shifted := num + denom
			v, err := strconv.ParseInt(shifted, 10, 64)
			if err != nil {
				return Quantity{}, ErrNumeric
			}
			if result, ok := mulInt64(v, mantissa); ok {
				if !positive {
					result = -result
				}
				q := Quantity{i: int64Amount{value: result, scale: Scale(scale)}, Format: format}
				// Keep the text when it is already canonical, so String returns it
				// as is (kube does the same, sign and leading zeros of a binary
				// amount included).
				switch format {
				case BinarySI:
					if exponent%10 == 0 && v&0x07 != 0 {
						q.s = str
					}
				default:
					if scale%3 == 0 && !strings.HasSuffix(shifted, "000") && shifted[0] != '0' {
						q.s = str
					}
				}
				return q, nil
			}
		}
	}
	return parseSlow(positive, value, base, exponent, format)
}

// parseSlow builds the decimal form of an amount the fast path cannot hold.
func parseSlow(positive bool, value string, base, exponent int32, format Format) (Quantity, error) {
	digits, frac, ok := decimalDigits(value)
	if !ok || len(digits) > MaxDigits {
		return Quantity{}, ErrNumeric
	}
	coef, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return Quantity{}, ErrNumeric
	}
	exp := -frac
	switch base {
	case 10:
		exp += exponent
	case 2:
		coef.Lsh(coef, uint(exponent))
	}
	d := newDec(coef, exp)
	if d.sign() != 0 {
		d, _ = d.roundUp(int32(Nano))
	}
	if format == BinarySI {
		if d.coef.Sign() > 0 && d.cmp(decMax) > 0 {
			d = decMax
		}
		if d.exp < 0 && d.coef.Sign() > 0 && d.cmp(decOne) < 0 {
			format = DecimalSI
		}
	}
	if !positive {
		d = d.neg()
	}
	return Quantity{d: d, Format: format}, nil
}

var (
	decMax = newDec(big.NewInt(maxInt64), 0)
	decOne = newDec(big.NewInt(1), 0)
)

// decimalDigits is the digits of an unsigned decimal number ("007.50" => "00750", 2),
// as inf.Dec's SetString reads the numeric part in apimachinery: at least one digit,
// at most one point. The sign is the caller's (split keeps it apart).
func decimalDigits(value string) (digits string, frac int32, ok bool) {
	if len(value) > 0 && (value[0] == '+' || value[0] == '-') {
		value = value[1:]
	}
	point := strings.IndexByte(value, '.')
	if point < 0 {
		return value, 0, len(value) > 0
	}
	digits = value[:point] + value[point+1:]
	return digits, int32(len(value) - point - 1), len(digits) > 0
}

// split cuts a quantity into sign, numeric text, integer digits (leading zeros
// dropped), fraction digits and suffix, as apimachinery's parseQuantityString does.
func split(str string) (positive bool, value, num, denom, suffix string, err error) {
	positive = true
	pos, end := 0, len(str)
	switch str[0] {
	case '-':
		positive = false
		pos++
	case '+':
		pos++
	}
	for ; pos < end && str[pos] == '0'; pos++ {
	}
	if pos >= end {
		return positive, "0", "0", "", "", nil
	}
	start := pos
	for ; pos < end && isDigit(str[pos]); pos++ {
	}
	num = str[start:pos]
	if pos >= end {
		return positive, str, num, "", "", nil
	}
	if num == "" {
		num = "0"
	}
	if str[pos] == '.' {
		pos++
		start = pos
		for ; pos < end && isDigit(str[pos]); pos++ {
		}
		denom = str[start:pos]
		if pos >= end {
			return positive, str, num, denom, "", nil
		}
	}
	value = str[:pos]
	suffixStart := pos
	for ; pos < end && strings.IndexByte("eEinumkKMGTP", str[pos]) >= 0; pos++ {
	}
	if pos < end && (str[pos] == '-' || str[pos] == '+') {
		pos++
	}
	for ; pos < end && isDigit(str[pos]); pos++ {
	}
	if pos < end {
		return positive, value, num, denom, "", ErrFormatWrong
	}
	return positive, value, num, denom, str[suffixStart:], nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// interpretSuffix maps a suffix to its base, exponent and format.
func interpretSuffix(s string) (base, exponent int32, format Format, ok bool) {
	switch s {
	case "":
		return 10, 0, DecimalSI, true
	case "n":
		return 10, -9, DecimalSI, true
	case "u":
		return 10, -6, DecimalSI, true
	case "m":
		return 10, -3, DecimalSI, true
	case "k":
		return 10, 3, DecimalSI, true
	case "M":
		return 10, 6, DecimalSI, true
	case "G":
		return 10, 9, DecimalSI, true
	case "T":
		return 10, 12, DecimalSI, true
	case "P":
		return 10, 15, DecimalSI, true
	case "E":
		return 10, 18, DecimalSI, true
	case "Ki":
		return 2, 10, BinarySI, true
	case "Mi":
		return 2, 20, BinarySI, true
	case "Gi":
		return 2, 30, BinarySI, true
	case "Ti":
		return 2, 40, BinarySI, true
	case "Pi":
		return 2, 50, BinarySI, true
	case "Ei":
		return 2, 60, BinarySI, true
	}
	if len(s) > 1 && (s[0] == 'e' || s[0] == 'E') {
		v, err := strconv.ParseInt(s[1:], 10, 64)
		if err != nil {
			return 0, 0, DecimalExponent, false
		}
		// kube keeps the low 32 bits of the exponent; so does this.
		return 10, int32(v), DecimalExponent, true
	}
	return 0, 0, DecimalExponent, false
}

// decSuffix is the DecimalSI suffix of a power of ten, if it has one.
func decSuffix(exp int32) (string, bool) {
	switch exp {
	case -9:
		return "n", true
	case -6:
		return "u", true
	case -3:
		return "m", true
	case 0:
		return "", true
	case 3:
		return "k", true
	case 6:
		return "M", true
	case 9:
		return "G", true
	case 12:
		return "T", true
	case 15:
		return "P", true
	case 18:
		return "E", true
	}
	return "", false
}

// binSuffix is the BinarySI suffix of a power of 1024, if it has one.
func binSuffix(times int32) (string, bool) {
	switch times {
	case 1:
		return "Ki", true
	case 2:
		return "Mi", true
	case 3:
		return "Gi", true
	case 4:
		return "Ti", true
	case 5:
		return "Pi", true
	case 6:
		return "Ei", true
	}
	return "", false
}

// String is the canonical form (see Quantity).
func (q Quantity) String() string {
	if q.s != "" {
		return q.s
	}
	var buf [24]byte
	return string(q.appendCanonical(buf[:0]))
}

// AppendText appends the canonical form to b.
func (q Quantity) AppendText(b []byte) ([]byte, error) {
	if q.s != "" {
		return append(b, q.s...), nil
	}
	return q.appendCanonical(b), nil
}

// appendCanonical writes the amount in its format, as apimachinery's
// CanonicalizeBytes: a binary amount that is not an integer, or is below 1024 in
// magnitude, is written in DecimalSI; a suffix the table lacks (beyond E or Ei) is
// left out, as kube leaves it out.
func (q Quantity) appendCanonical(out []byte) []byte {
	if q.IsZero() {
		return append(out, '0')
	}
	format := q.Format
	switch format {
	case DecimalExponent, DecimalSI:
	case BinarySI:
		if q.CmpInt64(-1024) > 0 && q.CmpInt64(1024) < 0 {
			format = DecimalSI
		} else if !q.isInteger() {
			format = DecimalSI
		}
	default:
		format = DecimalExponent
	}
	if format == BinarySI {
		start := len(out)
		var times int32
		v, ok := int64(0), false
		if q.d == nil {
			v, ok = q.i.asScaledInt64(0)
		}
		if ok {
			v, times = removeFactors(v, 1024)
			out = strconv.AppendInt(out, v, 10)
		} else {
			d := q.d
			if d == nil {
				d = decFromInt(q.i)
			}
			out, times = d.appendCanonical1024(out[:start])
		}
		suf, _ := binSuffix(times)
		return append(out, suf...)
	}
	var exp int32
	ok := false
	if q.d == nil {
		start := len(out)
		if out, exp, ok = q.i.appendCanonical(out); !ok {
			out = out[:start]
		}
	}
	if !ok {
		d := q.d
		if d == nil {
			d = decFromInt(q.i)
		}
		out, exp = d.appendCanonical(out)
	}
	if format == DecimalSI {
		suf, _ := decSuffix(exp)
		return append(out, suf...)
	}
	if exp != 0 {
		out = append(out, 'e')
		out = strconv.AppendInt(out, int64(exp), 10)
	}
	return out
}

// isInteger reports whether the amount has no fractional part.
func (q Quantity) isInteger() bool {
	if q.d != nil {
		return q.d.exp >= 0 || q.d.sign() == 0
	}
	_, exact := q.i.asScale(0)
	return exact
}

// IsZero reports whether the amount is zero.
func (q Quantity) IsZero() bool {
	if q.d != nil {
		return q.d.sign() == 0
	}
	return q.i.value == 0
}

// Sign is -1, 0 or 1.
func (q Quantity) Sign() int {
	if q.d != nil {
		return q.d.sign()
	}
	return q.i.sign()
}

// Cmp is -1, 0 or 1 as q is less than, equal to or greater than y.
func (q Quantity) Cmp(y Quantity) int {
	if q.d == nil && y.d == nil {
		return q.i.cmp(y.i)
	}
	return q.dec().cmp(y.dec())
}

// CmpInt64 compares q with y.
func (q Quantity) CmpInt64(y int64) int {
	if q.d != nil {
		return q.d.cmp(decFromInt(int64Amount{value: y}))
	}
	return q.i.cmp(int64Amount{value: y})
}

// Equal reports whether q and v are the same amount, whatever their formats.
func (q Quantity) Equal(v Quantity) bool { return q.Cmp(v) == 0 }

// dec is the amount in decimal form.
func (q Quantity) dec() *decAmount {
	if q.d != nil {
		return q.d
	}
	return decFromInt(q.i)
}

// Value is the amount rounded up to an integer (as ScaledValue(0)).
func (q Quantity) Value() int64 { return q.ScaledValue(0) }

// MilliValue is the amount in thousandths, rounded up (as ScaledValue(Milli)).
func (q Quantity) MilliValue() int64 { return q.ScaledValue(Milli) }

// ScaledValue is the amount in units of 10^scale, rounded up. Like apimachinery's,
// the result of an amount that does not fit an int64 is not meaningful.
func (q Quantity) ScaledValue(scale Scale) int64 {
	if q.d == nil {
		v, _ := q.i.asScaledInt64(scale)
		return v
	}
	return q.d.scaledValue(scale)
}

// AsInt64 is the amount as an int64 when it is an integer that fits.
func (q Quantity) AsInt64() (int64, bool) {
	if q.d != nil {
		if q.d.exp < 0 || q.d.exp > 18 {
			return 0, q.d.sign() == 0
		}
		v := q.d.integer()
		return v.Int64(), v.IsInt64()
	}
	if q.i.scale == 0 {
		return q.i.value, true
	}
	if q.i.scale < 0 {
		return 0, false
	}
	return scaleUpStrict(q.i.value, int64(q.i.scale))
}

// AsApproximateFloat64 is the amount as the nearest float64 it can compute cheaply;
// amounts beyond float64's range are ±Inf.
func (q Quantity) AsApproximateFloat64() float64 {
	if q.IsZero() {
		return 0 // kube's 0 × 10^400 is NaN
	}
	if q.d != nil {
		return q.d.float64()
	}
	base := float64(q.i.value)
	if q.i.scale == 0 {
		return base
	}
	return base * math.Pow10(int(q.i.scale))
}

// Add adds y to q. A zero q takes y's format.
func (q *Quantity) Add(y Quantity) {
	q.s = ""
	if q.d == nil && y.d == nil {
		if q.i.value == 0 {
			q.Format = y.Format
		}
		if q.i.add(y.i) {
			return
		}
	} else if q.IsZero() {
		q.Format = y.Format
	}
	q.d = q.dec().add(y.dec())
	q.i = int64Amount{}
}

// Sub subtracts y from q. A zero q takes y's format.
func (q *Quantity) Sub(y Quantity) {
	q.s = ""
	if q.IsZero() {
		q.Format = y.Format
	}
	if q.d == nil && y.d == nil && y.i.value != minInt64 && q.i.add(int64Amount{value: -y.i.value, scale: y.i.scale}) {
		return
	}
	q.d = q.dec().add(y.dec().neg())
	q.i = int64Amount{}
}

// Neg negates q.
func (q *Quantity) Neg() {
	q.s = ""
	if q.d == nil {
		if q.i.value != minInt64 {
			q.i.value = -q.i.value
			return
		}
		q.d = decFromInt(q.i)
		q.i = int64Amount{}
	}
	q.d = q.d.neg()
}

// DeepCopy returns q; a Quantity shares nothing mutable, so a copy is the value.
func (q Quantity) DeepCopy() Quantity { return q }

// OpenAPISchemaType says a quantity is a string in OpenAPI, as kube's schema does.
func (Quantity) OpenAPISchemaType() []string { return []string{"string"} }

// OpenAPISchemaFormat names the string's format "quantity".
func (Quantity) OpenAPISchemaFormat() string { return "quantity" }
