package table

import (
	"fmt"
	"net/url"
	"time"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// Options says how to build a Table.
type Options struct {
	// IncludeObject is the includeObject query parameter; empty means IncludeMetadata.
	IncludeObject IncludeObjectPolicy
	// NoHeaders leaves ColumnDefinitions out. kube-apiserver sets it for every watch event
	// after the first; see Printer.Watch.
	NoHeaders bool
	// GroupVersion is the meta.k8s.io version of the Table and of the row
	// PartialObjectMetadata: v1 (the default) or v1beta1.
	GroupVersion scheme.GroupVersion
	// Now is the clock for "date" cells (ages); nil means time.Now.
	Now func() time.Time
}

// ParseOptions reads the Table options of a request's query (includeObject; other
// parameters are ignored) and validates them as kube-apiserver does. An error is a 400
// BadRequest whose Status message is err.Error(), for example
// `Unable to convert to Table as requested: includeObject: Invalid value: "All": must be
// 'Metadata', 'Object', 'None', or empty`.
func ParseOptions(query url.Values) (Options, error) {
	var opts Options
	if v, ok := query["includeObject"]; ok && len(v) > 0 {
		opts.IncludeObject = IncludeObjectPolicy(v[0])
	}
	if err := opts.Validate(); err != nil {
		return Options{}, err
	}
	return opts, nil
}

// Validate reports an includeObject value other than None, Metadata, Object or empty, with
// kube-apiserver's message.
func (o Options) Validate() error {
	switch o.IncludeObject {
	case IncludeNone, IncludeMetadata, IncludeObject, "":
		return nil
	}
	verr := validation.Invalid(validation.NewPath("includeObject"), string(o.IncludeObject),
		"must be 'Metadata', 'Object', 'None', or empty")
	// kube-apiserver's message, capitalized as it is.
	return fmt.Errorf("Unable to convert to Table as requested: %w", verr)
}

func (o *Options) groupVersion() scheme.GroupVersion {
	if o.GroupVersion.Empty() {
		return SchemeGroupVersion
	}
	return o.GroupVersion
}

func (o *Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}
