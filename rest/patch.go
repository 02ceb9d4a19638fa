package rest

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"unicode"

	"github.com/apikit-dev/apikit/apierrors"
	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/patch"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/scheme/openapi"
	"github.com/apikit-dev/apikit/validation"
)

// patchRequest is a decoded PATCH body and its options.
type patchRequest struct {
	// apply is set for server-side apply (application/apply-patch+yaml or +cbor); config
	// is then the applied configuration, and duplicates the error naming its duplicate
	// fields (what fieldValidation Strict or Warn reports), if any.
	apply      bool
	config     map[string]any
	duplicates error
	force      bool
	// fn applies a JSON, merge or strategic merge patch to a JSON document.
	fn func([]byte) ([]byte, error)
}

// patchTypes are the patch media types served for the request's kind, as kube lists them
// in a 415: kinds without a strategic merge schema (like custom resources) lack
// application/strategic-merge-patch+json; /scale takes no apply patch.
func (rq *request) patchTypes() []string {
	types := []string{codec.MediaTypeJSONPatch, codec.MediaTypeMergePatch}
	if rq.info.Subresource == "scale" {
		return append(types, codec.MediaTypeStrategicMergePatch)
	}
	if _, err := patch.SchemaFor(rq.h.scheme, rq.gvk); err == nil {
		types = append(types, codec.MediaTypeStrategicMergePatch)
	}
	types = append(types, codec.MediaTypeApplyPatchYAML)
	if rq.applyConfigDecoder(codec.MediaTypeApplyPatchCBOR) != nil {
		types = append(types, codec.MediaTypeApplyPatchCBOR)
	}
	return types
}

// valueUnmarshaler is a serializer that decodes a document into any Go value, as an
// apply configuration of its media type is read (the CBOR serializer).
type valueUnmarshaler interface {
	Unmarshal(data []byte, v any) (codec.FieldIssues, error)
}

// applyConfigDecoder returns what reads an apply patch of a Content-Type whose body is
// in a serializer's media type (application/apply-patch+cbor), nil when the Handler
// does not serve that media type (CBOR disabled).
func (rq *request) applyConfigDecoder(contentType string) valueUnmarshaler {
	ser, ok := rq.h.codecs.ForMediaType(codec.PatchBodyMediaType(contentType))
	if !ok {
		return nil
	}
	vu, _ := ser.(valueUnmarshaler)
	return vu
}

// fieldManager is the manager name of a write: the fieldManager parameter, or the
// User-Agent's prefix like kube-apiserver.
func (rq *request) fieldManager() string {
	if m := rq.query.Get("fieldManager"); m != "" {
		return m
	}
	return patch.ManagerFromUserAgent(rq.r.UserAgent())
}

// validateFieldManager checks the fieldManager parameter as kube's ValidateFieldManager
// does; kind names the options kind of the 422.
func (rq *request) validateFieldManager(kind string, apply, hasForce bool) error {
	var errs validation.ErrorList
	m := rq.query.Get("fieldManager")
	path := validation.NewPath("fieldManager")
	if len(m) > patch.FieldManagerMaxLength {
		errs = append(errs, validation.TooLong(path, "", patch.FieldManagerMaxLength))
	}
	for _, r := range m {
		if !unicode.IsPrint(r) {
			errs = append(errs, validation.Invalid(path, m, "invalid characters"))
			break
		}
	}
	if apply && m == "" {
		errs = append(errs, validation.Required(path, "is required for apply patch"))
	}
	if !apply && hasForce {
		errs = append(errs, validation.Forbidden(validation.NewPath("force"), "may not be specified for non-apply patch"))
	}
	if len(errs) > 0 {
		return newInvalidOptions(kind, errs)
	}
	return nil
}

// decodePatch reads a PATCH body by its Content-Type.
func (rq *request) decodePatch(data []byte) (*patchRequest, error) {
	ct := rq.r.Header.Get("Content-Type")
	mt, err := codec.ParseMediaType(ct)
	if err != nil {
		return nil, apierrors.NewUnsupportedMediaType(ct, rq.patchTypes())
	}
	p := &patchRequest{}
	_, hasForce := rq.query["force"]
	if hasForce {
		if p.force, err = strconv.ParseBool(rq.query.Get("force")); err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid value for force: %q", rq.query.Get("force")))
		}
	}
	essence := mt.Essence()
	isApply := essence == codec.MediaTypeApplyPatchYAML || essence == codec.MediaTypeApplyPatchCBOR
	if err := rq.validateFieldManager("PatchOptions", isApply, hasForce); err != nil {
		return nil, err
	}
	switch essence {
	case codec.MediaTypeMergePatch:
		if err := patch.CheckMergePatch(data); err != nil {
			return nil, patchStatus(err)
		}
		p.fn = func(doc []byte) ([]byte, error) { return patch.MergePatch(doc, data) }
	case codec.MediaTypeJSONPatch:
		jp, err := patch.DecodeJSONPatch(data)
		if err != nil {
			return nil, patchStatus(err)
		}
		p.fn = jp.Apply
	case codec.MediaTypeStrategicMergePatch:
		var sch *openapi.Schema
		if rq.info.Subresource != "scale" {
			if sch, err = patch.SchemaFor(rq.h.scheme, rq.gvk); err != nil {
				return nil, apierrors.NewUnsupportedMediaType(ct, rq.patchTypes())
			}
		}
		p.fn = func(doc []byte) ([]byte, error) { return patch.StrategicMerge(doc, data, sch) }
	case codec.MediaTypeApplyPatchYAML:
		if rq.info.Subresource == "scale" {
			return nil, apierrors.NewUnsupportedMediaType(ct, rq.patchTypes())
		}
		cfg, duplicates, err := patch.DecodeApplyConfigWithin(data, rq.h.maxBody)
		if err != nil {
			return nil, patchStatus(err)
		}
		if err := rq.checkDecodedSize(data, 0, mayAlias(data), &scheme.Unstructured{Object: cfg}, false); err != nil {
			return nil, err
		}
		p.apply, p.config, p.duplicates = true, cfg, duplicates
	case codec.MediaTypeApplyPatchCBOR:
		dec := rq.applyConfigDecoder(essence)
		if rq.info.Subresource == "scale" || dec == nil {
			return nil, apierrors.NewUnsupportedMediaType(ct, rq.patchTypes())
		}
		var cfg map[string]any
		issues, err := dec.Unmarshal(data, &cfg)
		if err != nil || cfg == nil {
			msg := "the apply configuration is empty; an object is expected"
			if err != nil {
				msg = err.Error()
			}
			return nil, apierrors.NewBadRequest("error decoding CBOR: " + msg)
		}
		if err := rq.checkDecodedSize(data, 0, false, &scheme.Unstructured{Object: cfg}, false); err != nil {
			return nil, err
		}
		p.apply, p.config = true, cfg
		if len(issues) > 0 {
			p.duplicates = fmt.Errorf("error strict decoding CBOR: %w", issues.Err())
		}
	default:
		return nil, apierrors.NewUnsupportedMediaType(ct, rq.patchTypes())
	}
	return p, nil
}

// patcher returns the function that applies the request's JSON, merge or strategic
// merge patch to a JSON document (what /scale uses).
func (rq *request) patcher(data []byte) (func([]byte) ([]byte, error), error) {
	p, err := rq.decodePatch(data)
	if err != nil {
		return nil, err
	}
	return func(doc []byte) ([]byte, error) {
		out, err := p.fn(doc)
		if err != nil {
			return nil, patchStatus(err)
		}
		return out, nil
	}, nil
}

// patchStatus maps an error of package patch to kube's Status: 400 for a patch that
// cannot be read, 422 for one that does not apply, 413 for one over a limit, 415, 409
// for apply conflicts.
func patchStatus(err error) error {
	var ce *patch.ConflictError
	if errors.As(err, &ce) {
		causes := make([]scheme.StatusCause, len(ce.Conflicts))
		for i, c := range ce.Conflicts {
			causes[i] = scheme.StatusCause{Type: scheme.CauseTypeFieldManagerConflict, Message: "conflict with " + c.Manager, Field: c.Field}
		}
		return apierrors.New(http.StatusConflict, scheme.StatusReasonConflict, ce.Error(), &scheme.StatusDetails{Causes: causes})
	}
	var pe *patch.Error
	if !errors.As(err, &pe) {
		return err
	}
	switch {
	case errors.Is(err, patch.ErrMalformed):
		return apierrors.NewBadRequest(pe.Message)
	case errors.Is(err, patch.ErrUnsupported):
		return apierrors.New(http.StatusUnsupportedMediaType, scheme.StatusReasonUnsupportedMediaType, pe.Message, nil)
	case errors.Is(err, patch.ErrTooLarge):
		return apierrors.New(http.StatusRequestEntityTooLarge, scheme.StatusReasonRequestEntityTooLarge, "Request entity too large: "+pe.Message, nil)
	}
	return patchRejected(pe)
}

// patchRejected is kube's 422 for a patch that does not apply
// (NewGenericServerResponse(422, ...)).
func patchRejected(err error) *scheme.Status {
	return apierrors.New(http.StatusUnprocessableEntity, scheme.StatusReasonInvalid, "the server rejected our request due to an error in our request",
		&scheme.StatusDetails{Causes: []scheme.StatusCause{{Type: scheme.CauseTypeUnexpectedServerResponse, Message: err.Error()}}})
}

// checkPatchedName is kube's check of a patch's result (patcher.applyPatch): the
// namespace is reconciled with the request's first, then the result must keep the
// URL's name.
func (rq *request) checkPatchedName(obj scheme.Object) error {
	if err := rq.ensureNamespace(obj); err != nil {
		return err
	}
	if n := obj.GetName(); n != rq.info.Name {
		return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", n, rq.info.Name))
	}
	return nil
}

// applyObject runs server-side apply of the request's configuration on the stored
// object (internal version, nil when absent) and returns the new internal object.
func (rq *request) applyObject(old scheme.Object, p *patchRequest) (scheme.Object, error) {
	fm, err := rq.h.reg.FieldManager(rq.lifecycle(false))
	if err != nil {
		return nil, err
	}
	live, err := rq.h.reg.LiveObject(rq.lifecycle(false), old)
	if err != nil {
		return nil, err
	}
	cfg := scheme.DeepCopyJSONValue(p.config).(map[string]any)
	out, managed, err := fm.Apply(live, cfg, rq.query.Get("fieldManager"), p.force)
	if err != nil {
		return nil, patchStatus(err)
	}
	obj, err := conversion.ObjectFromMap(rq.h.scheme, rq.gvk, out)
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	obj.SetManagedFields(managed)
	if err := rq.checkPatchedName(obj); err != nil {
		return nil, err
	}
	conversion.Default(rq.h.scheme, obj)
	// kube-apiserver defaults the result of an apply, and prunes it silently on its way
	// to storage (fields the schema does not declare fail the apply before).
	if err := rq.h.reg.Coerce(obj); err != nil {
		return nil, apierrors.NewObjectTooLarge()
	}
	in, err := conversion.ObjectToInternal(rq.h.scheme, obj, rq.gvk)
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	return in, nil
}

// patchObject applies a JSON, merge or strategic merge patch to the URL-version JSON of
// the stored object and decodes the result into the new internal object; the result must
// keep the object's name.
func (rq *request) patchObject(old scheme.Object, apply func([]byte) ([]byte, error), fieldValidation string) (scheme.Object, error) {
	ext, err := conversion.ObjectToVersion(rq.h.scheme, scheme.DeepCopy(old), rq.gv)
	if err != nil {
		return nil, err
	}
	orig, err := json.Marshal(ext)
	if err != nil {
		return nil, err
	}
	patched, err := apply(orig)
	if err != nil {
		return nil, patchStatus(err)
	}
	ser, _ := rq.h.codecs.ForMediaType("application/json")
	in, err := rq.decodeExternal(ser, patched, fieldValidation)
	if err != nil {
		return nil, err
	}
	if err := rq.checkPatchedName(in); err != nil {
		return nil, err
	}
	return in, nil
}
