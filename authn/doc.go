// Package authn holds the authenticators of kube-apiserver, with its semantics, for
// rest.Options.Authenticator: who sent a request, from a client certificate, a
// front proxy's headers, a static token file or a TokenReview delegated to a
// kube-apiserver.
//
// Each one mirrors a kube-apiserver flag (or k8s.io/apiserver delegating option):
//
//   - X509: --client-ca-file. A client certificate verified against the client CA is
//     the user CN in groups O.
//   - RequestHeader: --requestheader-client-ca-file, --requestheader-allowed-names,
//     --requestheader-username-headers, --requestheader-uid-headers,
//     --requestheader-group-headers, --requestheader-extra-headers-prefix. A front
//     proxy (kube-apiserver's aggregator) proves itself with its client certificate
//     and then names the user in headers.
//   - TokenFile: --token-auth-file. Static bearer tokens from a CSV file.
//   - TokenReview: --authentication-kubeconfig and
//     --authentication-token-webhook-cache-ttl of an aggregated API server. Bearer
//     tokens are asked about to the kube-apiserver, answers cached.
//   - Union: how kube-apiserver chains them.
//
// # Composing
//
// Put them in a Union, in kube's order: front proxy first, then client certificates,
// then bearer tokens. An aggregated API server (what k8s.io/apiserver's delegating
// authentication builds) is
//
//	authn.Union(
//		authn.RequestHeader{ClientCA: proxyCA, AllowedNames: []string{"front-proxy-client"},
//			UsernameHeaders: []string{"X-Remote-User"}, GroupHeaders: []string{"X-Remote-Group"},
//			ExtraHeaderPrefixes: []string{"X-Remote-Extra-"}},
//		authn.X509{ClientCA: clientCA},
//		&authn.TokenReview{Server: kubeAPIServer, Client: authClient},
//	)
//
// The server's tls.Config asks for client certificates without verifying them
// (ClientAuth: tls.RequestClientCert): X509 and RequestHeader verify them, per request,
// against pools that may be reloaded.
//
// A credential that is presented and wrong (an unknown token, an expired certificate or
// one from another CA) is an error, so that the request is 401 Unauthorized even when
// rest.Options.AllowAnonymous lets requests without credentials in, as in
// kube-apiserver. Anonymous access itself is the rest.Handler's, not an authenticator
// of this package.
//
// Every authenticated user is also in group system:authenticated (kube's
// AuthenticatedGroupAdder, which kube puts around the whole chain), and credentials
// that authenticated are removed from the request (the Authorization header, the front
// proxy's headers), as kube-apiserver removes them.
package authn
