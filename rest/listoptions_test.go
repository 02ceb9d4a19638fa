package rest_test

import (
	"io"
	"net/http"
	"testing"
	"time"
)

// The integer ListOptions (limit, timeoutSeconds) parse as kube-apiserver's parameter
// codec parses them, strconv.ParseInt of the first value, for lists and watches alike:
// anything else is a 400 whose message is the parser's, before any other check.
func TestListOptions_IntegersThatDoNotParseAre400(t *testing.T) {
	s := newServer(t, nil)
	s.create("a", "blue")
	s.create("b", "blue")
	for _, tc := range []struct {
		name, query, message string
	}{
		{"a fractional limit", "?limit=1.5", `strconv.ParseInt: parsing "1.5": invalid syntax`},
		{"a limit with trailing text", "?limit=1abc", `strconv.ParseInt: parsing "1abc": invalid syntax`},
		{"a limit in exponent form", "?limit=1e3", `strconv.ParseInt: parsing "1e3": invalid syntax`},
		{"a hexadecimal limit", "?limit=0x10", `strconv.ParseInt: parsing "0x10": invalid syntax`},
		{"a limit with a space", "?limit=%201", `strconv.ParseInt: parsing " 1": invalid syntax`},
		{"an empty limit", "?limit=", `strconv.ParseInt: parsing "": invalid syntax`},
		{"a limit past int64", "?limit=9223372036854775808", `strconv.ParseInt: parsing "9223372036854775808": value out of range`},
		{"the first of two limits is read", "?limit=1.5&limit=1", `strconv.ParseInt: parsing "1.5": invalid syntax`},
		{"a list's timeoutSeconds", "?timeoutSeconds=1.5", `strconv.ParseInt: parsing "1.5": invalid syntax`},
		{"timeoutSeconds before limit", "?limit=x&timeoutSeconds=y", `strconv.ParseInt: parsing "y": invalid syntax`},
		{"before the 422 of invalid ListOptions", "?limit=1.5&resourceVersionMatch=Exact", `strconv.ParseInt: parsing "1.5": invalid syntax`},
		{"a watch's fractional timeoutSeconds", "?watch=1&timeoutSeconds=1.5", `strconv.ParseInt: parsing "1.5": invalid syntax`},
		{"a watch's fractional limit", "?watch=1&timeoutSeconds=1&limit=1.5", `strconv.ParseInt: parsing "1.5": invalid syntax`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := s.do("GET", widgetsPath+tc.query, "", "")
			st := statusOf(t, r)
			if r.code != http.StatusBadRequest || st["reason"] != "BadRequest" || st["message"] != tc.message {
				t.Errorf("%d %v %q, want 400 BadRequest %q: %s", r.code, st["reason"], st["message"], tc.message, r.body)
			}
			if _, ok := st["items"]; ok {
				t.Errorf("a list was sent: %s", r.body)
			}
		})
	}
	// What ParseInt takes is a limit, as in kube: a sign included.
	for _, q := range []string{"?limit=1", "?limit=%2B1", "?limit=01"} {
		r := s.do("GET", widgetsPath+q, "", "")
		m := r.json(t)
		items, _ := m["items"].([]any)
		if r.code != http.StatusOK || len(items) != 1 || get(m, "metadata", "continue") == nil {
			t.Errorf("GET %s: %d with %d items: %s, want one item and a continue token", q, r.code, len(items), r.body)
		}
	}
}

// A watch whose timeoutSeconds is negative, or more seconds than a time.Duration holds
// (9223372037 and up), has timed out before it starts: kube-apiserver's watch timer fires
// at once, so the answer is a 200 stream that ends with no events, not a dropped
// connection.
func TestWatch_TimeoutSecondsPastADurationEndsTheStreamAtOnce(t *testing.T) {
	s := newServer(t, nil)
	s.create("a", "blue")
	// The client's timeout only bounds a server that would hold the stream open.
	client := &http.Client{Timeout: 20 * time.Second}
	for _, tc := range []struct{ name, timeoutSeconds string }{
		{"the first second past a Duration", "9223372037"},
		{"the largest int64", "9223372036854775807"},
		{"a value whose nanoseconds wrap to a positive Duration", "18446744074"},
		{"negative", "-1"},
		{"the smallest int64", "-9223372036854775808"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			res, err := client.Get(s.url + widgetsPath + "?watch=1&resourceVersion=0&timeoutSeconds=" + tc.timeoutSeconds)
			if err != nil {
				t.Fatalf("no answer: %v", err)
			}
			defer res.Body.Close()
			body, err := io.ReadAll(res.Body)
			if err != nil {
				t.Fatalf("reading the stream: %v", err)
			}
			t.Logf("timeoutSeconds=%s: %d %q, %d bytes after %v", tc.timeoutSeconds, res.StatusCode, res.Header.Get("Content-Type"), len(body), time.Since(start))
			if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "application/json" {
				t.Errorf("%d %q, want 200 application/json", res.StatusCode, res.Header.Get("Content-Type"))
			}
			if len(body) != 0 {
				t.Errorf("the stream carried %q, want no event", body)
			}
		})
	}
	// The longest timeout a Duration holds is still a watch that streams.
	res, err := client.Get(s.url + widgetsPath + "?watch=1&resourceVersion=0&timeoutSeconds=9223372036")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	buf := make([]byte, 1)
	if n, err := res.Body.Read(buf); res.StatusCode != http.StatusOK || n != 1 {
		t.Errorf("timeoutSeconds=9223372036: %d, read %d bytes (%v), want the first event", res.StatusCode, n, err)
	}
}
