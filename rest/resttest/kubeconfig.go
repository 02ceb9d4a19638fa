package resttest

import (
	"encoding/base64"
	"encoding/json"
	"strings"
)

// KubeconfigName is the name of the cluster, user and context in the kubeconfigs this
// package writes.
const KubeconfigName = "apikit"

// Kubeconfig returns a kubeconfig (a v1 Config in YAML) with one cluster at serverURL that
// trusts the PEM certificates caPEM (none when empty), one user authenticating with the
// bearer token (none when token is empty) and one context joining them in the "default"
// namespace, which is also the current context. client-go's clientcmd and kubectl accept
// it as is; note that they send the token only when serverURL is https.
func Kubeconfig(serverURL, token string, caPEM []byte) []byte {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: Config\npreferences: {}\n")
	b.WriteString("clusters:\n- name: " + KubeconfigName + "\n  cluster:\n    server: " + yamlString(serverURL) + "\n")
	if len(caPEM) > 0 {
		b.WriteString("    certificate-authority-data: " + base64.StdEncoding.EncodeToString(caPEM) + "\n")
	}
	b.WriteString("users:\n- name: " + KubeconfigName + "\n")
	if token == "" {
		b.WriteString("  user: {}\n")
	} else {
		b.WriteString("  user:\n    token: " + yamlString(token) + "\n")
	}
	b.WriteString("contexts:\n- name: " + KubeconfigName + "\n  context:\n    cluster: " + KubeconfigName +
		"\n    user: " + KubeconfigName + "\n    namespace: default\n")
	b.WriteString("current-context: " + KubeconfigName + "\n")
	return []byte(b.String())
}

// yamlString quotes s as a YAML double-quoted scalar: a JSON string is one.
func yamlString(s string) string {
	q, _ := json.Marshal(s) // a string always marshals
	return string(q)
}
