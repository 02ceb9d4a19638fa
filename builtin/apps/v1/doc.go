// Package v1 holds Kubernetes' apps/v1 kinds (Deployment, StatefulSet, DaemonSet,
// ReplicaSet, ControllerRevision), generated from k8s.io/api by internal/typegen, laid out
// like k8s.io/api/apps/v1: import it as appsv1.
package v1

import "github.com/apikit-dev/apikit/scheme"

// SchemeGroupVersion is the apps group's served version.
var SchemeGroupVersion = scheme.GroupVersion{Group: "apps", Version: "v1"}

// Resource names of the apps/v1 kinds.
var (
	Deployments         = scheme.GroupResource{Group: "apps", Resource: "deployments"}
	StatefulSets        = scheme.GroupResource{Group: "apps", Resource: "statefulsets"}
	DaemonSets          = scheme.GroupResource{Group: "apps", Resource: "daemonsets"}
	ReplicaSets         = scheme.GroupResource{Group: "apps", Resource: "replicasets"}
	ControllerRevisions = scheme.GroupResource{Group: "apps", Resource: "controllerrevisions"}
)
