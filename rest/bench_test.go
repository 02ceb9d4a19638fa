package rest_test

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

func benchDo(b *testing.B, method, url, body string) {
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode >= 300 {
		b.Fatalf("%s %s: %d", method, url, res.StatusCode)
	}
}

func BenchmarkCreate(b *testing.B) {
	s := newServer(b, nil)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		benchDo(b, "POST", s.url+widgetsPath, widgetJSON("w"+strconv.Itoa(i), "blue"))
	}
}

func BenchmarkGet(b *testing.B) {
	s := newServer(b, nil)
	benchDo(b, "POST", s.url+widgetsPath, widgetJSON("w", "blue"))
	b.ReportAllocs()
	for b.Loop() {
		benchDo(b, "GET", s.url+widgetsPath+"/w", "")
	}
}

func BenchmarkList100(b *testing.B) {
	s := newServer(b, nil)
	for i := 0; i < 100; i++ {
		benchDo(b, "POST", s.url+widgetsPath, widgetJSON("w"+strconv.Itoa(i), "blue"))
	}
	b.ReportAllocs()
	for b.Loop() {
		benchDo(b, "GET", s.url+widgetsPath, "")
	}
}
