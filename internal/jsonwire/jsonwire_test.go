package jsonwire

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/scheme"
)

func TestAppendTime_MatchesAppendFormatForRandomTimes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	zones := []*time.Location{time.UTC, time.FixedZone("east", 5*3600+1800), time.FixedZone("west", -7*3600)}
	times := []time.Time{time.Unix(0, 0), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC), time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}
	for range 2000 {
		times = append(times, time.Unix(rng.Int64N(400_000_000_000)-200_000_000_000, rng.Int64N(1e9)).In(zones[rng.IntN(len(zones))]))
	}
	for _, tm := range times {
		if got, want := string(AppendTime(nil, tm, false)), `"`+tm.UTC().Format(time.RFC3339)+`"`; got != want {
			t.Errorf("%v: %s, want %s", tm, got, want)
		}
		if got, want := string(AppendTime(nil, tm, true)), `"`+tm.UTC().Format(scheme.RFC3339Micro)+`"`; got != want {
			t.Errorf("%v micro: %s, want %s", tm, got, want)
		}
	}
}
