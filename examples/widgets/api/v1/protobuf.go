package v1

import (
	"github.com/apikit-dev/apikit/codec/protobuf"
	"github.com/apikit-dev/apikit/scheme"
)

// registerProtobuf gives Widget and Warehouse (and their lists) a protobuf encoding by
// field number, so that clients asking for application/vnd.kubernetes.protobuf get it.
// The numbers are part of the wire contract: never renumber, only add.
//
//	Widget:    metadata=1, spec=2 {color=1, replicas=2, parts=3 {name=1, count=2}},
//	           status=3 {phase=1, replicas=2, observedGeneration=3, conditions=4}
//	Warehouse: metadata=1, spec=2 {location=1, capacity=2}
func registerProtobuf(s *scheme.Scheme) error {
	if err := protobuf.RegisterFields(s, GroupVersion.WithKind("Widget"),
		protobuf.Field{Path: "metadata", Number: 1, Type: protobuf.TypeObjectMeta},
		protobuf.Field{Path: "spec", Number: 2, Type: protobuf.TypeMessage},
		protobuf.Field{Path: "spec.color", Number: 1, Type: protobuf.TypeString},
		protobuf.Field{Path: "spec.replicas", Number: 2, Type: protobuf.TypeInt32, Optional: true},
		protobuf.Field{Path: "spec.parts", Number: 3, Type: protobuf.TypeMessage, Repeated: true},
		protobuf.Field{Path: "spec.parts.name", Number: 1, Type: protobuf.TypeString},
		protobuf.Field{Path: "spec.parts.count", Number: 2, Type: protobuf.TypeInt32},
		protobuf.Field{Path: "status", Number: 3, Type: protobuf.TypeMessage},
		protobuf.Field{Path: "status.phase", Number: 1, Type: protobuf.TypeString},
		protobuf.Field{Path: "status.replicas", Number: 2, Type: protobuf.TypeInt32},
		protobuf.Field{Path: "status.observedGeneration", Number: 3, Type: protobuf.TypeInt64},
		protobuf.Field{Path: "status.conditions", Number: 4, Type: protobuf.TypeCondition, Repeated: true},
	); err != nil {
		return err
	}
	return protobuf.RegisterFields(s, GroupVersion.WithKind("Warehouse"),
		protobuf.Field{Path: "metadata", Number: 1, Type: protobuf.TypeObjectMeta},
		protobuf.Field{Path: "spec", Number: 2, Type: protobuf.TypeMessage},
		protobuf.Field{Path: "spec.location", Number: 1, Type: protobuf.TypeString},
		protobuf.Field{Path: "spec.capacity", Number: 2, Type: protobuf.TypeInt64},
	)
}
