package kubecode

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"sync/atomic"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/apiserver/pkg/storage/storagebackend/factory"
	"k8s.io/client-go/tools/cache"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/registry/core/endpoint"
	"k8s.io/kubernetes/pkg/registry/core/service"
	"k8s.io/kubernetes/pkg/registry/core/service/ipallocator"
	"k8s.io/kubernetes/pkg/registry/core/service/portallocator"
	servicestorage "k8s.io/kubernetes/pkg/registry/core/service/storage"
)

// Services and Endpoints. kube-apiserver allocates a Service's cluster IPs and node
// ports, and fills its ipFamilies and ipFamilyPolicy, in its service REST storage's
// BeginCreate and BeginUpdate hooks, not in the strategy: serviceStrategy runs those
// very hooks (kube's own code, built by kube's service storage.NewREST over in-memory
// allocators of envtest's ranges, 10.0.0.0/24 and 30000-32767) where the generic
// store runs them, before PrepareForCreate and PrepareForUpdate, and answers their
// error as the store would; what a stored object got stays allocated, as on both
// servers. The storage NewREST is given is never used: the harness stores nothing.
func init() {
	Kinds["Service"] = Kind{schema.GroupVersionKind{Version: "v1", Kind: "Service"}, "services", newServiceStrategy(), nil}
	Kinds["Endpoints"] = Kind{schema.GroupVersionKind{Version: "v1", Kind: "Endpoints"}, "endpoints", endpoint.Strategy, nil}
}

// serviceStrategy is kube's service strategy behind its REST storage's allocation.
type serviceStrategy struct {
	Strategy
	store *genericregistry.Store
	// failed holds the allocation error of an object whose Begin hook failed: its
	// Validate answers it, as the store returns it before validation.
	// finish ends the allocation of an object whose Begin hook succeeded: committed
	// when it validates (the harness then stores it), reverted when it does not.
	mu     sync.Mutex
	failed map[runtime.Object]error
	finish map[runtime.Object]genericregistry.FinishFunc
}

func newServiceStrategy() *serviceStrategy {
	_, cidr, err := net.ParseCIDR("10.0.0.0/24")
	if err != nil {
		panic(err)
	}
	ips, err := ipallocator.NewInMemory(cidr)
	if err != nil {
		panic(err)
	}
	ports, err := portallocator.NewInMemory(utilnet.PortRange{Base: 30000, Size: 2768})
	if err != nil {
		panic(err)
	}
	opts := generic.RESTOptions{
		StorageConfig: &storagebackend.ConfigForResource{},
		Decorator: func(*storagebackend.ConfigForResource, string, func(runtime.Object) (string, error), func() runtime.Object,
			func() runtime.Object, storage.AttrFunc, storage.IndexerFuncs, *cache.Indexers) (storage.Interface, factory.DestroyFunc, error) {
			return unusedStorage{}, func() {}, nil
		},
		ResourcePrefix: "services",
	}
	rest, _, _, err := servicestorage.NewREST(opts, api.IPv4Protocol, map[api.IPFamily]ipallocator.Interface{api.IPv4Protocol: ips}, ports, nil, nil, nil)
	if err != nil {
		panic(err)
	}
	return &serviceStrategy{Strategy: service.Strategy, store: rest.Store, failed: map[runtime.Object]error{}, finish: map[runtime.Object]genericregistry.FinishFunc{}}
}

// allocationRefused is set when the last Service create or update was refused by its
// Begin hook: kube-apiserver's store answers that error alone, where this harness's
// rest.ValidateCreate and ValidateUpdate add the metadata causes to it (an intended
// difference of the comparison sets them aside).
var allocationRefused atomic.Bool

// unusedStorage is the storage of a store whose storage methods are never called.
type unusedStorage struct{ storage.Interface }

// begun records the outcome of a Begin hook on obj.
func (s *serviceStrategy) begun(obj runtime.Object, finish genericregistry.FinishFunc, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.failed[obj] = err
		return
	}
	s.finish[obj] = finish
}

// validated commits or reverts obj's allocation, as the store does once it knows
// whether the object is stored, and returns errs.
func (s *serviceStrategy) validated(obj runtime.Object, errs field.ErrorList) field.ErrorList {
	s.mu.Lock()
	finish := s.finish[obj]
	delete(s.finish, obj)
	s.mu.Unlock()
	if finish != nil {
		finish(context.Background(), len(errs) == 0)
	}
	return errs
}

func (s *serviceStrategy) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	finish, err := s.store.BeginCreate(ctx, obj, &metav1.CreateOptions{})
	s.begun(obj, finish, err)
	s.Strategy.PrepareForCreate(ctx, obj)
}

func (s *serviceStrategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	finish, err := s.store.BeginUpdate(ctx, obj, old, &metav1.UpdateOptions{})
	s.begun(obj, finish, err)
	s.Strategy.PrepareForUpdate(ctx, obj, old)
}

// allocationError returns the Begin hook's error of obj, as causes for a 422.
func (s *serviceStrategy) allocationError(obj runtime.Object) (field.ErrorList, bool) {
	s.mu.Lock()
	err, ok := s.failed[obj]
	delete(s.failed, obj)
	s.mu.Unlock()
	if !ok {
		return nil, false
	}
	allocationRefused.Store(true)
	var se *apierrors.StatusError
	if errors.As(err, &se) && se.ErrStatus.Details != nil && len(se.ErrStatus.Details.Causes) > 0 {
		var errs field.ErrorList
		// The causes again as field errors whose ErrorBody is the cause's message.
		for _, c := range se.ErrStatus.Details.Causes {
			t := field.ErrorType(c.Type)
			errs = append(errs, &field.Error{Type: t, Field: c.Field, BadValue: field.OmitValueType{},
				Detail: strings.TrimPrefix(c.Message, t.String()+": ")})
		}
		return errs, true
	}
	return field.ErrorList{field.InternalError(field.NewPath("spec"), err)}, true
}

func (s *serviceStrategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	if errs, ok := s.allocationError(obj); ok {
		return errs
	}
	return s.validated(obj, s.Strategy.Validate(ctx, obj))
}

func (s *serviceStrategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	if errs, ok := s.allocationError(obj); ok {
		return errs
	}
	return s.validated(obj, s.Strategy.ValidateUpdate(ctx, obj, old))
}

// Canonicalize is the strategy's, then what the store does to every object it returns:
// its Decorator (the service storage's defaultOnRead, which hides an ExternalName
// service's internalTrafficPolicy), since the harness encodes the object as the answer.
func (s *serviceStrategy) Canonicalize(obj runtime.Object) {
	s.Strategy.Canonicalize(obj)
	if s.store.Decorator != nil {
		s.store.Decorator(obj)
	}
}
