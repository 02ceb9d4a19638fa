// Package v1 holds Kubernetes' batch/v1 kinds (Job, CronJob), generated from k8s.io/api by
// internal/typegen, laid out like k8s.io/api/batch/v1: import it as batchv1.
package v1

import "github.com/apikit-dev/apikit/scheme"

// SchemeGroupVersion is the batch group's v1 version.
var SchemeGroupVersion = scheme.GroupVersion{Group: "batch", Version: "v1"}

// Resource names of the batch/v1 kinds.
var (
	Jobs     = scheme.GroupResource{Group: "batch", Resource: "jobs"}
	CronJobs = scheme.GroupResource{Group: "batch", Resource: "cronjobs"}
)
