package registry

import (
	"context"
	"net/url"

	"github.com/apikit-dev/apikit/apierrors"
	"github.com/apikit-dev/apikit/scheme"
)

// ConnectRequest is a request on a connect subresource (scheme.Subresource's
// ConnectMethods), as the HTTP side hands it over: what kube's rest.Connecter is given
// as its connect options, and whether the client asks to upgrade the connection.
type ConnectRequest struct {
	// Method is the request's HTTP method.
	Method string
	// Query is the request's query: the options of the connection (PodExecOptions'
	// command, PodLogOptions' tailLines, dryRun).
	Query url.Values
	// Path is the URL's path after the subresource, with its leading slash, for a
	// subresource with ConnectPath ("" when there is none).
	Path string
	// Upgrade says the client asks for a protocol upgrade (SPDY or websocket
	// streams, as kubectl exec and port-forward do).
	Upgrade bool
}

// ConnectAnswer is what a Connector answers without an error: served as it is, Code
// (200 when 0) with ContentType and Body (kube's 204 No Content for the log of a pod
// without a node).
type ConnectAnswer struct {
	Code        int
	ContentType string
	Body        []byte
}

// Connector answers a request on a connect subresource of the object name of
// rq.Resource in rq.Namespace (rq.Subresource names the subresource). apikit runs no
// kubelets and no pods and connects to no address taken from an object, so a
// Connector answers what kube-apiserver answers before its proxy would dial, and a
// Status of kube's code and reason where kube's would: it reads through s (Get) and
// answers an error or a ConnectAnswer.
type Connector func(ctx context.Context, s *Store, rq Request, name string, c ConnectRequest) (*ConnectAnswer, error)

// Connect runs the Connector of rq.Subresource on the object name: 404 NotFound for a
// subresource whose strategy has none.
func (s *Store) Connect(ctx context.Context, rq Request, name string, c ConnectRequest) (*ConnectAnswer, error) {
	o := s.op(rq)
	conn, ok := o.hooks.connectors[rq.Subresource]
	if !ok {
		return nil, apierrors.NewNotFound(scheme.GroupResource{Group: o.gr.Group, Resource: o.gr.Resource + "/" + rq.Subresource}, name)
	}
	return conn(withCall(ctx, o, "get", name), s, rq, name, c)
}
