package metrics_test

import (
	"log"
	"os"

	"github.com/apikit-dev/apikit/metrics"
)

// A host registers its own families in the Registry that package rest serves at
// GET /metrics (rest.Options.Metrics); WriteText is what Prometheus scrapes.
func ExampleRegistry() {
	r := metrics.NewRegistry()
	requests := r.Counter("shop_orders_total", "Orders received, by state.", "state")
	requests.With("accepted").Add(2)
	requests.With(`odd "state"`).Inc() // label values are escaped
	queue := r.Gauge("shop_queue_length", "Orders waiting.")
	queue.With().Set(3)
	latency := r.Histogram("shop_order_seconds", "Time to fill an order.", []float64{0.1, 1}, "shop")
	latency.With("north").Observe(0.05)
	latency.With("north").Observe(0.5)
	r.GaugeFunc("shop_shelves", "Shelves, counted when scraped.", []string{"aisle"},
		func(emit func(value float64, labelValues ...string)) {
			emit(4, "b")
			emit(7, "a")
		})

	if err := r.WriteText(os.Stdout); err != nil {
		log.Fatal(err)
	}
	// Output:
	// # HELP shop_order_seconds Time to fill an order.
	// # TYPE shop_order_seconds histogram
	// shop_order_seconds_bucket{shop="north",le="0.1"} 1
	// shop_order_seconds_bucket{shop="north",le="1"} 2
	// shop_order_seconds_bucket{shop="north",le="+Inf"} 2
	// shop_order_seconds_sum{shop="north"} 0.55
	// shop_order_seconds_count{shop="north"} 2
	// # HELP shop_orders_total Orders received, by state.
	// # TYPE shop_orders_total counter
	// shop_orders_total{state="accepted"} 2
	// shop_orders_total{state="odd \"state\""} 1
	// # HELP shop_queue_length Orders waiting.
	// # TYPE shop_queue_length gauge
	// shop_queue_length 3
	// # HELP shop_shelves Shelves, counted when scraped.
	// # TYPE shop_shelves gauge
	// shop_shelves{aisle="a"} 7
	// shop_shelves{aisle="b"} 4
}
