package apitest

import (
	"sync/atomic"
	"time"
)

// Clock is the time a Server records in metadata.creationTimestamp,
// metadata.deletionTimestamp and managedFields (it is the server's rest.Options.Clock).
// It runs at real time until frozen: a test freezes it so that those fields are known in
// advance, and advances it to make time pass without waiting, for example to put two
// objects' creation a minute apart. Timestamps are recorded to the second, as kube
// records them. It is safe for concurrent use.
type Clock struct {
	// frozen is the time of a frozen clock, nil while it runs.
	frozen atomic.Pointer[time.Time]
}

// Now returns the clock's time: the frozen time, or the real time while it runs.
func (c *Clock) Now() time.Time {
	if t := c.frozen.Load(); t != nil {
		return *t
	}
	return time.Now()
}

// Freeze stops the clock at the current real time, truncated to the second so that it is
// exactly what timestamps will show, and returns that time. Freezing a frozen clock
// keeps its time.
func (c *Clock) Freeze() time.Time {
	t := time.Now().Truncate(time.Second)
	if c.frozen.CompareAndSwap(nil, &t) {
		return t
	}
	return *c.frozen.Load()
}

// Set stops the clock at t.
func (c *Clock) Set(t time.Time) { c.frozen.Store(&t) }

// Advance moves the clock forward by d and returns its new time; a running clock is
// frozen first, so the time after Advance is known.
func (c *Clock) Advance(d time.Duration) time.Time {
	for {
		cur := c.frozen.Load()
		if cur == nil {
			c.Freeze()
			continue
		}
		next := cur.Add(d)
		if c.frozen.CompareAndSwap(cur, &next) {
			return next
		}
	}
}

// Resume lets the clock run at real time again.
func (c *Clock) Resume() { c.frozen.Store(nil) }
