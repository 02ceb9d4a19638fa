package rest

import "github.com/apikit-dev/apikit/registry"

// The names handler_test.go uses from before the lifecycle's types moved to package
// registry; once that file is split by verb, its parts name registry's directly.
type AdmissionAttributes = registry.AdmissionAttributes

// OperationCreate is registry.OperationCreate, for handler_test.go.
const OperationCreate = registry.OperationCreate

// ValidatingAdmission is registry.ValidatingAdmission, for handler_test.go.
type ValidatingAdmission = registry.ValidatingAdmission
