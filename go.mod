module github.com/apikit-dev/apikit

go 1.24

require (
	github.com/evanphx/json-patch/v5 v5.9.11
	github.com/google/btree v1.1.3
	github.com/google/go-cmp v0.7.0
	go.etcd.io/bbolt v1.4.3
	sigs.k8s.io/yaml v1.6.0
)

require (
	go.yaml.in/yaml/v2 v2.4.2 // indirect
	golang.org/x/sys v0.29.0 // indirect
)
