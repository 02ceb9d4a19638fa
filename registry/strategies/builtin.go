package strategies

import (
	"context"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/apikit-dev/apikit/authn"
	authenticationv1 "github.com/apikit-dev/apikit/builtin/authentication/v1"
	coordinationv1 "github.com/apikit-dev/apikit/builtin/coordination/v1"
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	eventsv1 "github.com/apikit-dev/apikit/builtin/events/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// Builtin returns kube-apiserver's write rules of the built-in kinds, for
// rest.Options.Strategies (also apitest.Options.REST's): a Secret's stringData merged
// into data and its type defaulted to Opaque and immutable; ConfigMap and Secret keys
// checked as kube's IsConfigMapKey does; immutable ConfigMaps and Secrets;
// SelfSubjectReview answered with the requesting user and never stored; no
// metadata.generation on any of the other stored kinds, as none of their strategies in
// kube sets one; Events (core and events.k8s.io) outside garbage collection, their
// deletes ignoring propagationPolicy as kube's event strategy makes them; pods defaulted, validated and made immutable as kube's pod strategy
// does them; the apps/v1 kinds (Apps); and RBAC and Authorization.
func Builtin() map[scheme.GroupResource]registry.Strategy {
	m := map[scheme.GroupResource]registry.Strategy{
		corev1.ConfigMaps: withoutGeneration(registry.StrategyFor[*corev1.ConfigMap]{
			Validate: func(_ context.Context, c *corev1.ConfigMap) validation.ErrorList { return validateConfigMap(c) },
			ValidateUpdate: func(_ context.Context, c, old *corev1.ConfigMap) validation.ErrorList {
				return validateConfigMapUpdate(c, old)
			},
		}),
		corev1.Secrets: withoutGeneration(registry.StrategyFor[*corev1.Secret]{
			PrepareForCreate: func(_ context.Context, s *corev1.Secret) { prepareSecret(s) },
			PrepareForUpdate: func(_ context.Context, s, _ *corev1.Secret) { prepareSecret(s) },
			Validate:         func(_ context.Context, s *corev1.Secret) validation.ErrorList { return validateSecret(s) },
			ValidateUpdate: func(_ context.Context, s, old *corev1.Secret) validation.ErrorList {
				return validateSecretUpdate(s, old)
			},
		}),
		corev1.Namespaces:                   withoutGeneration(registry.StrategyFor[*corev1.Namespace]{}),
		corev1.ServiceAccounts:              withoutGeneration(registry.StrategyFor[*corev1.ServiceAccount]{}),
		corev1.Events:                       withoutGeneration(registry.StrategyFor[*corev1.Event]{DefaultGarbageCollectionPolicy: notGarbageCollected}),
		eventsv1.Events:                     withoutGeneration(registry.StrategyFor[*eventsv1.Event]{DefaultGarbageCollectionPolicy: notGarbageCollected}),
		coordinationv1.Leases:               withoutGeneration(registry.StrategyFor[*coordinationv1.Lease]{}),
		authenticationv1.SelfSubjectReviews: selfSubjectReviewStrategy{},
		// Pods keep a generation: kube's pod strategy sets 1 and bumps it.
		corev1.Pods:         podStrategy(),
		corev1.PodTemplates: podTemplateStrategy(),
	}
	maps.Copy(m, RBAC())
	maps.Copy(m, Authorization())
	maps.Copy(m, Apps())
	maps.Copy(m, PodSubresources())
	maps.Copy(m, Services())
	maps.Copy(m, Batch())
	maps.Copy(m, Networking())
	maps.Copy(m, Policy())
	maps.Copy(m, Autoscaling())
	maps.Copy(m, Discovery())
	maps.Copy(m, ReplicationControllers())
	maps.Copy(m, Quotas())
	maps.Copy(m, StorageAndNodes())
	maps.Copy(m, AdmissionRegistration())
	return m
}

// withoutGeneration adds to s what kube-apiserver does with metadata.generation for a
// kind whose strategy never sets it (every built-in kind): a create
// stores none and an update keeps the stored one, so that spec changes do not bump it.
func withoutGeneration[T scheme.Object](s registry.StrategyFor[T]) registry.StrategyFor[T] {
	create, update := s.PrepareForCreate, s.PrepareForUpdate
	s.PrepareForCreate = func(ctx context.Context, obj T) {
		obj.SetGeneration(0)
		if create != nil {
			create(ctx, obj)
		}
	}
	s.PrepareForUpdate = func(ctx context.Context, obj, old T) {
		obj.SetGeneration(old.GetGeneration())
		if update != nil {
			update(ctx, obj, old)
		}
	}
	return s
}

// prepareSecret does what kube's conversion and defaulting of a v1 Secret do: stringData
// overwrites data key by key and is never stored; a missing type is Opaque.
func prepareSecret(s *corev1.Secret) {
	if len(s.StringData) > 0 && s.Data == nil {
		s.Data = make(map[string][]byte, len(s.StringData))
	}
	for k, v := range s.StringData {
		s.Data[k] = []byte(v)
	}
	s.StringData = nil
	if s.Type == "" {
		s.Type = corev1.SecretTypeOpaque
	}
}

// maxKeyLength is DNS1123SubdomainMaxLength, the longest ConfigMap or Secret key.
const maxKeyLength = 253

var configMapKey = regexp.MustCompile(`^[-._a-zA-Z0-9]+$`)

// configMapKeyErrors returns what kube's IsConfigMapKey says about a key, word for word.
func configMapKeyErrors(key string) []string {
	var errs []string
	if len(key) > maxKeyLength {
		errs = append(errs, "must be no more than 253 characters")
	}
	if !configMapKey.MatchString(key) {
		errs = append(errs, "a valid config key must consist of alphanumeric characters, '-', '_' or '.' "+
			"(e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')")
	}
	switch {
	case key == ".":
		errs = append(errs, `must not be '.'`)
	case key == "..":
		errs = append(errs, `must not be '..'`)
	case strings.HasPrefix(key, ".."):
		errs = append(errs, `must not start with '..'`)
	}
	return errs
}

// validateKeys reports each bad key of a data map under path, in key order.
func validateKeys[V any](m map[string]V, path *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	for _, k := range slices.Sorted(maps.Keys(m)) {
		for _, msg := range configMapKeyErrors(k) {
			errs = append(errs, validation.Invalid(path.Key(k), k, msg))
		}
	}
	return errs
}

func validateConfigMap(c *corev1.ConfigMap) validation.ErrorList {
	errs := validateKeys(c.Data, validation.NewPath("data"))
	errs = append(errs, validateKeys(c.BinaryData, validation.NewPath("binaryData"))...)
	for _, k := range slices.Sorted(maps.Keys(c.BinaryData)) {
		if _, ok := c.Data[k]; ok {
			errs = append(errs, validation.Invalid(validation.NewPath("binaryData").Key(k), k, "duplicate of key present in data"))
		}
	}
	return errs
}

func validateSecret(s *corev1.Secret) validation.ErrorList {
	return validateKeys(s.Data, validation.NewPath("data"))
}

// immutableMsg is kube's detail when an immutable ConfigMap or Secret would change.
const immutableMsg = "field is immutable when `immutable` is set"

// validateImmutable applies kube's rule for an object whose old version set
// immutable: true: it stays immutable, and each named field stays as it was.
func validateImmutable(immutable, oldImmutable *bool, fields map[string][2]any) validation.ErrorList {
	if oldImmutable == nil || !*oldImmutable {
		return nil
	}
	var errs validation.ErrorList
	if immutable == nil || !*immutable {
		errs = append(errs, validation.Forbidden(validation.NewPath("immutable"), immutableMsg))
	}
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		if v := fields[name]; !reflect.DeepEqual(v[0], v[1]) {
			errs = append(errs, validation.Forbidden(validation.NewPath(name), immutableMsg))
		}
	}
	return errs
}

func validateConfigMapUpdate(c, old *corev1.ConfigMap) validation.ErrorList {
	errs := validateImmutable(c.Immutable, old.Immutable, map[string][2]any{
		"data":       {c.Data, old.Data},
		"binaryData": {c.BinaryData, old.BinaryData},
	})
	return append(errs, validateConfigMap(c)...)
}

func validateSecretUpdate(s, old *corev1.Secret) validation.ErrorList {
	var errs validation.ErrorList
	if s.Type != old.Type {
		errs = append(errs, validation.Immutable(validation.NewPath("type"), s.Type))
	}
	errs = append(errs, validateImmutable(s.Immutable, old.Immutable, map[string][2]any{"data": {s.Data, old.Data}})...)
	return append(errs, validateSecret(s)...)
}

// selfSubjectReviewStrategy answers a SelfSubjectReview with the requesting user.
type selfSubjectReviewStrategy struct{}

// RespondToCreate implements registry.CreateResponder: kube-apiserver returns the request's
// object with status.userInfo filled in, and stores nothing.
func (selfSubjectReviewStrategy) RespondToCreate(_ context.Context, user *authn.User, obj scheme.Object) (scheme.Object, error) {
	review := obj.(*authenticationv1.SelfSubjectReview)
	info := authenticationv1.UserInfo{Username: user.Name, UID: user.UID, Groups: slices.Clone(user.Groups)}
	if len(user.Extra) > 0 {
		info.Extra = make(map[string]authenticationv1.ExtraValue, len(user.Extra))
		for k, v := range user.Extra {
			info.Extra[k] = slices.Clone(v)
		}
	}
	review.Status.UserInfo = info
	return review, nil
}
