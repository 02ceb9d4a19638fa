package kubecode

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kubernetes/pkg/apis/batch"
	_ "k8s.io/kubernetes/pkg/apis/batch/install" // batch/v1 conversion, defaulting, declarative validation
	"k8s.io/kubernetes/pkg/registry/batch/cronjob"
	"k8s.io/kubernetes/pkg/registry/batch/job"
)

// The batch/v1 kinds, with kube's Job and CronJob registry strategies.
func init() {
	Kinds["Job"] = Kind{schema.GroupVersionKind{Group: "batch", Version: "v1", Kind: "Job"}, "jobs", job.Strategy, nil}
	Kinds["CronJob"] = Kind{schema.GroupVersionKind{Group: "batch", Version: "v1", Kind: "CronJob"}, "cronjobs", cronjob.Strategy, nil}
}

// The internal type is named so that a build without the install package fails here.
var _ = batch.Job{}
