package openapi_test

import (
	"encoding/json"
	"fmt"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/scheme/openapi"
)

func Example() {
	s := scheme.New()
	s.AddKnownTypes(toysV1, &Widget{}, &WidgetList{})
	_ = s.AddResource(scheme.Resource{Group: toysV1.Group, Kind: "Widget", Plural: "widgets", Namespaced: true})

	doc, err := openapi.ForGroupVersion(s, toysV1) // GET /openapi/v3/apis/toys.example.com/v1
	if err != nil {
		panic(err)
	}
	parts, _ := json.Marshal(doc.Schemas["com.example.toys.v1.WidgetSpec"].Properties["parts"])
	fmt.Println(string(parts))

	data, _ := json.Marshal(doc)
	index := openapi.NewDiscovery(map[string][]byte{openapi.DiscoveryPath(toysV1): data}) // GET /openapi/v3
	fmt.Println(index.Paths["apis/toys.example.com/v1"].ServerRelativeURL[:42])
	// Output:
	// {"items":{"allOf":[{"$ref":"#/components/schemas/com.example.toys.v1.Part"}],"default":{}},"type":"array","x-kubernetes-list-map-keys":["name"],"x-kubernetes-list-type":"map","x-kubernetes-patch-merge-key":"name","x-kubernetes-patch-strategy":"merge"}
	// /openapi/v3/apis/toys.example.com/v1?hash=
}
