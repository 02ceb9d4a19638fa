package audit_test

import (
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/audit"
	"github.com/apikit-dev/apikit/scheme"
)

// TestEvent_AppendJSONIsEncodingJSONsBytes compares the hand-written encoder with
// encoding/json over generated events: every optional part present or not, strings
// that need escaping, statuses of successes and failures, bodies and annotations.
func TestEvent_AppendJSONIsEncodingJSONsBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	str := func() string {
		return []string{"", "a", "widgets", "<b>&\"x\"\\", "\u2028é\x01", "system:serviceaccount:ns:sa"}[rng.IntN(6)]
	}
	strs := func() []string {
		switch rng.IntN(3) {
		case 0:
			return nil
		case 1:
			return []string{}
		}
		return []string{str(), str()}
	}
	user := func() audit.UserInfo {
		u := audit.UserInfo{Username: str(), UID: str(), Groups: strs()}
		if rng.IntN(2) == 0 {
			u.Extra = map[string][]string{"b": strs(), "a<": {str()}}
		}
		return u
	}
	for i := range 3000 {
		ev := &audit.Event{
			Kind: audit.EventKind, APIVersion: audit.APIVersion, Level: audit.Level(str()), AuditID: str(),
			Stage: audit.Stage(str()), RequestURI: str(), Verb: str(), User: user(), SourceIPs: strs(), UserAgent: str(),
			RequestReceivedTimestamp: scheme.NewMicroTime(time.Unix(rng.Int64N(2e9), rng.Int64N(1e9))),
		}
		if rng.IntN(4) > 0 {
			ev.StageTimestamp = scheme.NewMicroTime(time.Unix(rng.Int64N(2e9), rng.Int64N(1e9)))
		}
		if rng.IntN(2) == 0 {
			u := user()
			ev.ImpersonatedUser = &u
		}
		if rng.IntN(2) == 0 {
			ev.ObjectRef = &audit.ObjectReference{Resource: str(), Namespace: str(), Name: str(), UID: str(), APIGroup: str(), APIVersion: str(), ResourceVersion: str(), Subresource: str()}
		}
		switch rng.IntN(4) {
		case 1:
			ev.ResponseStatus = &scheme.Status{Code: int32(rng.IntN(600))}
		case 2:
			ev.ResponseStatus = &scheme.Status{Code: 404, Status: scheme.StatusFailure, Message: str(), Reason: scheme.StatusReasonNotFound,
				Details: &scheme.StatusDetails{Name: str(), Kind: "widgets"}}
		case 3:
			ev.ResponseStatus = &scheme.Status{}
		}
		if rng.IntN(3) == 0 {
			ev.RequestObject = json.RawMessage(`{"a" : [1, "<x>"] }`)
			ev.ResponseObject = json.RawMessage(`{"kind":"Widget"}`)
		}
		if rng.IntN(2) == 0 {
			ev.Annotations = map[string]string{"z": str(), "authorization.k8s.io/decision": "allow", "k" + strconv.Itoa(i%3): str()}
		}
		want, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ev.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("event %d:\nAppendJSON:   %s\nencoding/json: %s", i, got, want)
		}
	}
}
