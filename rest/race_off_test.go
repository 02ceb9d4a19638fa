//go:build !race

package rest_test

// raceEnabled tells tests that the race detector, which slows the code it watches
// several times, is on: load tests scale down.
const raceEnabled = false
