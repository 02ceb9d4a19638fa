package admission

import (
	"context"
	"testing"

	admissionregistrationv1 "github.com/apikit-dev/apikit/builtin/admissionregistration/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
)

// TestWebhookCall_DryRunNeedsNoSideEffects holds kube's answers to a dry-run request to
// a webhook whose sideEffects is Unknown or Some (400, whatever the failurePolicy) or
// unset (a call failure), which v1 configurations can no longer hold.
func TestWebhookCall_DryRunNeedsNoSideEffects(t *testing.T) {
	for _, tt := range []struct {
		sideEffects *admissionregistrationv1.SideEffectClass
		want        string
		callErr     bool
	}{
		{ptr(admissionregistrationv1.SideEffectClassUnknown), `admission webhook "w" does not support dry run`, false},
		{ptr(admissionregistrationv1.SideEffectClassSome), `admission webhook "w" does not support dry run`, false},
		{nil, `failed calling webhook "w": Webhook SideEffects is nil`, true},
	} {
		h := &hook{name: "w", sideEffects: tt.sideEffects, ignore: true}
		r := newRequest(registry.AdmissionAttributes{DryRun: true, Operation: registry.OperationCreate}, nil)
		_, err := r.call(context.Background(), &invocation{h: h}, nil, nil, false)
		if err == nil || err.Error() != tt.want {
			t.Fatalf("%v: %v, want %q", tt.sideEffects, err, tt.want)
		}
		var st *scheme.Status
		if !tt.callErr && (!asStatus(err, &st) || st.Code != 400 || failureOf(h, err) == nil) {
			t.Errorf("%v: %#v, want a 400 that Ignore does not pass", tt.sideEffects, err)
		}
		if tt.callErr && failureOf(h, err) != nil {
			t.Errorf("Ignore does not pass the call failure %v", err)
		}
	}
}
