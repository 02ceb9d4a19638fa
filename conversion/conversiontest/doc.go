// Package conversiontest checks, in a user's tests, that kinds convert between their
// internal (hub) version and every external version without losing information, like the
// round-trip fuzz tests of Kubernetes: RoundTrip fills objects with random values
// (Filler), converts them out and back, and reports any difference with its seed.
//
//	func TestWidgetRoundTrip(t *testing.T) {
//		s := scheme.New()
//		install(s) // register types, conversions and defaults
//		conversiontest.RoundTrip(t, s, scheme.GroupKind{Group: "toys.example.com", Kind: "Widget"},
//			conversiontest.FillFunc(func(spec *hub.WidgetSpec, f *conversiontest.Filler) {
//				f.FillDefault(spec)
//				spec.Color = []string{"red", "green", "blue"}[f.Rand().IntN(3)]
//				if spec.Replicas == nil { // defaulting would set it
//					spec.Replicas = new(int32)
//				}
//			}))
//	}
package conversiontest
