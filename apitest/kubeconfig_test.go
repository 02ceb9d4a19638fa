package apitest_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/apikit-dev/apikit/apitest"
)

// kubeconfigFile is the part of client-go's clientcmd/api/v1.Config the tests check.
type kubeconfigFile struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Clusters   []struct {
		Name    string `json:"name"`
		Cluster struct {
			Server                   string `json:"server"`
			CertificateAuthorityData []byte `json:"certificate-authority-data"`
		} `json:"cluster"`
	} `json:"clusters"`
	Users []struct {
		Name string `json:"name"`
		User struct {
			Token string `json:"token"`
		} `json:"user"`
	} `json:"users"`
	Contexts []struct {
		Name    string `json:"name"`
		Context struct {
			Cluster   string `json:"cluster"`
			User      string `json:"user"`
			Namespace string `json:"namespace"`
		} `json:"context"`
	} `json:"contexts"`
	CurrentContext string   `json:"current-context"`
	Preferences    struct{} `json:"preferences"`
}

// summary flattens what a client resolves from the current context.
type summary struct {
	APIVersion, Kind, Server, Token, Namespace, CA string
	Resolved                                       bool
}

func summarize(t *testing.T, data []byte) summary {
	t.Helper()
	var f kubeconfigFile
	if err := yaml.UnmarshalStrict(data, &f); err != nil {
		t.Fatalf("kubeconfig does not parse: %v\n%s", err, data)
	}
	s := summary{APIVersion: f.APIVersion, Kind: f.Kind}
	for _, c := range f.Contexts {
		if c.Name != f.CurrentContext {
			continue
		}
		s.Namespace = c.Context.Namespace
		var haveCluster, haveUser bool
		for _, cl := range f.Clusters {
			if cl.Name == c.Context.Cluster {
				s.Server, s.CA, haveCluster = cl.Cluster.Server, string(cl.Cluster.CertificateAuthorityData), true
			}
		}
		for _, u := range f.Users {
			if u.Name == c.Context.User {
				s.Token, haveUser = u.User.Token, true
			}
		}
		s.Resolved = haveCluster && haveUser
	}
	return s
}

func TestKubeconfig_CurrentContextResolvesToServerAndToken(t *testing.T) {
	tests := []struct {
		name  string
		url   string
		token string
		ca    string
	}{
		{name: "without token the user has no credentials", url: "http://127.0.0.1:1234"},
		{name: "with token the user carries it", url: "http://127.0.0.1:1234", token: "abc123"},
		{name: "YAML-special characters are quoted", url: "http://127.0.0.1:1/#x: y", token: `a"b: c\d #e`},
		{name: "a certificate authority is embedded as data", url: "https://127.0.0.1:1234", token: "t", ca: "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := summarize(t, apitest.Kubeconfig(tt.url, tt.token, []byte(tt.ca)))
			want := summary{APIVersion: "v1", Kind: "Config", Server: tt.url, Token: tt.token, CA: tt.ca, Namespace: "default", Resolved: true}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("kubeconfig (-want +got):\n%s", diff)
			}
		})
	}
}
