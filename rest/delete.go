package rest

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/apikit-dev/apikit/apierrors"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// deleteOptions reads registry.DeleteOptions from the body (if any) and the query.
func (rq *request) deleteOptions() (*registry.DeleteOptions, bool, error) {
	opts := &registry.DeleteOptions{}
	data, err := rq.readBody()
	if err != nil {
		return nil, false, err
	}
	if len(data) > 0 {
		ser, err := rq.serializerFor(rq.r.Header.Get("Content-Type"))
		if err != nil {
			return nil, false, err
		}
		def := scheme.GroupVersionKind{Version: "v1", Kind: "DeleteOptions"}
		if _, _, err := rq.decodeInto(ser, data, opts, def, "Ignore"); err != nil {
			return nil, false, err
		}
	}
	q := rq.query
	if v := q.Get("gracePeriodSeconds"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, false, apierrors.NewBadRequest(fmt.Sprintf("invalid gracePeriodSeconds %q", v))
		}
		opts.GracePeriodSeconds = &n
	}
	if v := q.Get("propagationPolicy"); v != "" {
		p := registry.DeletionPropagation(v)
		opts.PropagationPolicy = &p
	}
	if v := q.Get("orphanDependents"); v != "" {
		b := isTrue(v)
		opts.OrphanDependents = &b
	}
	if d, ok := q["dryRun"]; ok {
		opts.DryRun = d
	}
	var errs validation.ErrorList
	for _, d := range opts.DryRun {
		if d != "All" {
			errs = append(errs, validation.NotSupported(validation.NewPath("dryRun"), opts.DryRun, []string{"All"}))
			break
		}
	}
	if opts.OrphanDependents != nil && opts.PropagationPolicy != nil {
		errs = append(errs, validation.Invalid(validation.NewPath("propagationPolicy"), *opts.PropagationPolicy, "orphanDependents and deletionPropagation cannot be both set"))
	}
	if p := opts.PropagationPolicy; p != nil {
		switch *p {
		case registry.DeletePropagationOrphan, registry.DeletePropagationBackground, registry.DeletePropagationForeground:
		default:
			errs = append(errs, validation.NotSupported(validation.NewPath("propagationPolicy"), *p, []string{"Foreground", "Background", "Orphan", "nil"}))
		}
	}
	if g := opts.GracePeriodSeconds; g != nil && *g < 0 {
		errs = append(errs, validation.Invalid(validation.NewPath("gracePeriodSeconds"), *g, "must be greater than or equal to 0"))
	}
	if len(errs) > 0 {
		return nil, false, newInvalidOptions("DeleteOptions", errs)
	}
	return opts, len(opts.DryRun) > 0, nil
}

func (rq *request) delete() {
	opts, dryRun, err := rq.deleteOptions()
	if err != nil {
		rq.fail(err)
		return
	}
	out, deleted, err := rq.h.reg.Delete(rq.ctx, rq.lifecycle(dryRun), rq.info.Name, opts)
	if err != nil {
		rq.fail(err)
		return
	}
	if deleted {
		rq.respond(http.StatusOK, &scheme.Status{
			TypeMeta: scheme.TypeMeta{Kind: "Status", APIVersion: "v1"},
			Status:   scheme.StatusSuccess,
			Details:  &scheme.StatusDetails{Name: out.GetName(), Group: rq.gr.Group, Kind: rq.gr.Resource, UID: out.GetUID()},
		})
		return
	}
	ext, err := rq.h.reg.ReadAs(out, rq.gv)
	if err != nil {
		rq.fail(err)
		return
	}
	rq.respond(http.StatusOK, ext)
}

// deleteCollection deletes every object the selectors match, each like a delete, and
// returns the list of the objects it deleted (or marked for deletion).
func (rq *request) deleteCollection() {
	opts, dryRun, err := rq.deleteOptions()
	if err != nil {
		rq.fail(err)
		return
	}
	pred, err := rq.predicate()
	if err != nil {
		rq.fail(err)
		return
	}
	done, rv, err := rq.h.reg.DeleteCollection(rq.ctx, rq.lifecycle(dryRun), pred, opts)
	if err != nil {
		rq.fail(err)
		return
	}
	if items, ok, err := rq.h.reg.ReadItemsAs(done, rq.res, rq.gv, false); err != nil {
		rq.fail(err)
		return
	} else if ok {
		done = items // converted in one call, as respondList converts a list's
	}
	list, err := rq.newList(done)
	if err != nil {
		rq.fail(err)
		return
	}
	list.SetResourceVersion(rv)
	rq.respond(http.StatusOK, list)
}
