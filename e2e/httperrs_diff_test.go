package e2e

import (
	"net/url"
	"testing"

	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metainternalscheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"

	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/examples/widgets/server"
	"github.com/apikit-dev/apikit/scheme"
)

// The integer ListOptions that kube-apiserver's parameter codec refuses are refused by
// apikit with the same 400 message, and the ones it takes are taken, side by side.
func TestListOptions_IntegersParseAsKubesParameterCodec(t *testing.T) {
	es := startExampleServer(t, server.StorageMemory)
	r := &replica{exampleServer: es}
	for _, q := range []string{
		"limit=1.5", "limit=1e3", "limit=0x10", "limit=", "limit=%201", "limit=9223372036854775808",
		"limit=%2B2", "limit=-3", "limit=01", "timeoutSeconds=1.5", "timeoutSeconds=-1", "limit=x&timeoutSeconds=y",
	} {
		values, err := url.ParseQuery(q)
		if err != nil {
			t.Fatal(err)
		}
		var opts metainternalversion.ListOptions
		kubeErr := metainternalscheme.ParameterCodec.DecodeParameters(values, metav1.SchemeGroupVersion, &opts)
		a := r.send(t.Context(), "GET", "/apis/toys.example.com/v1/namespaces/default/widgets?"+q, "")
		switch {
		case a.err != nil:
			t.Errorf("%s: %v", q, a.err)
		case kubeErr != nil && (a.code != 400 || a.reason != "BadRequest" || a.message != kubeErr.Error()):
			t.Errorf("%s: %d %s %q, want kube's 400 BadRequest %q", q, a.code, a.reason, a.message, kubeErr.Error())
		// A negative limit, which kube's codec takes (and its list ignores), is apikit's
		// 400 "limit must not be negative": a difference of its own, left out here.
		case kubeErr == nil && a.code == 400 && opts.Limit >= 0:
			t.Errorf("%s: %d %q, but kube's codec takes it (limit %d)", q, a.code, a.message, opts.Limit)
		}
	}
}

// A JSON document that repeats apiVersion or kind names the kind apimachinery's JSON
// serializer reads from it (SimpleMetaFactory: encoding/json into TypeMeta), side by
// side.
func TestDecode_RepeatedKindIsApimachinerys(t *testing.T) {
	s := scheme.New()
	ser := codec.NewJSON(s)
	for _, doc := range []string{
		`{"apiVersion":"toys.example.com/v1","kind":"Widget","kind":"Warehouse"}`,
		`{"apiVersion":"toys.example.com/v1","kind":"Warehouse","kind":"Widget"}`,
		`{"kind":"Widget","apiVersion":"toys.example.com/v1","kind":"Warehouse"}`,
		`{"apiVersion":"toys.example.com/v2","kind":"Widget","apiVersion":"toys.example.com/v1"}`,
		`{"apiVersion":"toys.example.com/v1","kind":"Warehouse","spec":{"kind":"x"},"kind":"Widget","apiVersion":"toys.example.com/v2"}`,
		`{"apiVersion":"toys.example.com/v1","kind":"Widget","kind":null}`,
	} {
		kube, err := kjson.DefaultMetaFactory.Interpret([]byte(doc))
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		u := &scheme.Unstructured{}
		res, err := ser.Decode([]byte(doc), nil, u)
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		want := scheme.GroupVersionKind{Group: kube.Group, Version: kube.Version, Kind: kube.Kind}
		if res.GVK != want {
			t.Errorf("%s: apikit reads %v, apimachinery %v", doc, res.GVK, want)
		}
	}
}
