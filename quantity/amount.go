package quantity

import "strconv"

// Scale is a power of ten: an amount is value × 10^scale.
type Scale int32

// The scales of the SI suffixes.
const (
	Nano  Scale = -9
	Micro Scale = -6
	Milli Scale = -3
	Kilo  Scale = 3
	Mega  Scale = 6
	Giga  Scale = 9
	Tera  Scale = 12
	Peta  Scale = 15
	Exa   Scale = 18
)

const (
	maxInt64 = 1<<63 - 1
	minInt64 = -1 << 63
)

// int64Amount is the fast path: value × 10^scale. Its arithmetic reports overflow
// instead of wrapping, and the caller then moves to the decimal form.
type int64Amount struct {
	value int64
	scale Scale
}

func (a int64Amount) sign() int {
	switch {
	case a.value == 0:
		return 0
	case a.value > 0:
		return 1
	}
	return -1
}

// addInt64 adds with overflow detection.
func addInt64(a, b int64) (int64, bool) {
	c := a + b
	if (a > 0 && b > 0 && c < 0) || (a < 0 && b < 0 && c >= 0) {
		return 0, false
	}
	return c, true
}

// mulInt64 multiplies with overflow detection.
func mulInt64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 || a == 1 || b == 1 {
		return a * b, true
	}
	if a == minInt64 || b == minInt64 {
		return 0, false
	}
	c := a * b
	return c, c/b == a
}

// mulScale multiplies base by a positive power of ten factor. Like apimachinery's
// helper it returns the wrapped product with false on overflow: ScaledValue passes
// that product on, as kube does.
func mulScale(base, factor int64) (int64, bool) {
	if base == 0 || base == 1 {
		return base * factor, true
	}
	if base == minInt64 && factor != 1 {
		return 0, false
	}
	c := base * factor
	return c, c/factor == base
}

// scaleUp is base × 10^n for n >= 0. For n of 1, 2, 3, 6 and 9 an overflow yields the
// wrapped product (kube's positiveScaleInt64 does the same); for other n it yields 0.
func scaleUp(base int64, n Scale) (int64, bool) {
	switch n {
	case 0:
		return base, true
	case 1:
		return mulScale(base, 10)
	case 2:
		return mulScale(base, 100)
	case 3:
		return mulScale(base, 1000)
	case 6:
		return mulScale(base, 1000000)
	case 9:
		return mulScale(base, 1000000000)
	}
	v := base
	for i := Scale(0); i < n; i++ {
		var ok bool
		if v, ok = mulScale(v, 10); !ok {
			return 0, false
		}
	}
	return v, true
}

// scaleDown is base ÷ 10^n for n >= 0, rounded away from zero, and whether it was
// exact.
func scaleDown(base int64, n Scale) (int64, bool) {
	if n == 0 {
		return base, true
	}
	v := base
	fraction := false
	for i := Scale(0); i < n; i++ {
		if v%10 != 0 {
			fraction = true
		}
		v /= 10
		if v == 0 {
			if !fraction {
				return 0, true
			}
			if base > 0 {
				return 1, false
			}
			return -1, false
		}
	}
	if fraction {
		if base > 0 {
			v++
		} else {
			v--
		}
	}
	return v, !fraction
}

var pow10 = [...]int64{1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
	1000000000, 10000000000, 100000000000, 1000000000000, 10000000000000,
	100000000000000, 1000000000000000, 10000000000000000, 100000000000000000,
	1000000000000000000}

// asScaledInt64 is a at the given scale, rounded away from zero.
func (a int64Amount) asScaledInt64(scale Scale) (int64, bool) {
	if a.scale < scale {
		v, _ := scaleDown(a.value, scale-a.scale)
		return v, true
	}
	return scaleUp(a.value, a.scale-scale)
}

// asScale rounds a up (away from zero) to a scale no finer than scale.
func (a int64Amount) asScale(scale Scale) (int64Amount, bool) {
	if a.scale >= scale {
		return a, true
	}
	v, exact := scaleDown(a.value, scale-a.scale)
	return int64Amount{value: v, scale: scale}, exact
}

// cmp compares without math/big: when aligning the scales overflows, the operand
// that overflowed is the larger in magnitude, so its sign decides.
func (a int64Amount) cmp(b int64Amount) int {
	if sa, sb := a.sign(), b.sign(); sa != sb || sa == 0 {
		return compareInt(sa, sb)
	}
	if a.scale != b.scale {
		hi, lo, flip := a, b, 1
		if a.scale < b.scale {
			hi, lo, flip = b, a, -1
		}
		// In int64: scales 2^32 apart overflow an int32 difference.
		d := int64(hi.scale) - int64(lo.scale)
		v, ok := int64(0), false
		if d < int64(len(pow10)) {
			v, ok = mulInt64(hi.value, pow10[d])
		}
		if !ok {
			return hi.sign() * flip
		}
		a, b = int64Amount{v, lo.scale}, lo
		if flip < 0 {
			a, b = lo, int64Amount{v, lo.scale}
		}
	}
	return compareInt(a.value, b.value)
}

func compareInt[T int | int64](a, b T) int {
	switch {
	case a == b:
		return 0
	case a < b:
		return -1
	}
	return 1
}

// add sets a to a+b and reports false (a unchanged) on overflow.
func (a *int64Amount) add(b int64Amount) bool {
	switch {
	case b.value == 0:
		return true
	case a.value == 0:
		*a = b
		return true
	case a.scale == b.scale:
		c, ok := addInt64(a.value, b.value)
		if !ok {
			return false
		}
		a.value = c
	case a.scale > b.scale:
		c, ok := scaleUpStrict(a.value, int64(a.scale)-int64(b.scale))
		if !ok {
			return false
		}
		if c, ok = addInt64(c, b.value); !ok {
			return false
		}
		a.value, a.scale = c, b.scale
	default:
		c, ok := scaleUpStrict(b.value, int64(b.scale)-int64(a.scale))
		if !ok {
			return false
		}
		if c, ok = addInt64(a.value, c); !ok {
			return false
		}
		a.value = c
	}
	return true
}

// scaleUpStrict is base × 10^n for n >= 0, false on any overflow.
func scaleUpStrict(base int64, n int64) (int64, bool) {
	if n >= int64(len(pow10)) {
		return 0, base == 0
	}
	return mulInt64(base, pow10[n])
}

// removeFactors strips factors of base from value (keeping its sign) and counts them.
func removeFactors(value, base int64) (int64, int32) {
	neg := value < 0
	if neg {
		value = -value
	}
	times := int32(0)
	for value >= base && value%base == 0 {
		value /= base
		times++
	}
	if neg {
		value = -value
	}
	return value, times
}

// appendCanonical appends the mantissa of a in canonical decimal form (no trailing
// zeros beyond what makes the exponent a multiple of three) and returns the exponent.
// ok is false when the mantissa no longer fits, and the caller uses the decimal form.
func (a int64Amount) appendCanonical(out []byte) ([]byte, int32, bool) {
	m, times := removeFactors(a.value, 10)
	exp := int32(a.scale) + times
	var ok bool
	switch exp % 3 {
	case 1, -2:
		if m, ok = mulCanonical(m, 10); !ok {
			return out, 0, false
		}
		exp--
	case 2, -1:
		if m, ok = mulCanonical(m, 100); !ok {
			return out, 0, false
		}
		exp -= 2
	}
	return strconv.AppendInt(out, m, 10), exp, true
}

func mulCanonical(m, f int64) (int64, bool) {
	if m == 0 || m == 1 {
		return m * f, true
	}
	if m == minInt64 {
		return 0, false
	}
	c := m * f
	return c, c/f == m
}
