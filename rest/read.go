package rest

import (
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strconv"

	"github.com/apikit-dev/apikit/conversion"

	"github.com/apikit-dev/apikit/apierrors"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/validation"
)

func (rq *request) get() {
	obj, err := rq.h.store.Get(rq.ctx, rq.key(rq.info.Name), storage.GetOptions{ResourceVersion: rq.query.Get("resourceVersion")})
	if err != nil {
		rq.fail(err)
		return
	}
	out, err := rq.h.reg.ReadGotAs(obj, rq.gv)
	if err != nil {
		rq.fail(err)
		return
	}
	rq.respond(http.StatusOK, out)
}

// predicate builds the label and field predicate of a list, watch or deletecollection.
// Field selectors may name metadata.name, metadata.namespace and the resource's
// SelectableFields; anything else is 400 `field label not supported: X`.
func (rq *request) predicate() (storage.Predicate, error) {
	var p storage.Predicate
	var err error
	if p.Label, err = storage.ParseLabelSelector(rq.query.Get("labelSelector")); err != nil {
		return p, err
	}
	if p.Field, err = storage.ParseFieldSelector(rq.query.Get("fieldSelector")); err != nil {
		return p, err
	}
	custom := false
	for _, req := range p.Field.Requirements() {
		switch {
		case req.Field == "metadata.name" || req.Field == "metadata.namespace":
		case slices.Contains(rq.res.SelectableFields, req.Field):
			custom = true
		default:
			return p, apierrors.NewBadRequest("field label not supported: " + req.Field)
		}
	}
	if custom {
		fields, paths := rq.res.SelectableFields, rq.res.FieldPaths
		p.GetAttrs = func(obj scheme.Object) (map[string]string, map[string]string, error) {
			labels, set, _ := storage.DefaultAttrs(obj)
			m, err := conversion.ObjectMap(obj)
			if err != nil {
				return nil, nil, err
			}
			for _, f := range fields {
				path := f
				if p, ok := paths[f]; ok {
					path = p
				}
				v, ok := readPath(m, path)
				if !ok {
					// A typed field its JSON omits holds its Go zero value: kube's field
					// selectors read Go fields (spec.hostNetwork=false of a Pod without it).
					v = zeroField(reflect.TypeOf(obj), path)
				}
				set[f] = fieldString(v)
			}
			return labels, set, nil
		}
	}
	return p, nil
}

// validateListOptions checks the combinations kube-apiserver rejects for a list with 422
// Invalid ListOptions before it reads anything (ValidateListOptions upstream).
func (rq *request) validateListOptions() *scheme.Status {
	var errs validation.ErrorList
	q := rq.query
	path := validation.NewPath("resourceVersionMatch")
	if match := q.Get("resourceVersionMatch"); match != "" {
		if q.Get("resourceVersion") == "" {
			errs = append(errs, validation.Forbidden(path, "resourceVersionMatch is forbidden unless resourceVersion is provided"))
		}
		if q.Get("continue") != "" {
			errs = append(errs, validation.Forbidden(path, "resourceVersionMatch is forbidden when continue is provided"))
		}
		switch storage.ResourceVersionMatch(match) {
		case storage.ResourceVersionMatchExact:
			if q.Get("resourceVersion") == "0" {
				errs = append(errs, validation.Forbidden(path, `resourceVersionMatch "exact" is forbidden for resourceVersion "0"`))
			}
		case storage.ResourceVersionMatchNotOlderThan:
		default:
			errs = append(errs, validation.NotSupported(path, match, []string{string(storage.ResourceVersionMatchExact), string(storage.ResourceVersionMatchNotOlderThan), ""}))
		}
	}
	if q.Has("sendInitialEvents") {
		errs = append(errs, validation.Forbidden(validation.NewPath("sendInitialEvents"), "sendInitialEvents is forbidden for list"))
	}
	if len(errs) > 0 {
		return newInvalidOptions("ListOptions", errs)
	}
	return nil
}

// listOptionInts parses the integer ListOptions of a list or watch as kube-apiserver's
// parameter codec does, before any other check: timeoutSeconds, then limit, each its
// first value through strconv.ParseInt in base 10 (a sign allowed, nothing else: no
// fraction, exponent or space). A value that does not parse is kube's 400 with the
// parser's message. timeoutSeconds is nil when absent.
func (rq *request) listOptionInts() (timeoutSeconds *int64, limit int64, err error) {
	t, set, err := rq.queryInt("timeoutSeconds")
	if err != nil {
		return nil, 0, err
	}
	if set {
		timeoutSeconds = &t
	}
	limit, _, err = rq.queryInt("limit")
	return timeoutSeconds, limit, err
}

// queryInt parses the first value of the query parameter name, if any.
func (rq *request) queryInt(name string) (n int64, set bool, err error) {
	vs := rq.query[name]
	if len(vs) == 0 {
		return 0, false, nil
	}
	if n, err = strconv.ParseInt(vs[0], 10, 64); err != nil {
		return 0, false, apierrors.NewBadRequest(err.Error())
	}
	return n, true, nil
}

func (rq *request) list() {
	_, limit, err := rq.listOptionInts()
	if err != nil {
		rq.fail(err)
		return
	}
	if st := rq.validateListOptions(); st != nil {
		rq.fail(st)
		return
	}
	pred, err := rq.predicate()
	if err != nil {
		rq.fail(err)
		return
	}
	prefix := storage.Prefix(rq.stored, rq.info.Namespace)
	lr, shared, err := rq.h.listToSend(rq.ctx, prefix, storage.ListOptions{
		ResourceVersion:      rq.query.Get("resourceVersion"),
		ResourceVersionMatch: storage.ResourceVersionMatch(rq.query.Get("resourceVersionMatch")),
		Limit:                limit,
		Continue:             rq.query.Get("continue"),
		Predicate:            pred,
	})
	if err != nil {
		if errors.Is(err, storage.ErrGone) && rq.query.Get("continue") != "" {
			err = apierrors.NewResourceExpired(continueExpiredMessage)
		}
		rq.fail(err)
		return
	}
	rq.respondList(lr, shared)
}

// newList builds the URL version's list kind holding stored objs as read at the URL
// version (readAs).
func (rq *request) newList(objs []scheme.Object) (scheme.ListObject, error) {
	k, err := rq.h.scheme.New(rq.gv.WithKind(rq.res.ListKind))
	if err != nil {
		return nil, err
	}
	list, ok := k.(scheme.ListObject)
	if !ok {
		return nil, fmt.Errorf("%T is not a list", k)
	}
	items := make([]scheme.Object, len(objs))
	for i, o := range objs {
		if items[i], err = rq.h.reg.ReadAs(o, rq.gv); err != nil {
			return nil, err
		}
	}
	if err := scheme.SetList(list, items); err != nil {
		return nil, err
	}
	return list, nil
}
