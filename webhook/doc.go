// Package webhook calls a webhook server as kube-apiserver calls admission and CRD
// conversion webhooks (k8s.io/apiserver's pkg/util/webhook): a JSON request POSTed to
// the address of a ClientConfig (a URL, or a Service resolved through a host hook),
// the server's certificate verified against the config's caBundle (the system roots
// when it is empty), within a timeout, the answer bounded in size and decoded as JSON.
//
// One Client serves every caller: admission webhooks send an AdmissionReview, CRD
// conversion a ConversionReview, each with Call(ctx, request, response). The errors
// are typed so that each caller words kube's message around them: a *CallError when
// the webhook could not be reached or answered out of protocol (its Err reads as
// client-go's error does), with a *StatusError inside when it answered with an HTTP
// error status.
//
// The package is a leaf of the standard library: it knows nothing of the objects it
// carries, so the types of reviews live with their callers.
package webhook
