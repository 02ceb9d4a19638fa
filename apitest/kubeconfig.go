package apitest

import "github.com/apikit-dev/apikit/kubeconfig"

// KubeconfigName is the name of the cluster, user and context in the kubeconfigs this
// package writes.
const KubeconfigName = "apikit"

// Kubeconfig returns the kubeconfig of a server at serverURL (see kubeconfig.New), with
// cluster, user and context named KubeconfigName.
func Kubeconfig(serverURL, token string, caPEM []byte) []byte {
	return kubeconfig.New(KubeconfigName, serverURL, token, caPEM)
}
