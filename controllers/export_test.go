package controllers

import "context"

// Visits is how many nodes the passes of m have processed so far; read it once m is
// idle.
func (m *Manager) Visits() uint64 { return m.visits.Load() }

// WaitVersion is WaitIdle for the writes up to resourceVersion rv, without reading the
// store's version (which lists the store): benchmarks measure the controllers alone.
func (m *Manager) WaitVersion(ctx context.Context, rv uint64) error {
	for {
		if idle, err := m.waitPassed(ctx, rv); idle || err != nil {
			return err
		}
	}
}
