// Command operator is a small client-go controller for the example Widget kind: it keeps
// every Widget's status in line with its spec, against any server that serves
// toys.example.com/v1 widgets, such as the apikit example server.
//
// For each Widget it sets, through the status subresource:
//
//	status.phase              "Pending" when spec.replicas is 0, "Ready" otherwise
//	status.replicas           spec.replicas
//	status.observedGeneration metadata.generation
//
// The controller itself (a dynamic informer, a rate-limited workqueue, workers calling
// UpdateStatus, retries on 409 Conflict, clean shutdown) is package controller; this
// command only loads a kubeconfig and runs it until SIGINT or SIGTERM.
//
// This directory is a Go module of its own, because client-go and apimachinery are not
// dependencies of apikit; the repository's go.work ties it to the apikit checkout.
//
// # Running it against the example server
//
// From the root of the repository, start the example server in one terminal; it writes
// a kubeconfig (https with a self-signed certificate and a bearer token) that kubectl and
// client-go use unchanged:
//
//	go run ./examples/widgets -addr 127.0.0.1:8080 -storage memory -kubeconfig ./widgets.kubeconfig
//
// Run the operator in a second terminal with that kubeconfig:
//
//	go run ./examples/operator -kubeconfig ./widgets.kubeconfig
//
// and watch it work from a third:
//
//	kubectl --kubeconfig ./widgets.kubeconfig create -f - <<EOF
//	apiVersion: toys.example.com/v1
//	kind: Widget
//	metadata: {name: gear}
//	spec: {color: red, replicas: 0}
//	EOF
//	kubectl --kubeconfig ./widgets.kubeconfig get widgets          # PHASE: Pending
//	kubectl --kubeconfig ./widgets.kubeconfig scale widget gear --replicas 3
//	kubectl --kubeconfig ./widgets.kubeconfig wait widget gear --for=jsonpath='{.status.phase}'=Ready
//	kubectl --kubeconfig ./widgets.kubeconfig get widget gear -o jsonpath='{.status}'
//
// # Flags
//
//	-kubeconfig FILE   kubeconfig of the server (default: $KUBECONFIG, then ~/.kube/config)
//	-context NAME      kubeconfig context (default: the current one)
//	-namespace NS      reconcile only the Widgets of NS (default: all namespaces)
//	-workers N         Widgets reconciled at once (default 2)
//	-resync DURATION   how often every Widget is looked at again (default 10m; 0: never)
//	-v                 also log retries after conflicts
//
// # Tests
//
// The tests start apikit servers in-process, so they need neither a cluster nor a free
// port: package controller's tests use package apitest with the example scheme and
// strategies (and client-go's fake dynamic client for the conflict retry), and this
// command's test runs it against the example server of examples/widgets/server with its
// token and TLS kubeconfig. From the root of the repository:
//
//	go test -race -count=1 ./examples/operator/...
package main
