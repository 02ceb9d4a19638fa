package validation

import (
	"encoding/json"
	"errors"
	"io/fs"
	"testing"

	"github.com/apikit-dev/apikit/scheme"
)

func TestError_RendersExactlyLikeKubernetes(t *testing.T) {
	p := NewPath("spec", "color")
	type pair struct {
		A int `json:"a"`
	}
	tests := []struct {
		name     string
		err      *Error
		wantType ErrorType
		want     string
	}{
		{"required without detail", Required(p, ""), ErrorTypeRequired, "spec.color: Required value"},
		{"required with detail", Required(NewPath("metadata", "name"), "name or generateName is required"), ErrorTypeRequired,
			"metadata.name: Required value: name or generateName is required"},
		{"invalid string is quoted", Invalid(p, `pi"nk`, "bad"), ErrorTypeInvalid, `spec.color: Invalid value: "pi\"nk": bad`},
		{"invalid int64 printed plainly", Invalid(p, int64(-1), "must be greater than or equal to 0"), ErrorTypeInvalid,
			"spec.color: Invalid value: -1: must be greater than or equal to 0"},
		{"invalid bool", Invalid(p, true, "d"), ErrorTypeInvalid, "spec.color: Invalid value: true: d"},
		{"invalid float", Invalid(p, 1.5, "d"), ErrorTypeInvalid, "spec.color: Invalid value: 1.5: d"},
		{"invalid struct as JSON", Invalid(p, pair{A: 1}, "d"), ErrorTypeInvalid, `spec.color: Invalid value: {"a":1}: d`},
		{"invalid slice as JSON", Invalid(p, []string{"orphan", "foregroundDeletion"}, "d"), ErrorTypeInvalid,
			`spec.color: Invalid value: ["orphan","foregroundDeletion"]: d`},
		{"invalid nil as null", Invalid(p, nil, "d"), ErrorTypeInvalid, "spec.color: Invalid value: null: d"},
		{"invalid named string type as JSON", Invalid(p, scheme.UID("a<b"), "d"), ErrorTypeInvalid, `spec.color: Invalid value: "a\u003cb": d`},
		{"invalid unmarshalable value falls back to %#v", Invalid(p, func() {}, "d"), ErrorTypeInvalid, ""},
		{"immutable", Immutable(NewPath("metadata", "name"), "new"), ErrorTypeInvalid,
			`metadata.name: Invalid value: "new": field is immutable`},
		{"type invalid", TypeInvalid(p, 5, "must be a string"), ErrorTypeTypeInvalid, "spec.color: Invalid value: 5: must be a string"},
		{"not supported lists values in given order", NotSupported(p, "pink", []string{"blue", "green", "red"}), ErrorTypeNotSupported,
			`spec.color: Unsupported value: "pink": supported values: "blue", "green", "red"`},
		{"not supported without values", NotSupported(p, "pink", nil), ErrorTypeNotSupported, `spec.color: Unsupported value: "pink"`},
		{"duplicate", Duplicate(NewPath("spec", "ports").Index(1), 80), ErrorTypeDuplicate, "spec.ports[1]: Duplicate value: 80"},
		{"not found", NotFound(p, "x"), ErrorTypeNotFound, `spec.color: Not found: "x"`},
		{"forbidden", Forbidden(NewPath("metadata", "namespace"), "not allowed on this type"), ErrorTypeForbidden,
			"metadata.namespace: Forbidden: not allowed on this type"},
		{"too long hides the value", TooLong(p, "very long", 63), ErrorTypeTooLong, "spec.color: Too long: may not be more than 63 bytes"},
		{"too long singular", TooLong(p, "", 1), ErrorTypeTooLong, "spec.color: Too long: may not be more than 1 byte"},
		{"too long without limit", TooLong(p, "", -1), ErrorTypeTooLong, "spec.color: Too long: value is too long"},
		{"too many", TooMany(p, 5, 3), ErrorTypeTooMany, "spec.color: Too many: 5: must have at most 3 items"},
		{"too many singular", TooMany(p, 2, 1), ErrorTypeTooMany, "spec.color: Too many: 2: must have at most 1 item"},
		{"too many with unknown count", TooMany(p, -1, 3), ErrorTypeTooMany, "spec.color: Too many: must have at most 3 items"},
		{"too many without limit", TooMany(p, 4, -1), ErrorTypeTooMany, "spec.color: Too many: 4: has too many items"},
		{"internal", InternalError(p, errors.New("boom")), ErrorTypeInternal, "spec.color: Internal error: boom"},
		{"unknown type", &Error{Type: "Weird", Field: "f", Detail: "d"}, "Weird",
			`f: Internal error: unhandled error code: <unknown error "Weird">: please report this: d`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.err.Type != tt.wantType {
				t.Errorf("Type = %q, want %q", tt.err.Type, tt.wantType)
			}
			got := tt.err.Error()
			if tt.want == "" { // only check the prefix for %#v renderings of funcs
				if want := "spec.color: Invalid value: (func())(0x"; len(got) < len(want) || got[:len(want)] != want {
					t.Errorf("Error() = %q, want prefix %q", got, want)
				}
				return
			}
			if got != tt.want {
				t.Errorf("Error() = %q\nwant      %q", got, tt.want)
			}
		})
	}
}

func TestErrorType_StringIsTheKubernetesPhrase(t *testing.T) {
	tests := map[ErrorType]string{
		ErrorTypeNotFound:     "Not found",
		ErrorTypeRequired:     "Required value",
		ErrorTypeDuplicate:    "Duplicate value",
		ErrorTypeInvalid:      "Invalid value",
		ErrorTypeNotSupported: "Unsupported value",
		ErrorTypeForbidden:    "Forbidden",
		ErrorTypeTooLong:      "Too long",
		ErrorTypeTooMany:      "Too many",
		ErrorTypeInternal:     "Internal error",
		ErrorTypeTypeInvalid:  "Invalid value",
		ErrorType("X"):        `<unknown error "X">`,
	}
	for typ, want := range tests {
		if got := typ.String(); got != want {
			t.Errorf("%q.String() = %q, want %q", string(typ), got, want)
		}
	}
}

func TestErrorType_ValuesMatchSchemeCauseTypes(t *testing.T) {
	tests := map[ErrorType]scheme.CauseType{
		ErrorTypeNotFound:     scheme.CauseTypeFieldValueNotFound,
		ErrorTypeRequired:     scheme.CauseTypeFieldValueRequired,
		ErrorTypeDuplicate:    scheme.CauseTypeFieldValueDuplicate,
		ErrorTypeInvalid:      scheme.CauseTypeFieldValueInvalid,
		ErrorTypeNotSupported: scheme.CauseTypeFieldValueNotSupported,
		ErrorTypeForbidden:    scheme.CauseTypeForbidden,
		ErrorTypeTooLong:      scheme.CauseTypeTooLong,
		ErrorTypeTooMany:      scheme.CauseTypeTooMany,
		ErrorTypeInternal:     scheme.CauseTypeInternal,
		ErrorTypeTypeInvalid:  scheme.CauseTypeTypeInvalid,
	}
	for typ, cause := range tests {
		if string(typ) != string(cause) {
			t.Errorf("ErrorType %q differs from CauseType %q", typ, cause)
		}
	}
}

func TestErrorList_ErrorAggregatesLikeKubernetes(t *testing.T) {
	a := Required(NewPath("a"), "")
	b := Invalid(NewPath("b"), "x", "bad")
	tests := []struct {
		name string
		list ErrorList
		want string
	}{
		{"empty", nil, ""},
		{"single error as is", ErrorList{a}, "a: Required value"},
		{"several in brackets", ErrorList{a, b}, `[a: Required value, b: Invalid value: "x": bad]`},
		{"duplicates dropped", ErrorList{a, b, Required(NewPath("a"), "")}, `[a: Required value, b: Invalid value: "x": bad]`},
		{"only duplicates leave no brackets", ErrorList{a, Required(NewPath("a"), "")}, "a: Required value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.list.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestErrorList_ErrIsNilOnlyWhenEmpty(t *testing.T) {
	var empty ErrorList
	if err := empty.Err(); err != nil {
		t.Errorf("empty.Err() = %v, want nil", err)
	}
	list := ErrorList{Required(NewPath("a"), "")}
	err := list.Err()
	if err == nil || err.Error() != "a: Required value" {
		t.Errorf("Err() = %v, want the list", err)
	}
	var got ErrorList
	if !errors.As(err, &got) || len(got) != 1 {
		t.Errorf("errors.As did not recover the list: %v", got)
	}
}

func TestErrorList_UnwrapReachesInternalCause(t *testing.T) {
	list := ErrorList{Required(NewPath("a"), ""), InternalError(NewPath("b"), fs.ErrPermission)}
	if !errors.Is(list, fs.ErrPermission) {
		t.Error("errors.Is(list, fs.ErrPermission) = false, want true")
	}
	if errors.Is(list, fs.ErrNotExist) {
		t.Error("errors.Is(list, fs.ErrNotExist) = true, want false")
	}
}

func TestErrorList_CausesCarryBodyWithoutFieldAndKeepDuplicates(t *testing.T) {
	list := ErrorList{
		Required(NewPath("spec", "color"), ""),
		Invalid(NewPath("metadata", "name"), "A_b", "bad name"),
		Required(NewPath("spec", "color"), ""),
	}
	want := []scheme.StatusCause{
		{Type: "FieldValueRequired", Message: "Required value", Field: "spec.color"},
		{Type: "FieldValueInvalid", Message: `Invalid value: "A_b": bad name`, Field: "metadata.name"},
		{Type: "FieldValueRequired", Message: "Required value", Field: "spec.color"},
	}
	got := list.Causes()
	if len(got) != len(want) {
		t.Fatalf("Causes() has %d entries, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("cause %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if c := ErrorList(nil).Causes(); c != nil {
		t.Errorf("empty Causes() = %v, want nil", c)
	}
}

func TestErrorList_ToStatusMarshalsLikeKubeApiserver(t *testing.T) {
	gk := scheme.GroupKind{Group: "toys.example.com", Kind: "Widget"}
	tests := []struct {
		name string
		gk   scheme.GroupKind
		obj  string
		list ErrorList
		want string
	}{
		{
			name: "two causes",
			gk:   gk,
			obj:  "foo",
			list: ErrorList{
				Required(NewPath("spec", "color"), ""),
				NotSupported(NewPath("spec", "size"), "huge", []string{"small", "large"}),
			},
			want: `{
  "kind": "Status",
  "apiVersion": "v1",
  "metadata": {},
  "status": "Failure",
  "message": "Widget.toys.example.com \"foo\" is invalid: [spec.color: Required value, spec.size: Unsupported value: \"huge\": supported values: \"small\", \"large\"]",
  "reason": "Invalid",
  "details": {
    "name": "foo",
    "group": "toys.example.com",
    "kind": "Widget",
    "causes": [
      {
        "reason": "FieldValueRequired",
        "message": "Required value",
        "field": "spec.color"
      },
      {
        "reason": "FieldValueNotSupported",
        "message": "Unsupported value: \"huge\": supported values: \"small\", \"large\"",
        "field": "spec.size"
      }
    ]
  },
  "code": 422
}`,
		},
		{
			name: "core group kind and single error",
			gk:   scheme.GroupKind{Kind: "ConfigMap"},
			obj:  "cm",
			list: ErrorList{Invalid(NewPath("metadata", "name"), "A_b", "bad")},
			want: `{
  "kind": "Status",
  "apiVersion": "v1",
  "metadata": {},
  "status": "Failure",
  "message": "ConfigMap \"cm\" is invalid: metadata.name: Invalid value: \"A_b\": bad",
  "reason": "Invalid",
  "details": {
    "name": "cm",
    "kind": "ConfigMap",
    "causes": [
      {
        "reason": "FieldValueInvalid",
        "message": "Invalid value: \"A_b\": bad",
        "field": "metadata.name"
      }
    ]
  },
  "code": 422
}`,
		},
		{
			name: "empty list",
			gk:   gk,
			obj:  "foo",
			want: `{
  "kind": "Status",
  "apiVersion": "v1",
  "metadata": {},
  "status": "Failure",
  "message": "Widget.toys.example.com \"foo\" is invalid",
  "reason": "Invalid",
  "details": {
    "name": "foo",
    "group": "toys.example.com",
    "kind": "Widget"
  },
  "code": 422
}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := tt.list.ToStatus(tt.gk, tt.obj)
			b, err := json.MarshalIndent(st, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("ToStatus JSON =\n%s\nwant\n%s", b, tt.want)
			}
			if st.Error() != st.Message {
				t.Errorf("Status.Error() = %q, want the message", st.Error())
			}
		})
	}
}
