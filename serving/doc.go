// Package serving configures an apikit server to run as an aggregated API server (behind
// kube-apiserver's aggregator, registered by an APIService) or as a stand-alone
// production server: what k8s.io/apiserver's secure serving and delegating
// authentication and authorization options give kube's sample-apiserver, in one small
// package with kube-apiserver's flag names.
//
// Options holds the flags (AddFlags registers -tls-cert-file, -tls-private-key-file,
// -client-ca-file, the -requestheader-* flags, -authentication-kubeconfig,
// -authorization-kubeconfig, -token-auth-file, -authorization-always-allow-paths and
// -anonymous-auth); NewOptions has kube's defaults. Options.Build turns them into a
// Config: the authn.Authenticator and authz.Authorizer chains of packages authn and
// authz in kube's order, whether anonymous access is on, and the TLS configuration;
// Config.ApplyTo puts the first three into rest.Options and Config.HTTPServer makes the
// http.Server with kube's timeouts.
//
// What changes while the server runs is followed as kube follows it: the serving
// certificate and the CA files are read again when their contents change (checked at
// most every FileCheckInterval, on the next handshake or request; a pair that does not
// load keeps the previous one), and with -authentication-kubeconfig the client and
// front-proxy CAs and header names of the kube-system/extension-apiserver-authentication
// ConfigMap are read at Build and refreshed every ConfigMapRefresh until Build's context
// ends. The kubeconfigs are read with kubeconfig.Load.
//
// The handshake requests client certificates without verifying them, so that a client
// without one still reaches token authentication and so that the x509 and front-proxy
// authenticators verify against the CAs current at the request.
package serving
