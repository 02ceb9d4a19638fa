package protobuf

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/apikit-dev/apikit/scheme"
)

// The encoders write fields with inlined appenders and the decoders read the usual
// shapes (leading strings in order, map entries of one-byte lengths, Time as seconds
// and zero nanos) without the generic loop. These tests hold both to protowire's
// reading of the same bytes, on the usual shapes and on the others.

// wireMap builds the entries of a map<string,string> field with protowire, sorted.
func wireMap(num protowire.Number, m map[string]string) []byte {
	var b []byte
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}) {
		var e []byte
		e = protowire.AppendBytes(protowire.AppendTag(e, 1, protowire.BytesType), []byte(k))
		e = protowire.AppendBytes(protowire.AppendTag(e, 2, protowire.BytesType), []byte(m[k]))
		b = protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), e)
	}
	return b
}

func TestEncode_StringMapsAreSortedWithLengthsOfEverySize(t *testing.T) {
	many := map[string]string{}
	for i := range 40 { // more than the entries sorted on the stack
		many[fmt.Sprintf("k%02d", (i*7)%40)] = fmt.Sprint(i)
	}
	tests := []struct {
		name string
		m    map[string]string
	}{
		{"three short entries", map[string]string{"tier": "web", "app": "demo", "b": ""}},
		{"forty entries", many},
		{"value of two-byte length", map[string]string{"a": strings.Repeat("x", 200), "b": "y"}},
		{"value of three-byte length", map[string]string{"big": strings.Repeat("z", 20000)}},
		{"entry just under and just over 128 bytes", map[string]string{"a": strings.Repeat("u", 122), "b": strings.Repeat("v", 124)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := appendStringMap(nil, 11, tt.m)
			if want := wireMap(11, tt.m); !slices.Equal(got, want) {
				t.Errorf("entries differ from protowire's (%d vs %d bytes)", len(got), len(want))
			}
			m := scheme.ObjectMeta{Labels: tt.m}
			var back scheme.ObjectMeta
			if err := decodeObjectMeta(appendObjectMeta(nil, &m), &back); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.m, back.Labels); diff != "" {
				t.Errorf("labels after a round trip (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEncode_EmbeddedMessageLengthsOfEverySize(t *testing.T) {
	for _, n := range []int{0, 1, 127, 128, 16383, 16384, 2097152} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			body := strings.Repeat("b", n)
			b, start := beginMessage([]byte("head"), 7)
			got := endMessage(append(b, body...), start)
			want := protowire.AppendBytes(protowire.AppendTag([]byte("head"), 7, protowire.BytesType), []byte(body))
			if !slices.Equal(got, want) {
				t.Errorf("message of %d bytes: %d bytes written, protowire writes %d", n, len(got), len(want))
			}
		})
	}
}

func TestDecode_ObjectMetaOfUnusualShapesReadsLikeTheUsualOne(t *testing.T) {
	str := func(b []byte, num protowire.Number, s string) []byte {
		return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), []byte(s))
	}
	msg := func(b []byte, num protowire.Number, body []byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), body)
	}
	varint := func(b []byte, num protowire.Number, v uint64) []byte {
		return protowire.AppendVarint(protowire.AppendTag(b, num, protowire.VarintType), v)
	}
	t0 := time.Unix(1700000000, 0).Local()
	before1970 := time.Unix(-86400, 0).Local()
	tests := []struct {
		name string
		data []byte
		want scheme.ObjectMeta
	}{
		{"strings out of order", str(str(str(nil, 3, "ns"), 1, "n"), 6, "7"),
			scheme.ObjectMeta{Name: "n", Namespace: "ns", ResourceVersion: "7"}},
		{"a leading string repeated later: the last one wins", str(str(str(nil, 1, "first"), 2, "g"), 1, "last"),
			scheme.ObjectMeta{Name: "last", GenerateName: "g"}},
		{"a leading string of two-byte length", str(str(nil, 1, strings.Repeat("n", 130)), 2, "g"),
			scheme.ObjectMeta{Name: strings.Repeat("n", 130), GenerateName: "g"}},
		{"map entry with the value first", msg(nil, 11, str(str(nil, 2, "v"), 1, "k")),
			scheme.ObjectMeta{Labels: map[string]string{"k": "v"}}},
		{"map entry with an unknown field", msg(nil, 12, varint(str(str(nil, 1, "k"), 2, "v"), 3, 9)),
			scheme.ObjectMeta{Annotations: map[string]string{"k": "v"}}},
		{"map entry without a value", msg(nil, 11, str(nil, 1, "k")),
			scheme.ObjectMeta{Labels: map[string]string{"k": ""}}},
		{"time without nanos", msg(nil, 8, varint(nil, 1, uint64(t0.Unix()))),
			scheme.ObjectMeta{CreationTimestamp: scheme.Time{Time: t0}}},
		{"time with nanos, which are dropped", msg(nil, 8, varint(varint(nil, 1, uint64(t0.Unix())), 2, 5)),
			scheme.ObjectMeta{CreationTimestamp: scheme.Time{Time: t0}}},
		{"time before 1970 (a ten-byte varint)", msg(nil, 8, varint(varint(nil, 1, uint64(before1970.Unix())), 2, 0)),
			scheme.ObjectMeta{CreationTimestamp: scheme.Time{Time: before1970}}},
		{"grace period before the deletion timestamp", msg(varint(nil, 10, 30), 9, varint(varint(nil, 1, uint64(t0.Unix())), 2, 0)),
			scheme.ObjectMeta{DeletionGracePeriodSeconds: ptr(int64(30)), DeletionTimestamp: &scheme.Time{Time: t0}}},
		{"a generation of two bytes between the strings and a label", str(msg(varint(str(nil, 1, "n"), 7, 300), 11, str(str(nil, 1, "k"), 2, "v")), 3, "ns"),
			scheme.ObjectMeta{Name: "n", Namespace: "ns", Generation: 300, Labels: map[string]string{"k": "v"}}},
		{"labels before and after a finalizer", msg(str(msg(nil, 11, str(str(nil, 1, "a"), 2, "1")), 14, "f"), 11, str(str(nil, 1, "b"), 2, "2")),
			scheme.ObjectMeta{Labels: map[string]string{"a": "1", "b": "2"}, Finalizers: []string{"f"}}},
		{"a label repeated: the last one wins", msg(msg(nil, 11, str(str(nil, 1, "k"), 2, "old")), 11, str(str(nil, 1, "k"), 2, "new")),
			scheme.ObjectMeta{Labels: map[string]string{"k": "new"}}},
		{"a deletion time, a grace period of two bytes and a label", msg(varint(msg(nil, 9, varint(nil, 1, uint64(t0.Unix()))), 10, 300), 11, str(str(nil, 1, "k"), 2, "v")),
			scheme.ObjectMeta{DeletionTimestamp: &scheme.Time{Time: t0}, DeletionGracePeriodSeconds: ptr(int64(300)), Labels: map[string]string{"k": "v"}}},
		{"two owner references, a finalizer between them", msg(str(msg(nil, 13, str(nil, 3, "a")), 14, "f"), 13, str(nil, 3, "b")),
			scheme.ObjectMeta{OwnerReferences: []scheme.OwnerReference{{Name: "a"}, {Name: "b"}}, Finalizers: []string{"f"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got scheme.ObjectMeta
			if err := decodeObjectMeta(tt.data, &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("decoded (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecode_MalformedShapesStillFail(t *testing.T) {
	tests := []struct {
		name string
		data []byte
	}{
		{"map entry longer than the message", []byte{11<<3 | 2, 6, 1<<3 | 2, 1, 'k', 2<<3 | 2, 9, 'v'}},
		{"leading string longer than the message", []byte{1<<3 | 2, 5, 'a'}},
		{"time varint cut short", []byte{8<<3 | 2, 2, 1 << 3, 0x80}},
		{"field key cut short", []byte{1<<3 | 2, 1, 'a', 0x80}},
		{"a generation of the bytes wire type", []byte{7<<3 | 2, 1, 'a'}},
		{"a name of the varint wire type", []byte{1<<3 | 0, 1}},
		{"a generation cut short after the strings", []byte{1<<3 | 2, 1, 'a', 7 << 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m scheme.ObjectMeta
			if err := decodeObjectMeta(tt.data, &m); err == nil {
				t.Errorf("decoded %+v, want an error", m)
			}
		})
	}
}

// An ObjectMeta decoded with a shared copy goes through commonObjectMeta's reading of
// the usual fields; one decoded without (each string copied) only through the decode
// loop. Both must read any input alike, errors included.
func FuzzDecodeObjectMeta_CommonFieldsReadAsTheLoopReadsThem(f *testing.F) {
	full := fullMeta()
	f.Add(appendObjectMeta(nil, &full))
	withSets := metaWithFieldSets()
	f.Add(appendObjectMeta(nil, &withSets))
	f.Add([]byte{1<<3 | 2, 1, 'n', 7 << 3, 0x80, 0x02, 11<<3 | 2, 6, 1<<3 | 2, 1, 'k', 2<<3 | 2, 1, 'v', 14<<3 | 2, 1, 'f'})
	f.Fuzz(func(t *testing.T, data []byte) {
		var common, loop scheme.ObjectMeta
		errCommon := decodeObjectMeta(data, &common)
		r := reader{b: data, msg: "ObjectMeta"}
		errLoop := decodeObjectMetaFrom(&r, &loop)
		if (errCommon == nil) != (errLoop == nil) {
			t.Fatalf("with a shared copy: %v; through the loop alone: %v", errCommon, errLoop)
		}
		if errCommon == nil {
			if diff := cmp.Diff(loop, common); diff != "" {
				t.Errorf("(-loop +with a shared copy):\n%s", diff)
			}
		}
	})
}
