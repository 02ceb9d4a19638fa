package strategies

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/apikit-dev/apikit/apierrors"
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// podLogOptions are the PodLogOptions a pods/log request's query carries, as kube's
// query conversion reads them; only what its validation looks at is kept.
type podLogOptions struct {
	sinceSeconds, tailLines, limitBytes *int64
	sinceTime                           bool
	stream                              bool
}

// parsePodLogOptions reads the query as kube's Convert_url_Values_To_v1_PodLogOptions:
// its integer and time errors are kube's 400 with the parser's text.
func parsePodLogOptions(q map[string][]string) (*podLogOptions, error) {
	var o podLogOptions
	for _, f := range []struct {
		name string
		into **int64
	}{{"sinceSeconds", &o.sinceSeconds}, {"tailLines", &o.tailLines}, {"limitBytes", &o.limitBytes}} {
		v, ok := q[f.name]
		if !ok || len(v) == 0 {
			continue
		}
		n, err := strconv.ParseInt(v[0], 10, 64)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		*f.into = &n
	}
	if v, ok := q["sinceTime"]; ok && len(v) > 0 {
		if v[0] != "" && v[0] != "null" {
			if _, err := time.Parse(time.RFC3339, v[0]); err != nil {
				return nil, apierrors.NewBadRequest(err.Error())
			}
		}
		o.sinceTime = true
	}
	if v, ok := q["stream"]; ok && len(v) > 0 {
		o.stream = true
	}
	return &o, nil
}

// validatePodLogOptions is kube's ValidatePodLogOptions with PodLogsQuerySplitStreams
// off, as v1.37.2 ships it.
func validatePodLogOptions(o *podLogOptions) validation.ErrorList {
	var errs validation.ErrorList
	if o.tailLines != nil && *o.tailLines < 0 {
		errs = append(errs, validation.Invalid(validation.NewPath("tailLines"), *o.tailLines, "must be greater than or equal to 0"))
	}
	if o.limitBytes != nil && *o.limitBytes < 1 {
		errs = append(errs, validation.Invalid(validation.NewPath("limitBytes"), *o.limitBytes, "must be greater than 0"))
	}
	switch {
	case o.sinceSeconds != nil && o.sinceTime:
		errs = append(errs, validation.Forbidden(validation.NewPath(""), "at most one of `sinceTime` or `sinceSeconds` may be specified"))
	case o.sinceSeconds != nil && *o.sinceSeconds < 1:
		errs = append(errs, validation.Invalid(validation.NewPath("sinceSeconds"), *o.sinceSeconds, "must be greater than 0"))
	}
	if o.stream {
		errs = append(errs, validation.Forbidden(validation.NewPath("stream"), "may not be specified"))
	}
	return errs
}

// podLog answers pods/log as kube's LogREST.Get and LogLocation do: the options (400,
// then 422 Invalid of kind PodLogOptions), the pod (404) and its container (400), an
// empty text/plain log for a pod without a node, the node and its address; then the
// 500 of kube's request to a kubelet it cannot reach.
func podLog(ctx context.Context, s *registry.Store, rq registry.Request, name string, cr registry.ConnectRequest) (*registry.ConnectAnswer, error) {
	opts, err := parsePodLogOptions(cr.Query)
	if err != nil {
		return nil, err
	}
	if errs := validatePodLogOptions(opts); len(errs) > 0 {
		return nil, errs.ToStatus(scheme.GroupKind{Kind: "PodLogOptions"}, name)
	}
	pod, err := getTyped[*corev1.Pod](ctx, s, corev1.Pods, rq.Namespace, name)
	if err != nil {
		return nil, err
	}
	if _, err := validateContainer(cr.Query.Get("container"), pod); err != nil {
		return nil, err
	}
	if pod.Spec.NodeName == "" {
		// kube's LocationStreamer without a location streams nothing: its 204.
		return &registry.ConnectAnswer{Code: http.StatusNoContent}, nil
	}
	if _, err := kubeletAddress(ctx, s, pod.Spec.NodeName, corev1.Pods); err != nil {
		return nil, err
	}
	return nil, unknownFailure("error reading the logs from the kubelet: " + unreachable)
}
