package registry

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"

	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
)

// Reservations are values that at most one object of a storage may hold at a time,
// such as a Service's cluster IP and node ports: kube-apiserver keeps them in its own
// etcd records (an IPAddress object per cluster IP, a CAS'd bitmap of the node ports),
// so that every replica of the server sees the same allocations. Here each reserved
// value is a key of the Store's own storage, created if absent:
//
//	/apikit.dev/reservations/<space>/<value>
//
// holding a stub of the object that reserved it (its kind, the value as its name,
// the holder's namespace/name in an annotation and its uid in an ownerReference).
// Create-if-absent is atomic in every backend (memory, bolt, etcd), so two creates
// racing for one value, in one process or in several servers sharing an etcd, cannot
// both get it; nothing of the allocation lives in process memory.
//
// A strategy hook reserves and releases within the write that runs it ([Reserve],
// [Release], [Reserved]); the Store makes the write and its reservations one outcome:
//
//   - a value reserved by a write that then fails (validation, admission, a name
//     taken, a conflict) is released before the write returns, as kube's service
//     storage reverts its allocation transaction;
//   - a value released by a write is removed only once the write is stored;
//   - a dry run reserves nothing: Reserve only checks that the value is free;
//   - an update's read-modify-write may run its hooks more than once: only the
//     reservations of the last run are kept.
//
// The hooks that release what a deleted object held are [StrategyFor.AfterDelete]'s.
// A server that stops between a reservation and its write leaves the value reserved
// by an object that does not exist (kube-apiserver runs repair loops for that; there
// is none here).

// ErrReserved is what Reserve returns when another object holds the value.
var ErrReserved = errors.New("registry: the value is reserved")

// reservationsGR is the group resource of the reservation keys: no served resource
// has it, so no list or watch of a resource sees them.
var reservationsGR = scheme.GroupResource{Group: "apikit.dev", Resource: "reservations"}

// reservedByAnnotation names the holder of a reservation (namespace/name).
const reservedByAnnotation = "apikit.dev/reserved-by"

// reservations are the reservations of one call of a Store.
type reservations struct {
	mu sync.Mutex
	// held are the keys this call created, wanted those its last run of the hooks
	// reserved, release those it releases once its write is stored.
	held, wanted map[string]bool
	release      map[string]scheme.UID
}

func reservationKey(space, value string) string {
	return storage.Key(reservationsGR, space, value)
}

// Reserve reserves value in space for owner, the object the hook's write stores: nil
// when the value is now owner's (or was reserved for it earlier in this call),
// ErrReserved when another object holds it. A dry run only checks. Outside a call of
// a Store it fails.
func Reserve(ctx context.Context, space, value string, owner scheme.Object) error {
	c, ok := ctx.Value(callKey{}).(*call)
	if !ok || c == nil || c.op == nil {
		return errNoStore
	}
	if err := checkReservation(space, value); err != nil {
		return err
	}
	key := reservationKey(space, value)
	r := c.reservations()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.held[key] {
		r.wanted[key] = true
		return nil
	}
	o := c.op
	if o.rq.DryRun {
		_, err := c.store.store.Get(ctx, key, storage.GetOptions{})
		switch {
		case err == nil:
			return ErrReserved
		case errors.Is(err, storage.ErrNotFound):
			r.wanted[key] = true
			return nil
		default:
			return c.store.toStatus(err, o.gr, owner.GetName())
		}
	}
	stub, err := o.reservationStub(owner, value)
	if err != nil {
		return err
	}
	if _, err := c.store.store.Create(ctx, key, stub); err != nil {
		if errors.Is(err, storage.ErrAlreadyExists) {
			return ErrReserved
		}
		return c.store.toStatus(err, o.gr, owner.GetName())
	}
	r.held[key], r.wanted[key] = true, true
	return nil
}

// Release frees value in space, if owner holds it, once the hook's write is stored
// (right after the hook in [StrategyFor.AfterDelete], whose object is gone): a value
// another object holds stays its. A dry run releases nothing.
func Release(ctx context.Context, space, value string, owner scheme.Object) error {
	c, ok := ctx.Value(callKey{}).(*call)
	if !ok || c == nil || c.op == nil {
		return errNoStore
	}
	if err := checkReservation(space, value); err != nil {
		return err
	}
	r := c.reservations()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.release[reservationKey(space, value)] = owner.GetUID()
	return nil
}

// Reserved returns the values reserved in space, as a most recent read: what a hook
// that picks a free value skips (another write may still take one first: Reserve
// says so).
func Reserved(ctx context.Context, space string) (map[string]bool, error) {
	c, ok := ctx.Value(callKey{}).(*call)
	if !ok || c == nil || c.op == nil {
		return nil, errNoStore
	}
	prefix := storage.Prefix(reservationsGR, space)
	out := map[string]bool{}
	opts := storage.ListOptions{}
	for {
		page, err := c.store.store.List(ctx, prefix, opts)
		if err != nil {
			return nil, c.store.toStatus(err, c.op.gr, "")
		}
		for _, item := range page.Items {
			out[item.GetName()] = true
		}
		if page.Continue == "" {
			return out, nil
		}
		opts.Continue = page.Continue
	}
}

// checkReservation refuses a space or value that would not be one key segment.
func checkReservation(space, value string) error {
	for _, s := range []string{space, value} {
		if s == "" || s == "." || s == ".." || strings.ContainsAny(s, "/%") {
			return errors.New("registry: a reservation space and value must each be one key segment")
		}
	}
	return nil
}

// reservationStub is the record of a reservation: a new object of owner's kind at the
// storage version, named for the value, that names its holder.
func (o *op) reservationStub(owner scheme.Object, value string) (scheme.Object, error) {
	stub, ok := reflect.New(reflect.TypeOf(owner).Elem()).Interface().(scheme.Object)
	if !ok {
		return nil, errors.New("registry: a reservation's owner must be a pointer to a struct")
	}
	if u, isU := owner.(*scheme.Unstructured); isU {
		stub = &scheme.Unstructured{Object: map[string]any{"apiVersion": u.GetAPIVersion(), "kind": u.GetKind()}}
	}
	stub.GetObjectKind().SetGroupVersionKind(o.gvk)
	stub.SetName(value)
	stub.SetAnnotations(map[string]string{reservedByAnnotation: owner.GetNamespace() + "/" + owner.GetName()})
	stub.SetOwnerReferences([]scheme.OwnerReference{{APIVersion: o.gvk.GroupVersion().String(), Kind: o.gvk.Kind, Name: owner.GetName(), UID: owner.GetUID()}})
	return conversion.ObjectToVersion(o.s.scheme, stub, o.s.storageGV(o.res))
}

// reservations returns the call's reservations, made on first use.
func (c *call) reservations() *reservations {
	c.once.Do(func() {
		c.res = &reservations{held: map[string]bool{}, wanted: map[string]bool{}, release: map[string]scheme.UID{}}
	})
	return c.res
}

// retryReservations starts a new run of the hooks of an update's read-modify-write:
// the reservations the next run does not ask for again are dropped at the end.
func retryReservations(ctx context.Context) {
	c, ok := ctx.Value(callKey{}).(*call)
	if !ok || c == nil || c.res == nil {
		return
	}
	c.res.mu.Lock()
	c.res.wanted = map[string]bool{}
	c.res.release = map[string]scheme.UID{}
	c.res.mu.Unlock()
}

// finishReservations ends the reservations of ctx's call with its write: stored
// tells whether the write was stored. On success the releases are made and the
// reservations the last run did not want dropped; on failure every reservation the
// call made is dropped. Removal is best effort: the write's outcome stands.
func finishReservations(ctx context.Context, stored bool) {
	c, ok := ctx.Value(callKey{}).(*call)
	if !ok || c == nil || c.res == nil {
		return
	}
	r := c.res
	r.mu.Lock()
	drop := map[string]scheme.UID{}
	for key := range r.held {
		if !stored || !r.wanted[key] {
			drop[key] = ""
		}
	}
	if stored && !c.op.rq.DryRun {
		for key, uid := range r.release {
			if _, mine := drop[key]; !mine && !r.wanted[key] {
				drop[key] = uid
			}
		}
	}
	r.held, r.wanted, r.release = map[string]bool{}, map[string]bool{}, map[string]scheme.UID{}
	r.mu.Unlock()
	// The removal must not be cut short by the request's end: a client that hangs up
	// would leave the value reserved.
	ctx = context.WithoutCancel(ctx)
	for key, uid := range drop {
		opts := storage.DeleteOptions{}
		if uid != "" {
			// A release removes the holder's own reservation only.
			// A hook that reserves before the Store gives a new object its uid (a
			// strategy's AuthorizeCreate) records none: such a record is the holder's
			// to release by the value alone, as only the holder names it.
			opts.Validate = func(_ context.Context, cur scheme.Object) error {
				if refs := cur.GetOwnerReferences(); len(refs) != 1 || (refs[0].UID != "" && refs[0].UID != uid) {
					return errNotHolder
				}
				return nil
			}
		}
		if _, err := c.store.store.Delete(ctx, key, opts); err != nil && !errors.Is(err, storage.ErrNotFound) && !errors.Is(err, errNotHolder) {
			c.store.log.Error("registry: releasing a reservation failed", "key", key, "err", err)
		}
	}
}

// errNotHolder stops the release of a reservation another object holds.
var errNotHolder = errors.New("registry: the reservation is another object's")

// afterDelete runs the strategy's AfterDelete on obj, just removed from storage (at
// the storage version), and makes the releases it asks for.
func (o *op) afterDelete(ctx context.Context, obj scheme.Object) {
	f := o.hooks.AfterDelete
	if f == nil || o.rq.DryRun {
		return
	}
	own := scheme.DeepCopy(obj)
	if err := o.s.coerceRead(own); err != nil {
		o.s.log.Error("registry: reading a deleted object for AfterDelete failed", "resource", o.gr.String(), "err", err)
		return
	}
	in, err := conversion.ObjectToInternal(o.s.scheme, own, o.gvk)
	if err != nil {
		o.s.log.Error("registry: converting a deleted object for AfterDelete failed", "resource", o.gr.String(), "err", err)
		return
	}
	f(ctx, in)
	finishReservations(ctx, true)
}
