package serving

import (
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAddFlags_ParsesKubeFlagNamesIntoOptions(t *testing.T) {
	defaults := NewOptions()
	tests := []struct {
		name   string
		args   []string
		change func(o *Options) // from the defaults
	}{
		{name: "no flags keep kube's delegating defaults", change: func(*Options) {}},
		{
			name: "serving and client certificate files",
			args: []string{"-tls-cert-file=/s/tls.crt", "-tls-private-key-file", "/s/tls.key", "-client-ca-file=/s/ca.crt"},
			change: func(o *Options) {
				o.TLSCertFile, o.TLSPrivateKeyFile, o.ClientCAFile = "/s/tls.crt", "/s/tls.key", "/s/ca.crt"
			},
		},
		{
			name: "requestheader lists are comma-separated and replace the defaults",
			args: []string{
				"-requestheader-client-ca-file=/s/front-proxy-ca.crt",
				"-requestheader-allowed-names=front-proxy-client, aggregator",
				"-requestheader-username-headers=X-Remote-User,X-Proxy-User",
				"-requestheader-uid-headers=X-Remote-Uid",
				"-requestheader-group-headers=X-Remote-Group",
				"-requestheader-extra-headers-prefix=X-Remote-Extra-,X-Proxy-Extra-",
			},
			change: func(o *Options) {
				o.RequestHeader = RequestHeaderOptions{
					ClientCAFile:        "/s/front-proxy-ca.crt",
					AllowedNames:        []string{"front-proxy-client", "aggregator"},
					UsernameHeaders:     []string{"X-Remote-User", "X-Proxy-User"},
					UIDHeaders:          []string{"X-Remote-Uid"},
					GroupHeaders:        []string{"X-Remote-Group"},
					ExtraHeaderPrefixes: []string{"X-Remote-Extra-", "X-Proxy-Extra-"},
				}
			},
		},
		{
			name:   "a repeated list flag appends after replacing the default",
			args:   []string{"-requestheader-group-headers=A", "-requestheader-group-headers=B,C"},
			change: func(o *Options) { o.RequestHeader.GroupHeaders = []string{"A", "B", "C"} },
		},
		{
			name:   "an empty list flag empties the list",
			args:   []string{"-authorization-always-allow-paths="},
			change: func(o *Options) { o.AlwaysAllowPaths = nil },
		},
		{
			name: "delegation, token file and anonymous access",
			args: []string{"-authentication-kubeconfig=/k/authn", "-authorization-kubeconfig=/k/authz", "-token-auth-file=/k/tokens.csv", "-anonymous-auth", "-authorization-always-allow-paths=/healthz,/metrics"},
			change: func(o *Options) {
				o.AuthenticationKubeconfig, o.AuthorizationKubeconfig, o.TokenAuthFile = "/k/authn", "/k/authz", "/k/tokens.csv"
				o.AnonymousAuth = true
				o.AlwaysAllowPaths = []string{"/healthz", "/metrics"}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := NewOptions()
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			o.AddFlags(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatalf("Parse(%q): %v", tt.args, err)
			}
			want := NewOptions()
			tt.change(want)
			if diff := cmp.Diff(want, o); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
		})
	}
	if got := strings.Join(defaults.RequestHeader.UsernameHeaders, ","); got != "X-Remote-User" {
		t.Errorf("default username headers %q, want X-Remote-User", got)
	}
	if got := strings.Join(defaults.AlwaysAllowPaths, ","); got != "/healthz,/readyz,/livez" || defaults.AnonymousAuth {
		t.Errorf("defaults: always-allow paths %q, anonymous %v; want /healthz,/readyz,/livez and false", got, defaults.AnonymousAuth)
	}
}

func TestAddFlags_RegistersExactlyKubesNames(t *testing.T) {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	NewOptions().AddFlags(fs)
	var got []string
	fs.VisitAll(func(f *flag.Flag) { got = append(got, f.Name) })
	want := []string{
		"anonymous-auth", "authentication-kubeconfig", "authorization-always-allow-paths", "authorization-kubeconfig",
		"client-ca-file", "requestheader-allowed-names", "requestheader-client-ca-file", "requestheader-extra-headers-prefix",
		"requestheader-group-headers", "requestheader-uid-headers", "requestheader-username-headers",
		"tls-cert-file", "tls-private-key-file", "token-auth-file",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("flags (-want +got):\n%s", diff)
	}
	if def := fs.Lookup("requestheader-group-headers").DefValue; def != "X-Remote-Group" {
		t.Errorf("-requestheader-group-headers default %q, want X-Remote-Group", def)
	}
}
