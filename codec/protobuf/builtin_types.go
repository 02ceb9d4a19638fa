package protobuf

import (
	"reflect"
	"slices"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/apikit-dev/apikit/scheme"
)

// The Go shapes Kubernetes' built-in kinds add to those of custom kinds: MicroTime
// (Events, Leases), map<string, bytes> (ConfigMap binaryData, Secret data) and
// map<string, ExtraValue> (UserInfo extra, a message of repeated string items=1).
var microTimeType = reflect.TypeFor[scheme.MicroTime]()

// isTimeType says whether t travels as a meta/v1 Time or MicroTime message, which
// share one wire shape ({seconds=1, nanos=2}); only MicroTime fills nanos.
func isTimeType(t reflect.Type) bool { return t == timeType || t == microTimeType }

// isStringMapType says whether t is a map from strings to strings, bytes or string
// lists, all of which TypeStringMap writes as map entries {key=1, value=2}.
func isStringMapType(t reflect.Type) bool {
	if t.Kind() != reflect.Map || t.Key().Kind() != reflect.String {
		return false
	}
	e := t.Elem()
	return e.Kind() == reflect.String || (e.Kind() == reflect.Slice && (e.Elem().Kind() == reflect.Uint8 || e.Elem().Kind() == reflect.String))
}

// appendTimeValue appends a Time or MicroTime value (the struct embedding time.Time).
func appendTimeValue(b []byte, num protowire.Number, v reflect.Value) []byte {
	t := v.Field(0).Interface().(time.Time)
	if v.Type() != microTimeType {
		return appendTime(b, num, t)
	}
	b, start := beginMessage(b, num)
	if !t.IsZero() {
		b = appendVarintField(b, 1, uint64(t.Unix()))
		b = appendVarintField(b, 2, uint64(t.Nanosecond()/1000*1000))
	}
	return endMessage(b, start)
}

// decodeTimeValue reads a Time or MicroTime body into v; a Time keeps seconds only.
func decodeTimeValue(data []byte, v reflect.Value) error {
	if v.Type() != microTimeType {
		t, err := decodeTime(data)
		v.Set(reflect.ValueOf(t))
		return err
	}
	secs, nanos, err := decodeTimestamp(data, "MicroTime")
	if err != nil {
		return err
	}
	var t time.Time
	if len(data) > 0 {
		t = time.Unix(secs, int64(nanos)).Local()
	}
	v.Field(0).Set(reflect.ValueOf(t))
	return nil
}

// appendGenericMap appends the entries of a map whose values are bytes or string
// lists, sorted by key like appendStringMap.
func appendGenericMap(b []byte, num protowire.Number, v reflect.Value) []byte {
	keys := make([]string, 0, v.Len())
	for it := v.MapRange(); it.Next(); {
		keys = append(keys, it.Key().String())
	}
	slices.Sort(keys)
	for _, k := range keys {
		val := v.MapIndex(reflect.ValueOf(k).Convert(v.Type().Key()))
		var start int
		b, start = beginMessage(b, num)
		b = appendString(b, 1, k)
		if val.Type().Elem().Kind() == reflect.Uint8 {
			if !val.IsNil() {
				b = appendBytesField(b, 2, val.Bytes())
			}
		} else {
			var inner int
			b, inner = beginMessage(b, 2)
			for j := 0; j < val.Len(); j++ {
				b = appendString(b, 1, val.Index(j).String())
			}
			b = endMessage(b, inner)
		}
		b = endMessage(b, start)
	}
	return b
}

// decodeGenericMapEntry reads one entry of a map whose values are bytes or string lists into v.
func decodeGenericMapEntry(data []byte, v reflect.Value) error {
	if v.IsNil() {
		v.Set(reflect.MakeMap(v.Type()))
	}
	et := v.Type().Elem()
	key := ""
	val := reflect.New(et).Elem()
	r := reader{b: data, msg: "map entry"}
	for {
		ok, err := r.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		switch r.num {
		case 1:
			key, err = r.string()
		case 2:
			var body []byte
			if body, err = r.bytes(); err != nil {
				return err
			}
			if et.Elem().Kind() == reflect.Uint8 {
				val.SetBytes(append([]byte{}, body...))
				break
			}
			var items []string
			if items, err = decodeStringList(body); err == nil {
				s := reflect.MakeSlice(et, len(items), len(items))
				for i, x := range items {
					s.Index(i).SetString(x)
				}
				val.Set(s)
			}
		default:
			err = r.skip()
		}
		if err != nil {
			return err
		}
	}
	v.SetMapIndex(reflect.ValueOf(key).Convert(v.Type().Key()), val)
	return nil
}
