package quantity

// RoundUp rounds q away from zero to a multiple of 10^scale, as apimachinery's
// Quantity.RoundUp does (kube's defaulting rounds every resource quantity of a pod
// up to a milli), and reports whether the value was exact. An exact value keeps its
// text.
func (q *Quantity) RoundUp(scale Scale) bool {
	if q.d == nil {
		r, exact := q.i.asScale(scale)
		if exact {
			return true
		}
		*q = Quantity{i: r, Format: q.Format}
		return false
	}
	r, exact := q.d.roundUp(int32(scale))
	if exact {
		return true
	}
	*q = Quantity{d: r, Format: q.Format}
	return false
}
