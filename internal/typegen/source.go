package main

// The generator reads k8s.io/api's Go source, not its compiled types; this import keeps
// the module requirement (and so the exact version read, go.mod's) in place.
import _ "k8s.io/api/apps/v1"
