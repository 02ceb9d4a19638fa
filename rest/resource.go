package rest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/codec/protobuf"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/rest/table"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/validation"
)

// request is one resource request on its way through the pipeline.
type request struct {
	h        *Handler
	w        http.ResponseWriter
	r        *http.Request
	ctx      context.Context
	info     *RequestInfo
	user     *User
	res      *scheme.Resource
	gr       scheme.GroupResource
	gv       scheme.GroupVersion
	gvk      scheme.GroupVersionKind
	strategy Strategy
	query    url.Values
	warnings []string
	// applied is set for server-side apply, which records managedFields itself.
	applied bool
}

// serveResource routes a resource request to its verb after checking that the resource,
// version, scope and subresource exist.
func (h *Handler) serveResource(w http.ResponseWriter, r *http.Request, info *RequestInfo) {
	gr := scheme.GroupResource{Group: info.APIGroup, Resource: info.Resource}
	res, ok := h.scheme.Resource(gr)
	if !ok && gr == namespacesGR && info.APIPrefix == "api" && info.APIVersion == "v1" {
		h.serveImplicitNamespace(w, r, info)
		return
	}
	gv := scheme.GroupVersion{Group: info.APIGroup, Version: info.APIVersion}
	if !ok || info.APIVersion == scheme.InternalVersion || !h.scheme.Recognizes(gv.WithKind(res.Kind)) ||
		(info.APIPrefix == "api") != (info.APIGroup == "") || len(info.Parts) > 3 {
		h.writeStatus(w, r, errPathNotFound())
		return
	}
	if res.Namespaced && info.Namespace == "" && info.Name != "" && info.Verb != "list" && info.Verb != "watch" ||
		res.Namespaced && info.Namespace == "" && len(info.Parts) > 1 ||
		!res.Namespaced && info.Namespace != "" {
		h.writeStatus(w, r, errPathNotFound())
		return
	}
	if info.Subresource != "" && !res.HasSubresource(info.Subresource) {
		h.writeStatus(w, r, errPathNotFound())
		return
	}
	user, _ := UserFrom(r.Context())
	rq := &request{
		h: h, w: w, r: r, ctx: r.Context(), info: info, user: user,
		res: res, gr: gr, gv: gv, gvk: gv.WithKind(res.Kind),
		strategy: h.opts.Strategies[gr], query: r.URL.Query(),
	}
	item := len(info.Parts) > 1
	allNamespaces := res.Namespaced && info.Namespace == ""
	switch info.Verb {
	case "get":
		switch info.Subresource {
		case "scale":
			rq.getScale()
		default:
			rq.get()
		}
	case "list":
		rq.list()
	case "watch":
		rq.watch()
	case "create":
		if item || allNamespaces {
			h.writeStatus(w, r, errMethodNotAllowed())
			return
		}
		rq.create()
	case "update", "patch":
		if !item {
			h.writeStatus(w, r, errMethodNotAllowed())
			return
		}
		if info.Subresource == "scale" {
			rq.writeScale()
			return
		}
		rq.update()
	case "delete":
		if info.Subresource != "" {
			h.writeStatus(w, r, errMethodNotAllowed())
			return
		}
		rq.delete()
	case "deletecollection":
		if allNamespaces {
			h.writeStatus(w, r, errMethodNotAllowed())
			return
		}
		rq.deleteCollection()
	default:
		h.writeStatus(w, r, errMethodNotAllowed())
	}
}

// key is the storage key of the object the request names.
func (rq *request) key(name string) string { return storage.Key(rq.gr, rq.info.Namespace, name) }

// fail sends the Status of err.
func (rq *request) fail(err error) {
	addWarnings(rq.w, rq.warnings)
	rq.h.writeStatus(rq.w, rq.r, toStatus(err, rq.gr, rq.info.Name, rq.key(rq.info.Name)))
}

// respond sends an object (at the URL version) with code, as the client asked: plain,
// Table or PartialObjectMetadata.
func (rq *request) respond(code int, obj scheme.Kinded) {
	out, st := rq.h.negotiate(rq.r, codec.ResponseOptions{
		GVK: obj.GetObjectKind().GroupVersionKind(), Object: obj,
		AllowAs: func(as string) bool {
			switch as {
			case asPartialObjectMetadata, asPartialObjectMetadataList, asTable:
				return (rq.info.Verb == "get" || rq.info.Verb == "list") && rq.info.Subresource == ""
			}
			return false
		},
	})
	if st != nil {
		rq.fail(st)
		return
	}
	if out.As == asTable {
		tbl, err := rq.table(obj)
		if err != nil {
			rq.fail(err)
			return
		}
		addWarnings(rq.w, rq.warnings)
		rq.h.writeEncoded(rq.w, rq.r, code, out, tbl)
		return
	}
	if out.As != "" {
		conv, err := toPartialMetadata(obj, out.As)
		if err != nil {
			rq.fail(err)
			return
		}
		obj = conv
	}
	addWarnings(rq.w, rq.warnings)
	rq.h.writeEncoded(rq.w, rq.r, code, out, obj)
}

// table renders an object or list as a meta.k8s.io Table (package rest/table).
func (rq *request) table(obj scheme.Kinded) (scheme.Kinded, error) {
	opts, err := table.ParseOptions(rq.query)
	if err != nil {
		return nil, NewBadRequest(err.Error())
	}
	if v := rq.r.Header.Get("Accept"); strings.Contains(v, "v=v1beta1") && !strings.Contains(v, "v=v1;") && !strings.HasSuffix(v, "v=v1") {
		opts.GroupVersion = scheme.GroupVersion{Group: scheme.MetaGroupVersion.Group, Version: "v1beta1"}
	}
	if list, ok := obj.(scheme.ListObject); ok && scheme.IsList(obj) {
		return table.ForList(rq.res, list, opts)
	}
	o, err := asObject(obj)
	if err != nil {
		return nil, err
	}
	return table.ForObject(rq.res, o, opts)
}

// toPartialMetadata reduces an object or list to PartialObjectMetadata(List).
func toPartialMetadata(obj scheme.Kinded, as string) (scheme.Kinded, error) {
	tm := scheme.TypeMeta{APIVersion: scheme.MetaGroupVersion.String(), Kind: asPartialObjectMetadata}
	if o, ok := obj.(scheme.Object); ok && !scheme.IsList(obj) {
		if as != asPartialObjectMetadata {
			return nil, NewNotAcceptable([]string{"application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"})
		}
		return &scheme.PartialObjectMetadata{TypeMeta: tm, ObjectMeta: metaOf(o)}, nil
	}
	list, ok := obj.(scheme.ListObject)
	if !ok || as != asPartialObjectMetadataList {
		return nil, NewNotAcceptable([]string{"application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"})
	}
	items, err := scheme.ExtractList(obj)
	if err != nil {
		return nil, err
	}
	out := &scheme.PartialObjectMetadataList{
		TypeMeta: scheme.TypeMeta{APIVersion: scheme.MetaGroupVersion.String(), Kind: asPartialObjectMetadataList},
		ListMeta: scheme.ListMeta{ResourceVersion: list.GetResourceVersion(), Continue: list.GetContinue(), RemainingItemCount: list.GetRemainingItemCount()},
		Items:    make([]scheme.PartialObjectMetadata, len(items)),
	}
	for i, it := range items {
		out.Items[i] = scheme.PartialObjectMetadata{TypeMeta: tm, ObjectMeta: metaOf(it)}
	}
	return out, nil
}

// metaOf copies the metadata of any object into an ObjectMeta.
func metaOf(o scheme.MetaAccessor) scheme.ObjectMeta {
	return scheme.ObjectMeta{
		Name: o.GetName(), GenerateName: o.GetGenerateName(), Namespace: o.GetNamespace(), SelfLink: o.GetSelfLink(),
		UID: o.GetUID(), ResourceVersion: o.GetResourceVersion(), Generation: o.GetGeneration(),
		CreationTimestamp: o.GetCreationTimestamp(), DeletionTimestamp: o.GetDeletionTimestamp(),
		DeletionGracePeriodSeconds: o.GetDeletionGracePeriodSeconds(), Labels: o.GetLabels(),
		Annotations: o.GetAnnotations(), OwnerReferences: o.GetOwnerReferences(), Finalizers: o.GetFinalizers(),
		ManagedFields: o.GetManagedFields(),
	}
}

// ---- reading requests ----

// writeOptions reads dryRun and fieldValidation, which every mutating verb accepts.
// kind names the options kind in the 422 Status (CreateOptions, UpdateOptions, ...).
func (rq *request) writeOptions(kind string) (dryRun bool, fieldValidation string, err error) {
	var errs validation.ErrorList
	for _, v := range rq.query["dryRun"] {
		if v != "All" {
			errs = append(errs, validation.NotSupported(validation.NewPath("dryRun"), rq.query["dryRun"], []string{"All"}))
			break
		}
		dryRun = true
	}
	fieldValidation = rq.query.Get("fieldValidation")
	switch fieldValidation {
	case "", "Ignore", "Warn", "Strict":
	default:
		errs = append(errs, validation.NotSupported(validation.NewPath("fieldValidation"), fieldValidation, []string{"", "Ignore", "Strict", "Warn"}))
	}
	if len(errs) > 0 {
		return false, "", newInvalidOptions(kind, errs)
	}
	return dryRun, fieldValidation, nil
}

// readBody reads the request body within the size limit.
func (rq *request) readBody() ([]byte, error) {
	limit := rq.h.maxBody
	if rq.r.ContentLength > limit {
		return nil, NewRequestEntityTooLarge(limit)
	}
	data, err := io.ReadAll(http.MaxBytesReader(rq.w, rq.r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, NewRequestEntityTooLarge(limit)
		}
		return nil, NewBadRequest(fmt.Sprintf("failed to read the request body: %v", err))
	}
	return data, nil
}

// serializerFor returns the serializer of the request's Content-Type (JSON when unset)
// for a body of the given kind, if any: a media type the kind has no encoding in (a
// protobuf body for a kind without protobuf) is 415, like an unknown one.
func (rq *request) serializerFor(contentType string, kind ...scheme.GroupVersionKind) (codec.Serializer, error) {
	var gvk scheme.GroupVersionKind
	var sample any
	if len(kind) > 0 {
		gvk = kind[0]
		if k, err := rq.h.scheme.New(gvk); err == nil {
			sample = k
		}
	}
	ser, err := rq.h.codecs.DecoderFor(contentType, gvk, sample)
	if err != nil {
		var ume *codec.UnsupportedMediaTypeError
		accepted := rq.h.codecs.MediaTypes()
		if errors.As(err, &ume) {
			accepted = ume.Accepted
		}
		return nil, NewUnsupportedMediaType(contentType, accepted)
	}
	return ser, nil
}

// decodeInto decodes data with ser, applying fieldValidation to unknown and duplicate
// fields: Strict fails with 400 listing them all, Warn (the default) adds Warning
// headers, Ignore drops them.
func (rq *request) decodeInto(ser codec.Serializer, data []byte, into scheme.Kinded, def scheme.GroupVersionKind, fieldValidation string) (scheme.Kinded, scheme.GroupVersionKind, error) {
	if ks, ok := ser.(codec.KindSupporter); ok && into != nil && !ks.Supports(def, into) {
		return nil, def, NewUnsupportedMediaType(ser.MediaType(), rq.h.codecs.MediaTypesFor(def, into))
	}
	res, err := ser.Decode(data, &def, into)
	if errors.Is(err, protobuf.ErrNotProtobuf) {
		return nil, res.GVK, NewUnsupportedMediaType(ser.MediaType(), rq.h.codecs.MediaTypesFor(res.GVK, into))
	}
	if err != nil {
		return nil, res.GVK, NewBadRequest(err.Error())
	}
	if len(res.Issues) > 0 {
		switch fieldValidation {
		case "Strict":
			return nil, res.GVK, NewBadRequest(res.Issues.Err().Error())
		case "Ignore":
		default:
			rq.warnings = append(rq.warnings, res.Issues.Warnings()...)
		}
	}
	return res.Object, res.GVK, nil
}

// decodeObject decodes a body that must be an object of the URL's kind and version,
// applies defaults, and returns its internal version.
func (rq *request) decodeObject(data []byte, fieldValidation string) (scheme.Object, error) {
	ser, err := rq.serializerFor(rq.r.Header.Get("Content-Type"), rq.gvk)
	if err != nil {
		return nil, err
	}
	return rq.decodeExternal(ser, data, fieldValidation)
}

func (rq *request) decodeExternal(ser codec.Serializer, data []byte, fieldValidation string) (scheme.Object, error) {
	if len(strings.TrimSpace(string(data))) == 0 {
		return nil, NewBadRequest("the request body is empty; an object of kind " + rq.gvk.Kind + " is expected")
	}
	k, gvk, err := rq.decodeInto(ser, data, nil, rq.gvk, fieldValidation)
	if err != nil {
		var nre *scheme.NotRegisteredError
		if errors.As(err, &nre) || gvk.GroupVersion() != rq.gv {
			return nil, rq.kindMismatch(gvk)
		}
		return nil, err
	}
	if gvk.GroupVersion() != rq.gv || gvk.Kind != rq.gvk.Kind {
		return nil, rq.kindMismatch(gvk)
	}
	obj, err := asObject(k)
	if err != nil {
		return nil, NewBadRequest(err.Error())
	}
	conversion.Default(rq.h.scheme, obj)
	in, err := rq.h.toInternal(obj, rq.gvk.GroupKind())
	if err != nil {
		return nil, NewBadRequest(err.Error())
	}
	return in, nil
}

func (rq *request) kindMismatch(gvk scheme.GroupVersionKind) error {
	if gvk.GroupVersion() != rq.gv {
		return NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)", gvk.GroupVersion().String(), rq.gv.String()))
	}
	return NewBadRequest(fmt.Sprintf("the kind in the data (%s) does not match the expected kind (%s)", gvk.Kind, rq.gvk.Kind))
}

// ---- admission and validation ----

func (rq *request) admissionAttributes(op Operation, name string, old scheme.Object, dryRun bool) AdmissionAttributes {
	a := attributesOf(rq.info, rq.user)
	a.Name = name
	return AdmissionAttributes{Attributes: a, Kind: rq.gvk, Operation: op, OldObject: old, DryRun: dryRun}
}

func (rq *request) admissionError(err error, name string) error {
	var st *scheme.Status
	if errors.As(err, &st) {
		return st
	}
	return NewForbidden(rq.gr, name, err)
}

func (rq *request) mutate(a AdmissionAttributes, obj scheme.Object) error {
	for _, m := range rq.h.opts.MutatingAdmission {
		if err := m.Admit(rq.ctx, a, obj); err != nil {
			return rq.admissionError(err, a.Name)
		}
	}
	return nil
}

func (rq *request) validateAdmission(a AdmissionAttributes, obj scheme.Object) error {
	for _, v := range rq.h.opts.ValidatingAdmission {
		if err := v.Validate(rq.ctx, a, obj); err != nil {
			return rq.admissionError(err, a.Name)
		}
	}
	return nil
}

// appendUnique adds the errors of more that list does not hold yet (by message), so
// that a strategy that checks metadata itself does not report everything twice.
func appendUnique(list, more validation.ErrorList) validation.ErrorList {
	seen := make(map[string]bool, len(list))
	for _, e := range list {
		seen[e.Error()] = true
	}
	for _, e := range more {
		if !seen[e.Error()] {
			seen[e.Error()] = true
			list = append(list, e)
		}
	}
	return list
}

func (rq *request) invalid(errs validation.ErrorList, name string) error {
	return errs.ToStatus(rq.gvk.GroupKind(), name)
}

func (rq *request) validateCreate(obj scheme.Object) error {
	var errs validation.ErrorList
	if v, ok := rq.strategy.(CreateValidator); ok {
		errs = v.Validate(rq.ctx, obj)
	}
	errs = appendUnique(errs, validation.ValidateObjectMeta(obj, rq.res.Namespaced, validation.NameIsDNSSubdomain, validation.NewPath("metadata")))
	if len(errs) > 0 {
		return rq.invalid(errs, obj.GetName())
	}
	return nil
}

func (rq *request) validateUpdate(obj, old scheme.Object) error {
	errs := validation.ValidateObjectMetaUpdate(obj, old, validation.NewPath("metadata"))
	if v, ok := rq.strategy.(UpdateValidator); ok {
		errs = appendUnique(errs, v.ValidateUpdate(rq.ctx, obj, old))
	}
	if len(errs) > 0 {
		return rq.invalid(errs, obj.GetName())
	}
	return nil
}

// ---- get ----

func (rq *request) get() {
	obj, err := rq.h.store.Get(rq.ctx, rq.key(rq.info.Name), storage.GetOptions{ResourceVersion: rq.query.Get("resourceVersion")})
	if err != nil {
		rq.fail(err)
		return
	}
	out, err := rq.h.toVersion(obj, rq.gv)
	if err != nil {
		rq.fail(err)
		return
	}
	rq.respond(http.StatusOK, out)
}

// ---- selectors ----

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
			return p, NewBadRequest("field label not supported: " + req.Field)
		}
	}
	if custom {
		fields := rq.res.SelectableFields
		p.GetAttrs = func(obj scheme.Object) (map[string]string, map[string]string, error) {
			labels, set, _ := storage.DefaultAttrs(obj)
			m, err := toMap(obj)
			if err != nil {
				return nil, nil, err
			}
			for _, f := range fields {
				v, _ := readPath(m, f)
				set[f] = fieldString(v)
			}
			return labels, set, nil
		}
	}
	return p, nil
}

// ---- list ----

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

func (rq *request) list() {
	if st := rq.validateListOptions(); st != nil {
		rq.fail(st)
		return
	}
	pred, err := rq.predicate()
	if err != nil {
		rq.fail(err)
		return
	}
	var limit int64
	if l := rq.query.Get("limit"); l != "" {
		if _, err := fmt.Sscanf(l, "%d", &limit); err != nil {
			rq.fail(NewBadRequest(fmt.Sprintf("invalid limit %q: %v", l, err)))
			return
		}
	}
	prefix := storage.Prefix(rq.gr, rq.info.Namespace)
	lr, err := rq.h.store.List(rq.ctx, prefix, storage.ListOptions{
		ResourceVersion:      rq.query.Get("resourceVersion"),
		ResourceVersionMatch: storage.ResourceVersionMatch(rq.query.Get("resourceVersionMatch")),
		Limit:                limit,
		Continue:             rq.query.Get("continue"),
		Predicate:            pred,
	})
	if err != nil {
		if errors.Is(err, storage.ErrGone) && rq.query.Get("continue") != "" {
			err = NewResourceExpired(continueExpiredMessage)
		}
		rq.fail(err)
		return
	}
	list, err := rq.newList(lr.Items)
	if err != nil {
		rq.fail(err)
		return
	}
	list.SetResourceVersion(lr.ResourceVersion)
	list.SetContinue(lr.Continue)
	list.SetRemainingItemCount(lr.RemainingItemCount)
	rq.respond(http.StatusOK, list)
}

// newList builds the URL version's list kind holding objs converted to the URL version.
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
		if items[i], err = rq.h.toVersion(o, rq.gv); err != nil {
			return nil, err
		}
	}
	if err := scheme.SetList(list, items); err != nil {
		return nil, err
	}
	return list, nil
}
