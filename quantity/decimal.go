package quantity

import (
	"math"
	"math/big"
	"strings"
)

// decAmount is the slow path: coef × 10^exp at any precision, for amounts an int64
// times a power of ten cannot hold (more than 18 digits, finer than a nano, binary
// suffixes with fractions). It is normalized (coef has no trailing zero digits; zero
// has exp 0), so "1e-1000000000" costs as little as "1n", and it is immutable: every
// operation makes a new one, so Quantity values share it safely.
type decAmount struct {
	coef big.Int
	exp  int32
}

var (
	bigTen  = big.NewInt(10)
	big1024 = big.NewInt(1024)
	bigMax  = big.NewInt(maxInt64)
)

// newDec is coef × 10^exp, normalized; it takes ownership of coef.
func newDec(coef *big.Int, exp int32) *decAmount {
	d := &decAmount{exp: exp}
	d.coef.Set(coef)
	d.normalize()
	return d
}

func decFromInt(a int64Amount) *decAmount {
	return newDec(big.NewInt(a.value), int32(a.scale))
}

// normalize strips trailing zero digits into exp. Counting them on the decimal text
// keeps this linear in the digits, where repeated division by ten is quadratic.
func (d *decAmount) normalize() {
	if d.coef.Sign() == 0 {
		d.exp = 0
		return
	}
	if d.coef.IsInt64() {
		v, n := removeFactors(d.coef.Int64(), 10)
		if n > 0 {
			d.coef.SetInt64(v)
			d.exp += n
		}
		return
	}
	text := d.coef.Text(10)
	trimmed := strings.TrimRight(text, "0")
	if n := len(text) - len(trimmed); n > 0 {
		d.coef.SetString(trimmed, 10)
		d.exp += int32(n)
	}
}

func (d *decAmount) sign() int { return d.coef.Sign() }

// digits is the number of decimal digits of |coef| (1 for zero).
func (d *decAmount) digits() int {
	if d.coef.IsInt64() {
		v := uint64(d.coef.Int64())
		if d.coef.Sign() < 0 {
			v = -v
		}
		n := 1
		for v >= 10 {
			v /= 10
			n++
		}
		return n
	}
	return len(d.coef.Text(10)) - boolInt(d.coef.Sign() < 0)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// cmp compares by sign and order of magnitude first, so only amounts of the same
// magnitude are aligned (which costs at most their digits).
func (d *decAmount) cmp(e *decAmount) int {
	sd, se := d.sign(), e.sign()
	if sd != se || sd == 0 {
		return compareInt(sd, se)
	}
	od, oe := int64(d.digits())+int64(d.exp), int64(e.digits())+int64(e.exp)
	if od != oe {
		return sd * compareInt(od, oe)
	}
	x, y := align(d, e)
	return x.Cmp(y)
}

// align returns both coefficients at the smaller exponent.
func align(d, e *decAmount) (*big.Int, *big.Int) {
	x, y := &d.coef, &e.coef
	switch {
	case d.exp > e.exp:
		x = new(big.Int).Mul(x, pow10Big(int64(d.exp)-int64(e.exp)))
	case e.exp > d.exp:
		y = new(big.Int).Mul(y, pow10Big(int64(e.exp)-int64(d.exp)))
	}
	return x, y
}

func pow10Big(n int64) *big.Int {
	return new(big.Int).Exp(bigTen, big.NewInt(n), nil)
}

func (d *decAmount) add(e *decAmount) *decAmount {
	switch {
	case e.sign() == 0:
		return d
	case d.sign() == 0:
		return e
	}
	x, y := align(d, e)
	return newDec(new(big.Int).Add(x, y), min(d.exp, e.exp))
}

func (d *decAmount) neg() *decAmount {
	return &decAmount{coef: *new(big.Int).Neg(&d.coef), exp: d.exp}
}

// roundUp rounds d away from zero to a multiple of 10^scale, and reports whether that
// was exact.
func (d *decAmount) roundUp(scale int32) (*decAmount, bool) {
	if d.exp >= scale || d.sign() == 0 {
		return d, true
	}
	shift := int64(scale) - int64(d.exp)
	if shift > int64(d.digits()) {
		// |d| < 10^scale: rounding away from zero gives one unit of 10^scale.
		return &decAmount{coef: *big.NewInt(int64(d.sign())), exp: scale}, false
	}
	q, r := new(big.Int).QuoRem(&d.coef, pow10Big(shift), new(big.Int))
	if r.Sign() != 0 {
		q.Add(q, big.NewInt(int64(d.sign())))
	}
	return newDec(q, scale), false
}

// integer is d as an integer; d must have exp >= 0 or be rounded first.
func (d *decAmount) integer() *big.Int {
	if d.exp <= 0 {
		return new(big.Int).Set(&d.coef)
	}
	return new(big.Int).Mul(&d.coef, pow10Big(int64(d.exp)))
}

// appendCanonical appends the mantissa with the exponent lowered to a multiple of
// three, as kube's canonical form writes it.
func (d *decAmount) appendCanonical(out []byte) ([]byte, int32) {
	coef, exp := &d.coef, d.exp
	if exp%3 != 0 {
		coef = new(big.Int).Set(coef)
		for exp%3 != 0 {
			coef.Mul(coef, bigTen)
			exp--
		}
	}
	return coef.Append(out, 10), exp
}

// appendCanonical1024 appends d rounded up to an integer with its factors of 1024
// removed, and returns how many there were.
func (d *decAmount) appendCanonical1024(out []byte) ([]byte, int32) {
	r, _ := d.roundUp(0)
	v := r.integer()
	times := int32(0)
	q, m := new(big.Int), new(big.Int)
	for v.Sign() != 0 {
		q.QuoRem(v, big1024, m)
		if m.Sign() != 0 {
			break
		}
		v, q = q, v
		times++
	}
	return v.Append(out, 10), times
}

// scaledValue is d in units of 10^scale, rounded as kube rounds it: truncated toward
// zero and then one added when anything was cut (so -1.5 becomes 0, as in
// apimachinery). Values outside int64 give what big.Int's Int64 gives.
func (d *decAmount) scaledValue(scale Scale) int64 {
	shift := int64(scale) - int64(d.exp)
	if shift <= 0 {
		if -shift > 400 {
			return 0
		}
		return new(big.Int).Mul(&d.coef, pow10Big(-shift)).Int64()
	}
	if shift > int64(d.digits()) {
		return 1
	}
	q, r := new(big.Int).QuoRem(&d.coef, pow10Big(shift), new(big.Int))
	if r.Sign() != 0 {
		return q.Int64() + 1
	}
	return q.Int64()
}

func (d *decAmount) float64() float64 {
	f, _ := new(big.Float).SetInt(&d.coef).Float64()
	if d.exp == 0 {
		return f
	}
	return f * math.Pow10(int(d.exp))
}
