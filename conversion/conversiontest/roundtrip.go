package conversiontest

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/scheme"
)

// Option configures RoundTrip.
type Option func(*config)

type config struct {
	iterations int
	seed       uint64
	fill       []func(*Filler)
	encode     func(obj scheme.Kinded) ([]byte, error)
	decode     func(data []byte, into scheme.Kinded) error
	versioned  bool
	versions   []string
	cmpOpts    []cmp.Option
}

// Iterations sets how many random objects RoundTrip tries; the default is 1000.
func Iterations(n int) Option { return func(c *config) { c.iterations = n } }

// Seed sets the seed of the first iteration; iteration i uses seed+i, so a failure
// reported at seed N reproduces with Seed(N), Iterations(1). The default is 1.
func Seed(seed uint64) Option { return func(c *config) { c.seed = seed } }

// FillFunc makes the Filler fill every value of type T with fn: for enum fields, values a
// version cannot represent, or fields that defaulting would change.
func FillFunc[T any](fn func(obj *T, f *Filler)) Option {
	return func(c *config) {
		c.fill = append(c.fill, func(f *Filler) { SetFillFunc(f, fn) })
	}
}

// Codec makes every round trip also pass through the wire: the versioned object is
// encoded and decoded into a new object of its kind before it converts back. Pass the
// functions of the codec under test.
func Codec(encode func(obj scheme.Kinded) ([]byte, error), decode func(data []byte, into scheme.Kinded) error) Option {
	return func(c *config) { c.encode, c.decode = encode, decode }
}

// Versioned also checks the other direction: random objects of each external version
// convert to the internal version and back to the same version unchanged (after
// defaulting). A version that keeps data the hub cannot hold fails it.
func Versioned() Option { return func(c *config) { c.versioned = true } }

// Versions restricts the round trips to the given external versions; the default is every
// version the kind is registered in.
func Versions(versions ...string) Option {
	return func(c *config) { c.versions = append(c.versions, versions...) }
}

// CmpOptions adds go-cmp options to the comparison of the original and the round-tripped
// object, for example to compare types with unexported fields.
func CmpOptions(opts ...cmp.Option) Option {
	return func(c *config) { c.cmpOpts = append(c.cmpOpts, opts...) }
}

// RoundTrip checks that the kind gk converts from the internal version to each external
// version and back without losing information. For each of the iterations it fills an
// internal object with random values (see Filler), converts it with conversion.ToVersion
// to each version, optionally encodes and decodes it (Codec), applies the version's
// defaults (conversion.Default, as a server does after decoding), converts it back to the
// internal version, and compares with go-cmp. A difference fails t with the diff, the
// version and the seed that reproduces it, and ends the run. Defaulting must not change a
// filled object: constrain such fields with FillFunc, as with the Kubernetes fuzzer.
//
// With a Codec, nil and empty slices and maps compare equal (JSON's omitempty cannot keep
// them apart), as in Kubernetes' semantic equality.
func RoundTrip(t testing.TB, s *scheme.Scheme, gk scheme.GroupKind, opts ...Option) {
	t.Helper()
	c := config{iterations: 1000, seed: 1}
	for _, o := range opts {
		o(&c)
	}
	internal := gk.WithVersion(scheme.InternalVersion)
	if !s.Recognizes(internal) {
		t.Errorf("conversiontest: %v has no internal version registered", gk)
		return
	}
	versions := c.versions
	if versions == nil {
		for _, v := range s.KindVersions(gk) {
			if v != scheme.InternalVersion {
				versions = append(versions, v)
			}
		}
	}
	if len(versions) == 0 {
		t.Errorf("conversiontest: %v has no external version registered", gk)
		return
	}
	cmpOpts := append([]cmp.Option{
		cmp.Comparer(func(a, b scheme.Time) bool { return a.Equal(&b) }),
	}, c.cmpOpts...)
	if c.encode != nil {
		cmpOpts = append(cmpOpts, cmpopts.EquateEmpty())
	}
	for i := 0; i < c.iterations; i++ {
		seed := c.seed + uint64(i)
		for _, v := range versions {
			if msg := c.internalRoundTrip(s, internal, v, seed, cmpOpts); msg != "" {
				t.Errorf("conversiontest: %v internal -> %s -> internal, seed %d (rerun with Seed(%d), Iterations(1)): %s", gk, v, seed, seed, msg)
				return
			}
			if c.versioned {
				if msg := c.versionedRoundTrip(s, gk.WithVersion(v), seed, cmpOpts); msg != "" {
					t.Errorf("conversiontest: %v %s -> internal -> %s, seed %d (rerun with Seed(%d), Iterations(1)): %s", gk, v, v, seed, seed, msg)
					return
				}
			}
		}
	}
}

func (c *config) filler(seed uint64) *Filler {
	f := NewFiller(seed)
	for _, fn := range c.fill {
		fn(f)
	}
	return f
}

func (c *config) internalRoundTrip(s *scheme.Scheme, internal scheme.GroupVersionKind, version string, seed uint64, opts []cmp.Option) string {
	obj, err := s.New(internal)
	if err != nil {
		return err.Error()
	}
	c.filler(seed).Fill(obj)
	gv := scheme.GroupVersion{Group: internal.Group, Version: version}
	ext, err := conversion.ToVersion(s, obj, gv)
	if err != nil {
		return fmt.Sprintf("to %s: %v", version, err)
	}
	if ext, err = c.wire(s, ext, gv.WithKind(internal.Kind)); err != nil {
		return err.Error()
	}
	conversion.Default(s, ext)
	back, err := conversion.ToVersion(s, ext, internal.GroupVersion())
	if err != nil {
		return fmt.Sprintf("back to the internal version: %v", err)
	}
	if diff := cmp.Diff(obj, back, opts...); diff != "" {
		return "the object changed (-original +round-tripped):\n" + diff
	}
	return ""
}

func (c *config) versionedRoundTrip(s *scheme.Scheme, gvk scheme.GroupVersionKind, seed uint64, opts []cmp.Option) string {
	obj, err := s.New(gvk)
	if err != nil {
		return err.Error()
	}
	c.filler(seed).Fill(obj)
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	conversion.Default(s, obj)
	wired, err := c.wire(s, obj, gvk)
	if err != nil {
		return err.Error()
	}
	hub, err := conversion.ToVersion(s, wired, gvk.GroupVersion().Internal())
	if err != nil {
		return fmt.Sprintf("to the internal version: %v", err)
	}
	back, err := conversion.ToVersion(s, hub, gvk.GroupVersion())
	if err != nil {
		return fmt.Sprintf("back to %s: %v", gvk.Version, err)
	}
	if diff := cmp.Diff(obj, back, opts...); diff != "" {
		return "the object changed (-original +round-tripped):\n" + diff
	}
	return ""
}

// wire passes obj through the codec, if one is set.
func (c *config) wire(s *scheme.Scheme, obj scheme.Kinded, gvk scheme.GroupVersionKind) (scheme.Kinded, error) {
	if c.encode == nil {
		return obj, nil
	}
	data, err := c.encode(obj)
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", gvk.Version, err)
	}
	fresh, err := s.New(gvk)
	if err != nil {
		return nil, err
	}
	if err := c.decode(data, fresh); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", gvk.Version, err)
	}
	return fresh, nil
}
