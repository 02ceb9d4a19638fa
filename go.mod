module github.com/apikit-dev/apikit

go 1.24

require (
	github.com/evanphx/json-patch/v5 v5.9.11
	github.com/fxamacker/cbor/v2 v2.9.6
	github.com/google/btree v1.1.3
	github.com/google/go-cmp v0.7.0
	go.etcd.io/bbolt v1.4.3
	google.golang.org/protobuf v1.36.12
	sigs.k8s.io/structured-merge-diff/v6 v6.4.2
	sigs.k8s.io/yaml v1.6.0
)

require (
	github.com/json-iterator/go v1.1.12 // indirect
	github.com/modern-go/concurrent v0.0.0-20180306012644-bacd9c7ef1dd // indirect
	github.com/modern-go/reflect2 v1.0.2 // indirect
	github.com/x448/float16 v0.8.4 // indirect
	go.yaml.in/yaml/v2 v2.4.2 // indirect
	golang.org/x/sys v0.29.0 // indirect
)
