// Command wrongsignature must not compile: its StrategyFor[*Gadget] hook takes
// scheme.Object, and rest's TestStrategyFor_WrongHookSignatureDoesNotCompile checks that
// the compiler says so.
package main

import (
	"context"

	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

type Gadget struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
}

var _ = registry.StrategyFor[*Gadget]{
	Validate: func(ctx context.Context, obj scheme.Object) validation.ErrorList { return nil },
}

func main() {}
