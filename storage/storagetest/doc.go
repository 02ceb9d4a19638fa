// Package storagetest is the conformance suite every storage.Interface backend passes,
// shaped like testing/fstest.TestFS: a backend's test file calls
//
//	func TestConformance(t *testing.T) {
//		storagetest.Run(t, func(t *testing.T) storage.Interface { return newBackend(t) }, storagetest.Capabilities{...})
//	}
//
// Run checks every behaviour of storage.Interface (create, get, list with the
// resourceVersion tables, pagination with consistent snapshots, guaranteed update with
// preconditions and concurrent conflicts, delete with preconditions and the validation
// hook, watch ordering and completeness under concurrent writers, label and field
// selectors, compaction and 410 Gone, too large resource versions, count) with a typed
// kind ([Widget]) and with *scheme.Unstructured objects ([NewGadget]). Register both with
// a scheme through [AddToScheme] if the backend needs to decode what it stores.
//
// The suite has bounded loops and no wall-clock assertions; a backend's newBackend
// should configure a short wait for future resourceVersions so that the
// too-large-resourceVersion checks finish quickly.
package storagetest
