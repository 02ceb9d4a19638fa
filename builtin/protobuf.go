package builtin

import (
	authenticationv1 "github.com/apikit-dev/apikit/builtin/authentication/v1"
	coordinationv1 "github.com/apikit-dev/apikit/builtin/coordination/v1"
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	eventsv1 "github.com/apikit-dev/apikit/builtin/events/v1"
	"github.com/apikit-dev/apikit/codec/protobuf"
	"github.com/apikit-dev/apikit/scheme"
)

// registerProtobuf gives every built-in kind the field numbers of Kubernetes'
// generated.proto (k8s.io/api core/v1, events/v1, coordination/v1,
// authentication/v1), which their Go types carry as protobuf struct tags, so that
// client-go's typed clientset, which speaks protobuf, reads and writes them. Call it
// after the kinds and their lists are added to s.
func registerProtobuf(s *scheme.Scheme) error {
	for gv, objs := range map[scheme.GroupVersion][]scheme.Kinded{
		corev1.SchemeGroupVersion:           {&corev1.Namespace{}, &corev1.ConfigMap{}, &corev1.Secret{}, &corev1.ServiceAccount{}, &corev1.Event{}},
		eventsv1.SchemeGroupVersion:         {&eventsv1.Event{}},
		coordinationv1.SchemeGroupVersion:   {&coordinationv1.Lease{}},
		authenticationv1.SchemeGroupVersion: {&authenticationv1.SelfSubjectReview{}},
	} {
		if err := protobuf.RegisterTypes(s, gv, objs...); err != nil {
			return err
		}
	}
	return nil
}

// registerProtobufFields registers the field numbers of each kind of m, for the kinds
// whose Go types do not carry protobuf struct tags (the access reviews).
func registerProtobufFields(s *scheme.Scheme, m map[scheme.GroupVersionKind]fields) error {
	for gvk, fields := range m {
		if err := protobuf.RegisterFields(s, gvk, fields...); err != nil {
			return err
		}
	}
	return nil
}

type fields = []protobuf.Field

func field(path string, n int32, t protobuf.Type) protobuf.Field {
	return protobuf.Field{Path: path, Number: n, Type: t}
}

func repeated(path string, n int32, t protobuf.Type) protobuf.Field {
	return protobuf.Field{Path: path, Number: n, Type: t, Repeated: true}
}

func optional(path string, n int32, t protobuf.Type) protobuf.Field {
	return protobuf.Field{Path: path, Number: n, Type: t, Optional: true}
}

// under prefixes paths of a message's fields, so shared messages are described once.
func under(prefix string, fs fields) fields {
	out := make(fields, len(fs))
	for i, f := range fs {
		f.Path = prefix + "." + f.Path
		out[i] = f
	}
	return out
}
