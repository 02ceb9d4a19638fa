// Package controller is a small Kubernetes-style controller for the example Widget kind
// (toys.example.com/v1), written only with client-go: a dynamic informer watches
// Widgets, its event handlers put namespace/name keys on a rate-limited workqueue, and
// workers bring each Widget's status in line with its spec through the status
// subresource (UpdateStatus):
//
//	status.phase              "Pending" when spec.replicas is 0, "Ready" otherwise
//	status.replicas           spec.replicas
//	status.observedGeneration metadata.generation
//
// A worker reads the Widget from the informer's cache and writes only when the status
// differs, so its own update (which does not bump the generation) settles the Widget. A
// 409 Conflict from a stale cache, or any other failure, queues the key again with the
// rate limiter's back-off. Run stops everything (informer, workers, queue) when its
// context ends.
//
//	client, _ := dynamic.NewForConfig(restConfig)
//	ctrl, _ := controller.New(client, controller.Options{Workers: 2})
//	err := ctrl.Run(ctx) // blocks until ctx is cancelled
//
// The command in the parent directory runs it against a kubeconfig; its tests run it
// against apikit servers started in-process (package apitest's and the example server).
package controller
