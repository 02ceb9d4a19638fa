package admission

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/apikit-dev/apikit/apierrors"
	admissionv1 "github.com/apikit-dev/apikit/builtin/admission/v1"
	authenticationv1 "github.com/apikit-dev/apikit/builtin/authentication/v1"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/webhook"
)

// callError is kube's ErrCallingWebhook: the webhook could not be asked or answered
// nonsense. The failurePolicy decides: Ignore lets the request pass, Fail answers 500
// with kube's `Internal error occurred: failed calling webhook "x": ...`.
type callError struct {
	webhook string
	reason  error
}

func (e *callError) Error() string {
	return fmt.Sprintf("failed calling webhook %q: %v", e.webhook, e.reason)
}

func callFailed(h *hook, format string, args ...any) error {
	return &callError{webhook: h.name, reason: fmt.Errorf(format, args...)}
}

// versioned returns obj (internal) at gv as the JSON a webhook is sent, and the
// versioned object; nil obj is JSON null.
func versioned(s *scheme.Scheme, obj scheme.Object, gv scheme.GroupVersion) (json.RawMessage, scheme.Object, error) {
	if obj == nil {
		return nil, nil, nil
	}
	ext, err := conversion.ObjectToVersion(s, obj, gv)
	if err != nil {
		return nil, nil, err
	}
	data, err := json.Marshal(ext)
	return data, ext, err
}

// admissionRequest builds the AdmissionRequest of inv for the object sent as object
// (JSON at the invocation's version) and the old object as oldObject.
func (r *request) admissionRequest(inv *invocation, uid scheme.UID, object, oldObject json.RawMessage) *admissionv1.AdmissionRequest {
	a := r.a
	user := authenticationv1.UserInfo{}
	if a.User != nil {
		user.Username, user.UID, user.Groups = a.User.Name, a.User.UID, a.User.Groups
		if len(a.User.Extra) > 0 {
			user.Extra = make(map[string]authenticationv1.ExtraValue, len(a.User.Extra))
			for k, v := range a.User.Extra {
				user.Extra[k] = v
			}
		}
	}
	dryRun := a.DryRun
	return &admissionv1.AdmissionRequest{
		UID:                uid,
		Kind:               admissionv1.GroupVersionKind{Group: inv.kind.Group, Version: inv.kind.Version, Kind: inv.kind.Kind},
		Resource:           admissionv1.GroupVersionResource{Group: inv.resource.Group, Version: inv.resource.Version, Resource: inv.resource.Resource},
		SubResource:        a.Subresource,
		RequestKind:        &admissionv1.GroupVersionKind{Group: a.Kind.Group, Version: a.Kind.Version, Kind: a.Kind.Kind},
		RequestResource:    &admissionv1.GroupVersionResource{Group: r.gvr.Group, Version: r.gvr.Version, Resource: r.gvr.Resource},
		RequestSubResource: a.Subresource,
		Name:               a.Name,
		Namespace:          a.Namespace,
		Operation:          admissionv1.Operation(a.Operation),
		UserInfo:           user,
		Object:             object,
		OldObject:          oldObject,
		DryRun:             &dryRun,
		Options:            operationOptions(a),
	}
}

// operationOptions are the options kube sends with the operation: CreateOptions,
// UpdateOptions or DeleteOptions, with the request's dryRun.
func operationOptions(a registry.AdmissionAttributes) json.RawMessage {
	kind := map[registry.Operation]string{registry.OperationCreate: "CreateOptions", registry.OperationUpdate: "UpdateOptions",
		registry.OperationDelete: "DeleteOptions"}[a.Operation]
	if kind == "" {
		return nil
	}
	o := map[string]any{"kind": kind, "apiVersion": "meta.k8s.io/v1"}
	if a.DryRun {
		o["dryRun"] = []string{"All"}
	}
	data, _ := json.Marshal(o)
	return data
}

// objects returns the request's object and old object at inv's version, as JSON.
func (r *request) objects(inv *invocation, obj scheme.Object) (object, oldObject json.RawMessage, ext scheme.Object, err error) {
	gv := inv.kind.GroupVersion()
	if object, ext, err = versioned(r.a.Scheme, obj, gv); err != nil {
		return nil, nil, nil, err
	}
	if oldObject, _, err = versioned(r.a.Scheme, r.a.OldObject, gv); err != nil {
		return nil, nil, nil, err
	}
	return object, oldObject, ext, nil
}

// conditionInput is what the matchConditions of inv's webhook are evaluated on.
func (r *request) conditionInput(inv *invocation) (ConditionInput, error) {
	object, oldObject, _, err := r.objects(inv, r.obj)
	if err != nil {
		return ConditionInput{}, err
	}
	in := ConditionInput{}
	if r.a.User != nil {
		in.User = *r.a.User
	}
	for _, x := range []struct {
		data json.RawMessage
		out  *map[string]any
	}{{object, &in.Object}, {oldObject, &in.OldObject}} {
		if x.data != nil {
			if err := json.Unmarshal(x.data, x.out); err != nil {
				return ConditionInput{}, err
			}
		}
	}
	data, err := json.Marshal(r.admissionRequest(inv, "", object, oldObject))
	if err != nil {
		return ConditionInput{}, err
	}
	if err := json.Unmarshal(data, &in.Request); err != nil {
		return ConditionInput{}, err
	}
	return in, nil
}

// response is the part of a webhook's answer admission acts on.
type response struct {
	allowed   bool
	result    *scheme.Status
	patch     []byte
	patchType admissionv1.PatchType
	warnings  []string
}

// call sends the AdmissionReview of inv (object the object at inv's version) and checks
// the answer as kube's VerifyAdmissionResponse does. Failures to call or to understand
// the answer are *callError.
func (r *request) call(ctx context.Context, inv *invocation, object, oldObject json.RawMessage, mutating bool) (*response, error) {
	h := inv.h
	if r.a.DryRun {
		if h.sideEffects == nil {
			return nil, callFailed(h, "Webhook SideEffects is nil")
		}
		if se := *h.sideEffects; se != "None" && se != "NoneOnDryRun" {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("admission webhook %q does not support dry run", h.name))
		}
	}
	if h.reviewVersion == "" {
		return nil, callFailed(h, "could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)")
	}
	if h.clientErr != nil {
		var ce *webhook.CallError
		reason := h.clientErr
		if errors.As(h.clientErr, &ce) {
			reason = ce.Err
		}
		return nil, callFailed(h, "could not get REST client: %w", reason)
	}
	uid := scheme.NewUID()
	review := admissionv1.AdmissionReview{
		TypeMeta: scheme.TypeMeta{APIVersion: "admission.k8s.io/" + h.reviewVersion, Kind: "AdmissionReview"},
		Request:  r.admissionRequest(inv, uid, object, oldObject),
	}
	if h.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, h.timeout)
		defer cancel()
	}
	var answer admissionv1.AdmissionReview
	if err := h.client.Call(ctx, review, &answer); err != nil {
		var ce *webhook.CallError
		reason := err
		if errors.As(err, &ce) {
			reason = ce.Err
		}
		// The call's deadline passed: client-go's words, whichever timer fired first.
		var ue *url.Error
		if ctx.Err() != nil && errors.As(reason, &ue) {
			reason = &url.Error{Op: ue.Op, URL: ue.URL, Err: ctx.Err()}
		}
		return nil, callFailed(h, "failed to call webhook: %w", reason)
	}
	if sent := review.APIVersion; answer.Kind == "AdmissionReview" && answer.APIVersion != sent &&
		(answer.APIVersion == admissionv1.SchemeGroupVersion.String() || answer.APIVersion == admissionv1.SchemeGroupVersionV1beta1.String()) {
		// client-go decodes the answer into the review of the version sent.
		return nil, callFailed(h, "failed to call webhook: converting (%s.AdmissionReview) to (%s.AdmissionReview): unknown conversion",
			strings.TrimPrefix(answer.APIVersion, "admission.k8s.io/"), h.reviewVersion)
	}
	resp, err := verifyResponse(h.reviewVersion, uid, mutating, &answer)
	if err != nil {
		return nil, callFailed(h, "received invalid webhook response: %w", err)
	}
	return resp, nil
}

// verifyResponse is kube's VerifyAdmissionResponse.
func verifyResponse(version string, uid scheme.UID, mutating bool, review *admissionv1.AdmissionReview) (*response, error) {
	rs := review.Response
	if rs == nil {
		return nil, errors.New("webhook response was absent")
	}
	out := &response{allowed: rs.Allowed, result: rs.Result, warnings: rs.Warnings}
	if version == "v1beta1" {
		if mutating && len(rs.Patch) > 0 {
			// v1beta1 answers were never checked for a patch type: JSONPatch.
			out.patch, out.patchType = rs.Patch, admissionv1.PatchTypeJSONPatch
		}
		return out, nil
	}
	if rs.UID != uid {
		return nil, fmt.Errorf("expected response.uid=%q, got %q", uid, rs.UID)
	}
	if got := scheme.FromAPIVersionAndKind(review.APIVersion, review.Kind); got != admissionv1.SchemeGroupVersion.WithKind("AdmissionReview") {
		return nil, fmt.Errorf("expected webhook response of %v, got %v", admissionv1.SchemeGroupVersion.WithKind("AdmissionReview"), got)
	}
	if mutating {
		if len(rs.Patch) > 0 && rs.PatchType == nil {
			return nil, errors.New("webhook returned response.patch but not response.patchType")
		}
		if len(rs.Patch) == 0 && rs.PatchType != nil {
			return nil, errors.New("webhook returned response.patchType but not response.patch")
		}
		if rs.PatchType != nil {
			if *rs.PatchType == "" {
				return nil, fmt.Errorf("webhook returned invalid response.patchType of %q", *rs.PatchType)
			}
			out.patchType = *rs.PatchType
		}
		out.patch = rs.Patch
		return out, nil
	}
	if len(rs.Patch) > 0 {
		return nil, errors.New("validating webhook may not return response.patch")
	}
	if rs.PatchType != nil {
		return nil, errors.New("validating webhook may not return response.patchType")
	}
	return out, nil
}

// denied is kube's ToStatusErr: the webhook's Status, at least 400 and Failure, its
// message prefixed with `admission webhook "x" denied the request`.
func denied(name string, result *scheme.Status) *scheme.Status {
	st := &scheme.Status{Status: scheme.StatusFailure}
	if result != nil {
		c := *result
		st = &c
	}
	st.TypeMeta = scheme.TypeMeta{Kind: "Status", APIVersion: "v1"}
	if st.Code < 400 {
		st.Code = 400
	}
	if st.Status == "" || st.Status == scheme.StatusSuccess {
		st.Status = scheme.StatusFailure
	}
	prefix := fmt.Sprintf("admission webhook %q denied the request", name)
	switch {
	case st.Message != "":
		st.Message = prefix + ": " + st.Message
	case st.Reason != "":
		st.Message = prefix + ": " + string(st.Reason)
	default:
		st.Message = prefix + " without explanation"
	}
	return st
}

// failureOf turns the error of a webhook call into the request's answer under the
// webhook's failurePolicy: nil when the call failed and the policy is Ignore.
func failureOf(h *hook, err error) error {
	var ce *callError
	if errors.As(err, &ce) {
		if h.ignore {
			return nil
		}
		return apierrors.NewInternalError(err)
	}
	return err
}
