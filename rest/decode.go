package rest

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/apikit-dev/apikit/apierrors"
	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

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

// readBody reads the request body within the size limit and the request's deadline.
func (rq *request) readBody() ([]byte, error) {
	limit := rq.h.maxBody
	if rq.r.ContentLength > limit {
		return nil, apierrors.NewRequestEntityTooLarge(limit)
	}
	clearDeadline := rq.setReadDeadline()
	data, err := io.ReadAll(http.MaxBytesReader(rq.w, rq.r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, apierrors.NewRequestEntityTooLarge(limit)
		}
		if timedOut(rq.ctx, err) {
			return nil, apierrors.NewTimeout()
		}
		return nil, apierrors.NewBadRequest(fmt.Sprintf("failed to read the request body: %v", err))
	}
	// Only once the body is all read: net/http reads what is left of a body before it
	// answers, which the deadline still bounds.
	clearDeadline()
	rq.h.auditRequestBody(rq.r, data)
	if len(data) > LargeBodyBytes && !rq.largeSeat {
		if rq.largeSeat, err = rq.h.limits.takeLargeSeat(rq.ctx); err != nil {
			return nil, err
		}
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
		return nil, apierrors.NewUnsupportedMediaType(contentType, accepted)
	}
	return ser, nil
}

// decodeInto decodes data with ser, applying fieldValidation to unknown and duplicate
// fields: Strict fails with 400 listing them all, Warn (the default) adds Warning
// headers, Ignore drops them. An object of a kind with a compiled schema is pruned of
// the fields the schema does not declare, each an unknown field, as kube-apiserver
// decodes a custom resource.
func (rq *request) decodeInto(ser codec.Serializer, data []byte, into scheme.Kinded, def scheme.GroupVersionKind, fieldValidation string) (scheme.Kinded, scheme.GroupVersionKind, error) {
	if ks, ok := ser.(codec.KindSupporter); ok && into != nil && !ks.Supports(def, into) {
		return nil, def, apierrors.NewUnsupportedMediaType(ser.MediaType(), rq.h.codecs.MediaTypesFor(def, into))
	}
	var res codec.Result
	var err error
	if ld, ok := ser.(codec.LimitedDecoder); ok {
		// What the body stands for counts against the body limit (YAML's aliases).
		res, err = ld.DecodeWithin(data, rq.h.maxBody, &def, into)
	} else {
		res, err = ser.Decode(data, &def, into)
	}
	var tooLarge *codec.TooLargeError
	if errors.As(err, &tooLarge) {
		return nil, res.GVK, apierrors.NewRequestEntityTooLarge(rq.h.maxBody)
	}
	if errors.Is(err, codec.ErrUnsupportedMediaType) {
		return nil, res.GVK, apierrors.NewUnsupportedMediaType(ser.MediaType(), rq.h.codecs.MediaTypesFor(res.GVK, into))
	}
	if oe := (*codec.ObjectError)(nil); errors.As(err, &oe) {
		// kube-apiserver's transformDecodeError: a field decoder's own error, as it is.
		inner := oe.Err
		if ue := (*codec.UnmarshalerError)(nil); errors.As(inner, &ue) {
			inner = ue.Err
		}
		return nil, res.GVK, apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", oe.GVK.Kind, oe.GVK.Version, oe.GVK.Kind, inner))
	}
	if err != nil {
		return nil, res.GVK, apierrors.NewBadRequest(err.Error())
	}
	if u, ks := rq.h.reg.SchemaFor(res.Object); ks != nil {
		for _, p := range ks.Structural.PruneDecoded(u.Object) {
			res.Issues = append(res.Issues, codec.FieldIssue{Type: codec.UnknownField, Path: p})
		}
		if err := ks.Structural.MalformedEmbedded(u.Object); err != nil {
			gvk := u.GroupVersionKind()
			return nil, res.GVK, apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", gvk.Kind, gvk.Version, gvk.Kind, err))
		}
	}
	if len(res.Issues) > 0 {
		switch fieldValidation {
		case "Strict":
			return nil, res.GVK, apierrors.NewBadRequest(res.Issues.Err().Error())
		case "Ignore":
		default:
			rq.warnings = append(rq.warnings, res.Issues.Warnings()...)
		}
	}
	return res.Object, res.GVK, nil
}

// decodeObject decodes a body that must be an object of the URL's kind and version,
// applies defaults (the Go defaulters, or the schema's of a schema-only kind), and
// returns its internal version.
func (rq *request) decodeObject(data []byte, fieldValidation string) (scheme.Object, error) {
	ser, err := rq.serializerFor(rq.r.Header.Get("Content-Type"), rq.gvk)
	if err != nil {
		return nil, err
	}
	return rq.decodeExternal(ser, data, fieldValidation)
}

func (rq *request) decodeExternal(ser codec.Serializer, data []byte, fieldValidation string) (scheme.Object, error) {
	if len(strings.TrimSpace(string(data))) == 0 {
		return nil, apierrors.NewBadRequest("the request body is empty; an object of kind " + rq.gvk.Kind + " is expected")
	}
	k, gvk, err := rq.decodeInto(ser, data, nil, rq.gvk, fieldValidation)
	if err != nil {
		if st := (*scheme.Status)(nil); errors.As(err, &st) && st.Reason == scheme.StatusReasonRequestEntityTooLarge {
			return nil, err
		}
		var nre *scheme.NotRegisteredError
		if gvk.Empty() && !errors.As(err, &nre) {
			return nil, rq.unrecognized(data, err)
		}
		if errors.As(err, &nre) || gvk.GroupVersion() != rq.gv {
			return nil, rq.kindMismatch(gvk)
		}
		return nil, err
	}
	if gvk.GroupVersion() != rq.gv || gvk.Kind != rq.gvk.Kind {
		return nil, rq.kindMismatch(gvk)
	}
	obj, err := conversion.AsObject(k)
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	conversion.Default(rq.h.scheme, obj)
	var added int64
	if u, ks := rq.h.reg.SchemaFor(obj); ks != nil {
		// kube defaults on decode; the defaults stop at the size limit rather than
		// build an object storage would refuse.
		if added, err = ks.Structural.DefaultWithin(u.Object, rq.h.reg.DefaultsBudget()); err != nil {
			return nil, apierrors.NewObjectTooLarge()
		}
	}
	_, isYAML := ser.(codec.LimitedDecoder)
	if err := rq.checkDecodedSize(data, added, isYAML && mayAlias(data), obj, true); err != nil {
		return nil, err
	}
	rq.auditRequestObject(obj)
	in, err := conversion.ObjectToInternal(rq.h.scheme, obj, rq.gvk)
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	return in, nil
}

func (rq *request) kindMismatch(gvk scheme.GroupVersionKind) error {
	if rq.subresourceBody && rq.h.scheme.Recognizes(gvk) {
		return subresourceKindMismatch(gvk, rq.gvk) // subresource.go
	}
	if gvk.GroupVersion() != rq.gv {
		return apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)", gvk.GroupVersion().String(), rq.gv.String()))
	}
	return apierrors.NewBadRequest(fmt.Sprintf("the kind in the data (%s) does not match the expected kind (%s)", gvk.Kind, rq.gvk.Kind))
}

// unrecognized is kube's 400 for a body the decoder could not read a kind from (bad
// YAML, CBOR or protobuf): the decoder's error and the body's start, as kube's
// transformDecodeError words it, instead of a version mismatch with an empty version.
func (rq *request) unrecognized(data []byte, err error) error {
	var st *scheme.Status
	if errors.As(err, &st) {
		err = errors.New(st.Message)
	}
	return apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): %v (%s)", rq.gvk.Kind, err, summarizeBody(data, 30)))
}

// summarizeBody is the start of a body for an error message, as kube's summarizeData:
// a JSON object as text, anything else in hex, cut after maxLength bytes.
func summarizeBody(data []byte, maxLength int) string {
	cut, suffix := data, ""
	if len(data) > maxLength {
		cut, suffix = data[:maxLength], " ..."
	}
	switch {
	case len(data) == 0:
		return "<empty>"
	case data[0] == '{':
		return string(cut) + suffix
	default:
		return hex.EncodeToString(cut) + suffix
	}
}
