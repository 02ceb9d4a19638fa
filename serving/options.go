package serving

import (
	"crypto/tls"
	"flag"
	"log/slog"
	"strings"
	"time"
)

// Options configure an aggregated (or stand-alone) API server's serving certificate,
// authentication and authorization the way k8s.io/apiserver's secure serving and
// delegating authentication and authorization options do. AddFlags registers them
// under kube-apiserver's flag names; NewOptions has kube's defaults. Build turns them
// into what a host puts into rest.Options and its http.Server.
type Options struct {
	// TLSCertFile and TLSPrivateKeyFile are the PEM serving certificate (with its
	// intermediates) and key (-tls-cert-file, -tls-private-key-file). Both files are
	// read again when they change, so a rotated certificate is served without a
	// restart. When both are empty, DefaultCertificate is served.
	TLSCertFile, TLSPrivateKeyFile string
	// DefaultCertificate is served when TLSCertFile is empty, such as a self-signed
	// certificate made at start for local use. Not a flag.
	DefaultCertificate *tls.Certificate

	// ClientCAFile is the PEM bundle that signs the client certificates whose common
	// name is a user and organizations are groups (-client-ca-file). When empty and
	// AuthenticationKubeconfig is set, the client-ca-file of the
	// extension-apiserver-authentication ConfigMap is used, as kube does.
	ClientCAFile string
	// RequestHeader configures the front-proxy authenticator that trusts the user named
	// in headers from a client certificate signed by its own CA (the aggregator's proxy
	// certificate).
	RequestHeader RequestHeaderOptions
	// TokenAuthFile is kube's static token file: CSV lines token,user,uid,"group1,group2"
	// (-token-auth-file).
	TokenAuthFile string
	// AuthenticationKubeconfig is a kubeconfig of the kube-apiserver that authentication
	// is delegated to (-authentication-kubeconfig): bearer tokens are checked with a
	// TokenReview, and the client and requestheader CAs that were not given as files
	// are read from the kube-system/extension-apiserver-authentication ConfigMap and
	// refreshed every ConfigMapRefresh.
	AuthenticationKubeconfig string
	// AnonymousAuth lets requests without accepted credentials in as system:anonymous
	// (-anonymous-auth). Unlike kube's delegating options it is off by default: apikit
	// never combines anonymous access with a permissive authorizer by accident.
	AnonymousAuth bool

	// AuthorizationKubeconfig is a kubeconfig of the kube-apiserver that authorization is
	// delegated to with SubjectAccessReviews (-authorization-kubeconfig).
	AuthorizationKubeconfig string
	// AlwaysAllowPaths are allowed without an authorization check
	// (-authorization-always-allow-paths); kube's default lets probes read health.
	AlwaysAllowPaths []string
	// AlwaysAllowGroups are allowed everything without an authorization check; kube's
	// default is system:masters, whom kube-apiserver allows everything anyway. Not a flag.
	AlwaysAllowGroups []string

	// AuthenticationCacheTTL is how long a TokenReview answer is cached.
	AuthenticationCacheTTL time.Duration
	// AuthorizationAllowTTL and AuthorizationDenyTTL are how long a SubjectAccessReview's
	// allow and deny answers are cached.
	AuthorizationAllowTTL, AuthorizationDenyTTL time.Duration
	// DelegationTimeout bounds each request to the kube-apiserver (TokenReview,
	// SubjectAccessReview, ConfigMap).
	DelegationTimeout time.Duration
	// ConfigMapRefresh is how often the extension-apiserver-authentication ConfigMap is
	// read again.
	ConfigMapRefresh time.Duration
	// FileCheckInterval is how often, at most, the certificate and CA files are checked
	// for changes (on the next handshake or request after it has passed).
	FileCheckInterval time.Duration
	// Logger receives reloads and refresh failures; nil means slog.Default().
	Logger *slog.Logger
}

// RequestHeaderOptions configure the front-proxy (requestheader) authenticator, kube's
// -requestheader-* flags.
type RequestHeaderOptions struct {
	// ClientCAFile is the PEM bundle that signs the proxy's client certificate
	// (-requestheader-client-ca-file). When it is empty and AuthenticationKubeconfig is
	// set, the whole requestheader configuration (CA, names and headers) comes from the
	// extension-apiserver-authentication ConfigMap instead of these options, as kube
	// does.
	ClientCAFile string
	// AllowedNames are the common names a proxy certificate may have; empty allows any
	// certificate the CA signed (-requestheader-allowed-names).
	AllowedNames []string
	// UsernameHeaders, UIDHeaders and GroupHeaders name the headers carrying the user
	// (-requestheader-username-headers, -requestheader-uid-headers,
	// -requestheader-group-headers).
	UsernameHeaders, UIDHeaders, GroupHeaders []string
	// ExtraHeaderPrefixes start the headers carrying extra user information
	// (-requestheader-extra-headers-prefix).
	ExtraHeaderPrefixes []string
}

// DefaultAlwaysAllowPaths are the paths allowed without authorization by default, as
// kube's delegating authorization allows them for the kubelet's probes.
var DefaultAlwaysAllowPaths = []string{"/healthz", "/readyz", "/livez"}

// NewOptions returns Options with the defaults of kube's delegating authentication and
// authorization options: X-Remote-User, X-Remote-Group and X-Remote-Extra- headers (no
// UID header by default, as kube: a kube-apiserver older than 1.32 does not strip a
// client's X-Remote-Uid), DefaultAlwaysAllowPaths, system:masters always allowed, 10
// second caches and request timeouts; anonymous access off.
func NewOptions() *Options {
	return &Options{
		RequestHeader: RequestHeaderOptions{
			UsernameHeaders:     []string{"X-Remote-User"},
			GroupHeaders:        []string{"X-Remote-Group"},
			ExtraHeaderPrefixes: []string{"X-Remote-Extra-"},
		},
		AlwaysAllowPaths:       append([]string(nil), DefaultAlwaysAllowPaths...),
		AlwaysAllowGroups:      []string{"system:masters"},
		AuthenticationCacheTTL: 10 * time.Second,
		AuthorizationAllowTTL:  10 * time.Second,
		AuthorizationDenyTTL:   10 * time.Second,
		DelegationTimeout:      10 * time.Second,
		ConfigMapRefresh:       time.Minute,
		FileCheckInterval:      time.Second,
	}
}

// AddFlags registers the options on fs under kube-apiserver's names, with o's current
// values as defaults. List flags take comma-separated values like kube's; the first use
// of a list flag replaces its default and later uses append.
func (o *Options) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.TLSCertFile, "tls-cert-file", o.TLSCertFile, "`file` with the PEM serving certificate (and intermediates), reloaded when it changes")
	fs.StringVar(&o.TLSPrivateKeyFile, "tls-private-key-file", o.TLSPrivateKeyFile, "`file` with the PEM private key of -tls-cert-file")
	fs.StringVar(&o.ClientCAFile, "client-ca-file", o.ClientCAFile, "`file` with the PEM CAs that sign client certificates (CN is the user, O the groups)")
	fs.StringVar(&o.RequestHeader.ClientCAFile, "requestheader-client-ca-file", o.RequestHeader.ClientCAFile, "`file` with the PEM CAs that sign the front proxy's client certificate, whose requests name the user in headers")
	fs.Var(newListFlag(&o.RequestHeader.AllowedNames), "requestheader-allowed-names", "common `names` a front-proxy certificate may have (empty: any the CA signed)")
	fs.Var(newListFlag(&o.RequestHeader.UsernameHeaders), "requestheader-username-headers", "request `headers` carrying the user name")
	fs.Var(newListFlag(&o.RequestHeader.UIDHeaders), "requestheader-uid-headers", "request `headers` carrying the user's UID")
	fs.Var(newListFlag(&o.RequestHeader.GroupHeaders), "requestheader-group-headers", "request `headers` carrying the user's groups")
	fs.Var(newListFlag(&o.RequestHeader.ExtraHeaderPrefixes), "requestheader-extra-headers-prefix", "request header `prefixes` carrying extra user information")
	fs.StringVar(&o.AuthenticationKubeconfig, "authentication-kubeconfig", o.AuthenticationKubeconfig, "kubeconfig `file` of the kube-apiserver to delegate token authentication to (TokenReview) and to read the extension-apiserver-authentication ConfigMap from")
	fs.StringVar(&o.AuthorizationKubeconfig, "authorization-kubeconfig", o.AuthorizationKubeconfig, "kubeconfig `file` of the kube-apiserver to delegate authorization to (SubjectAccessReview)")
	fs.StringVar(&o.TokenAuthFile, "token-auth-file", o.TokenAuthFile, "`file` of static bearer tokens in kube's CSV format: token,user,uid,\"group1,group2\"")
	fs.Var(newListFlag(&o.AlwaysAllowPaths), "authorization-always-allow-paths", "`paths` allowed without authorization")
	fs.BoolVar(&o.AnonymousAuth, "anonymous-auth", o.AnonymousAuth, "let requests without accepted credentials in as system:anonymous")
}

// listFlag is a comma-separated list flag: the first Set replaces the default, later
// ones append, as pflag's string slices behave in kube's commands.
type listFlag struct {
	list *[]string
	set  bool
}

func newListFlag(list *[]string) *listFlag { return &listFlag{list: list} }

// String implements flag.Value.
func (f *listFlag) String() string {
	if f == nil || f.list == nil {
		return ""
	}
	return strings.Join(*f.list, ",")
}

// Set implements flag.Value; an empty value makes the list empty.
func (f *listFlag) Set(value string) error {
	var items []string
	for _, item := range strings.Split(value, ",") {
		if item = strings.TrimSpace(item); item != "" {
			items = append(items, item)
		}
	}
	if !f.set {
		*f.list, f.set = items, true
		return nil
	}
	*f.list = append(*f.list, items...)
	return nil
}
