package rest_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/rest"
)

// nestedExtra is a custom Widget whose spec.extra nests levels objects deep, so the
// object is levels+2 deep and the managedFields that record it levels+7.
func nestedExtra(name string, levels int) string {
	extra := strings.Repeat(`{"a":`, levels) + "1" + strings.Repeat("}", levels)
	return crdWidgetJSON(name, `{"size":1,"extra":`+extra+`}`)
}

// readable reports whether a client's decoder (encoding/json, as client-go's, with
// its limit of 10000 levels) reads body.
func readable(body []byte) error {
	var v any
	return json.Unmarshal(body, &v)
}

func TestWrite_AnObjectWhoseStoredFormIsTooDeepToReadIsRefusedAndWhatIsAcceptedReadsBack(t *testing.T) {
	s := newServer(t, func(o *rest.Options) {
		addCRDWidgets(t, o.Scheme, crdSchema(t, `{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}`))
	})
	for _, tc := range []struct {
		levels   int
		accepted bool
	}{
		{9990, true},  // 9992 deep, 9997 with its managedFields: 10000 in a Table
		{9991, false}, // 9998 with its managedFields
		{9995, false}, // the case: 10002
		{9998, false}, // 10000 deep itself, the deepest body the decoder reads
	} {
		t.Run(strconv.Itoa(tc.levels), func(t *testing.T) {
			name := "w" + strconv.Itoa(tc.levels)
			start := time.Now()
			r := s.do("POST", crdPath, "application/json", nestedExtra(name, tc.levels))
			t.Logf("POST %d levels: %d in %v", tc.levels, r.code, time.Since(start))
			if !tc.accepted {
				m := r.json(t)
				if msg, _ := m["message"].(string); r.code != http.StatusBadRequest || m["reason"] != "BadRequest" || !strings.Contains(msg, "exceeded max depth of 10000") {
					t.Fatalf("POST = %d %.300s, want 400 BadRequest: exceeded max depth of 10000", r.code, r.body)
				}
				t.Logf("message: %s", m["message"])
				if r := s.do("GET", crdPath+"/"+name, "", ""); r.code != http.StatusNotFound {
					t.Errorf("GET after the refused POST = %d, want 404", r.code)
				}
				if tc.levels == 9995 {
					// A dry run answers what the write would.
					if r := s.do("POST", crdPath+"?dryRun=All", "application/json", nestedExtra(name, tc.levels)); r.code != http.StatusBadRequest {
						t.Errorf("POST ?dryRun=All = %d %.300s, want 400", r.code, r.body)
					}
				}
				return
			}
			if r.code != http.StatusCreated {
				t.Fatalf("POST = %d %.300s, want 201", r.code, r.body)
			}
			get := s.do("GET", crdPath+"/"+name, "", "")
			if get.code != http.StatusOK {
				t.Fatalf("GET = %d %.300s", get.code, get.body)
			}
			if err := readable(get.body); err != nil {
				t.Errorf("GET answered what a client cannot read: %v", err)
			}
			if r := s.do("PUT", crdPath+"/"+name, "application/json", string(get.body)); r.code != http.StatusOK {
				t.Errorf("PUT back of what GET answered = %d %.300s, want 200", r.code, r.body)
			}
		})
	}
	for _, accept := range []string{"application/json", "application/json;as=Table;v=v1;g=meta.k8s.io", "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"} {
		list := s.do("GET", crdPath, "", "", "Accept", accept)
		if list.code != http.StatusOK {
			t.Fatalf("LIST as %s = %d", accept, list.code)
		}
		if err := readable(list.body); err != nil {
			t.Errorf("LIST as %s answered what a client cannot read: %v", accept, err)
		}
	}
}
