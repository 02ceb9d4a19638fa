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
// authentication/v1), so client-go's typed clientset, which speaks protobuf, reads and
// writes them.
func registerProtobuf(s *scheme.Scheme) error {
	return registerProtobufFields(s, protobufFields())
}

// registerProtobufFields registers the field numbers of each kind of m.
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

// objectReference is core/v1 ObjectReference.
var objectReference = fields{
	field("kind", 1, protobuf.TypeString),
	field("namespace", 2, protobuf.TypeString),
	field("name", 3, protobuf.TypeString),
	field("uid", 4, protobuf.TypeString),
	field("apiVersion", 5, protobuf.TypeString),
	field("resourceVersion", 6, protobuf.TypeString),
	field("fieldPath", 7, protobuf.TypeString),
}

// eventSource is core/v1 EventSource; eventSeries is EventSeries (core/v1 and events/v1).
var (
	eventSource = fields{field("component", 1, protobuf.TypeString), field("host", 2, protobuf.TypeString)}
	eventSeries = fields{field("count", 1, protobuf.TypeInt32), field("lastObservedTime", 2, protobuf.TypeTime)}
)

func protobufFields() map[scheme.GroupVersionKind]fields {
	meta := field("metadata", 1, protobuf.TypeObjectMeta)
	m := map[scheme.GroupVersionKind]fields{
		corev1.SchemeGroupVersion.WithKind("Namespace"): {meta,
			field("spec", 2, protobuf.TypeMessage),
			repeated("spec.finalizers", 1, protobuf.TypeString),
			field("status", 3, protobuf.TypeMessage),
			field("status.phase", 1, protobuf.TypeString),
			repeated("status.conditions", 2, protobuf.TypeMessage),
			field("status.conditions.type", 1, protobuf.TypeString),
			field("status.conditions.status", 2, protobuf.TypeString),
			field("status.conditions.lastTransitionTime", 4, protobuf.TypeTime),
			field("status.conditions.reason", 5, protobuf.TypeString),
			field("status.conditions.message", 6, protobuf.TypeString),
		},
		corev1.SchemeGroupVersion.WithKind("ConfigMap"): {meta,
			field("data", 2, protobuf.TypeStringMap),
			field("binaryData", 3, protobuf.TypeStringMap),
			optional("immutable", 4, protobuf.TypeBool),
		},
		corev1.SchemeGroupVersion.WithKind("Secret"): {meta,
			field("data", 2, protobuf.TypeStringMap),
			field("type", 3, protobuf.TypeString),
			field("stringData", 4, protobuf.TypeStringMap),
			optional("immutable", 5, protobuf.TypeBool),
		},
		corev1.SchemeGroupVersion.WithKind("ServiceAccount"): {meta,
			repeated("secrets", 2, protobuf.TypeMessage),
			repeated("imagePullSecrets", 3, protobuf.TypeMessage),
			field("imagePullSecrets.name", 1, protobuf.TypeString),
			optional("automountServiceAccountToken", 4, protobuf.TypeBool),
		},
		corev1.SchemeGroupVersion.WithKind("Event"): {meta,
			field("involvedObject", 2, protobuf.TypeMessage),
			field("reason", 3, protobuf.TypeString),
			field("message", 4, protobuf.TypeString),
			field("source", 5, protobuf.TypeMessage),
			field("firstTimestamp", 6, protobuf.TypeTime),
			field("lastTimestamp", 7, protobuf.TypeTime),
			field("count", 8, protobuf.TypeInt32),
			field("type", 9, protobuf.TypeString),
			field("eventTime", 10, protobuf.TypeTime),
			optional("series", 11, protobuf.TypeMessage),
			field("action", 12, protobuf.TypeString),
			optional("related", 13, protobuf.TypeMessage),
			field("reportingComponent", 14, protobuf.TypeString),
			field("reportingInstance", 15, protobuf.TypeString),
		},
		eventsv1.SchemeGroupVersion.WithKind("Event"): {meta,
			field("eventTime", 2, protobuf.TypeTime),
			optional("series", 3, protobuf.TypeMessage),
			field("reportingController", 4, protobuf.TypeString),
			field("reportingInstance", 5, protobuf.TypeString),
			field("action", 6, protobuf.TypeString),
			field("reason", 7, protobuf.TypeString),
			field("regarding", 8, protobuf.TypeMessage),
			optional("related", 9, protobuf.TypeMessage),
			field("note", 10, protobuf.TypeString),
			field("type", 11, protobuf.TypeString),
			field("deprecatedSource", 12, protobuf.TypeMessage),
			field("deprecatedFirstTimestamp", 13, protobuf.TypeTime),
			field("deprecatedLastTimestamp", 14, protobuf.TypeTime),
			field("deprecatedCount", 15, protobuf.TypeInt32),
		},
		coordinationv1.SchemeGroupVersion.WithKind("Lease"): {meta,
			field("spec", 2, protobuf.TypeMessage),
			optional("spec.holderIdentity", 1, protobuf.TypeString),
			optional("spec.leaseDurationSeconds", 2, protobuf.TypeInt32),
			optional("spec.acquireTime", 3, protobuf.TypeTime),
			optional("spec.renewTime", 4, protobuf.TypeTime),
			optional("spec.leaseTransitions", 5, protobuf.TypeInt32),
			optional("spec.strategy", 6, protobuf.TypeString),
			optional("spec.preferredHolder", 7, protobuf.TypeString),
		},
		authenticationv1.SchemeGroupVersion.WithKind("SelfSubjectReview"): {meta,
			field("status", 2, protobuf.TypeMessage),
			field("status.userInfo", 1, protobuf.TypeMessage),
			field("status.userInfo.username", 1, protobuf.TypeString),
			field("status.userInfo.uid", 2, protobuf.TypeString),
			repeated("status.userInfo.groups", 3, protobuf.TypeString),
			field("status.userInfo.extra", 4, protobuf.TypeStringMap),
		},
	}
	sa := corev1.SchemeGroupVersion.WithKind("ServiceAccount")
	m[sa] = append(m[sa], under("secrets", objectReference)...)
	ev := corev1.SchemeGroupVersion.WithKind("Event")
	m[ev] = append(m[ev], under("involvedObject", objectReference)...)
	m[ev] = append(m[ev], under("related", objectReference)...)
	m[ev] = append(m[ev], under("source", eventSource)...)
	m[ev] = append(m[ev], under("series", eventSeries)...)
	ev1 := eventsv1.SchemeGroupVersion.WithKind("Event")
	m[ev1] = append(m[ev1], under("regarding", objectReference)...)
	m[ev1] = append(m[ev1], under("related", objectReference)...)
	m[ev1] = append(m[ev1], under("deprecatedSource", eventSource)...)
	m[ev1] = append(m[ev1], under("series", eventSeries)...)
	return m
}
