package rest_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkWatchDelivery creates one widget per iteration (POST) while W watches of the
// collection stream over real connections, and reads every event on every watch: the
// write-to-delivery path of the "1,000 watchers" row, in process. deliveryWriters
// writers create concurrently and keep at most deliveryWindow events ahead of the
// deliveries, so that events queue up as under load without any watcher falling out of
// its buffer.
//
// Besides ns/op (per created widget, all W deliveries included) it reports, per event
// delivered to one watcher, the Flush and Write calls the watch handlers made on their
// http.ResponseWriter (each Flush is a write(2); strace -c -f on the test binary gives the
// syscalls themselves), and the p99 of write-to-delivery (from just before the POST to the
// arrival of the event's last byte):
//
//	go test ./rest -run '^$' -bench WatchDelivery -count 6 | tee out.txt
func BenchmarkWatchDelivery(b *testing.B) {
	for _, watchers := range []int{1, 100, 1000} {
		b.Run(fmt.Sprintf("watchers=%d", watchers), func(b *testing.B) { benchmarkWatchDelivery(b, watchers) })
	}
}

const (
	deliveryWindow  = 50 // below the memory store's default watch buffer of 100
	deliveryWriters = 8  // concurrent writers, as under load
)

// widgetSeq returns i of the widget "w<i>" that a JSON watch event line carries.
func widgetSeq(line []byte) (int, bool) {
	const marker = `"name":"w`
	at := bytes.Index(line, []byte(marker))
	if at < 0 {
		return 0, false
	}
	rest := line[at+len(marker):]
	end := bytes.IndexByte(rest, '"')
	if end < 0 {
		return 0, false
	}
	seq, err := strconv.Atoi(string(rest[:end]))
	return seq, err == nil
}

func benchmarkWatchDelivery(b *testing.B, watchers int) {
	h, _, _ := newTestHandler(b, nil)
	counted := &writeCounter{next: h}
	srv := httptest.NewServer(counted)
	b.Cleanup(srv.Close)
	tr := &http.Transport{MaxIdleConnsPerHost: watchers + 1}
	b.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr}
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)

	n := b.N
	sent := make([]atomic.Int64, n) // unix nanoseconds before the POST of widget i
	var delivered atomic.Int64      // events read, over all watchers
	latencies := make([][]time.Duration, watchers)
	var wg sync.WaitGroup
	failed := make(chan error, watchers)
	for w := range watchers {
		req, err := http.NewRequestWithContext(ctx, "GET", srv.URL+widgetsPath+"?watch=1", nil)
		if err != nil {
			b.Fatal(err)
		}
		res, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		if res.StatusCode != http.StatusOK {
			b.Fatalf("watch: %d", res.StatusCode)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer res.Body.Close()
			lat := make([]time.Duration, 0, n)
			r := bufio.NewReaderSize(res.Body, 64<<10)
			for i := range n {
				line, err := r.ReadSlice('\n')
				if err != nil {
					failed <- fmt.Errorf("watcher %d, event %d: %w", w, i, err)
					return
				}
				if len(line) < 15 || string(line[:15]) != `{"type":"ADDED"` {
					failed <- fmt.Errorf("watcher %d, event %d: %.60s", w, i, line)
					return
				}
				seq, ok := widgetSeq(line)
				if !ok || seq >= n {
					failed <- fmt.Errorf("watcher %d, event %d: no widget name: %.200s", w, i, line)
					return
				}
				lat = append(lat, time.Duration(time.Now().UnixNano()-sent[seq].Load()))
				delivered.Add(1)
			}
			latencies[w] = lat
		}()
	}
	counted.reset()

	b.ResetTimer()
	var next atomic.Int64
	writeFailed := make(chan error, deliveryWriters)
	var writers sync.WaitGroup
	for range deliveryWriters {
		writers.Add(1)
		go func() {
			defer writers.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				for delivered.Load() < int64(i-deliveryWindow)*int64(watchers) {
					runtime.Gosched()
				}
				sent[i].Store(time.Now().UnixNano())
				res, err := client.Post(srv.URL+widgetsPath, "application/json", strings.NewReader(widgetJSON("w"+strconv.Itoa(i), "blue")))
				if err != nil {
					writeFailed <- err
					return
				}
				res.Body.Close()
				if res.StatusCode != http.StatusCreated {
					writeFailed <- fmt.Errorf("create: %d", res.StatusCode)
					return
				}
			}
		}()
	}
	writers.Wait()
	close(writeFailed)
	for err := range writeFailed {
		b.Fatal(err)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case err := <-failed:
		b.Fatal(err)
	}
	b.StopTimer()
	select {
	case err := <-failed:
		b.Fatal(err)
	default:
	}

	events := float64(n) * float64(watchers)
	flushes, writes := counted.counts()
	b.ReportMetric(float64(flushes)/events, "flushes/event")
	b.ReportMetric(float64(writes)/events, "writes/event")
	all := slices.Concat(latencies...)
	slices.Sort(all)
	b.ReportMetric(float64(all[len(all)*99/100].Microseconds())/1000, "p99-ms")
}

// writeCounter counts the Write and Flush calls that watch handlers make on their
// ResponseWriter (other requests pass through uncounted).
type writeCounter struct {
	next            http.Handler
	flushes, writes atomic.Int64
}

func (c *writeCounter) reset() { c.flushes.Store(0); c.writes.Store(0) }

func (c *writeCounter) counts() (flushes, writes int64) { return c.flushes.Load(), c.writes.Load() }

func (c *writeCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("watch") == "" {
		c.next.ServeHTTP(w, r)
		return
	}
	c.next.ServeHTTP(&countingWriter{ResponseWriter: w, c: c}, r)
}

type countingWriter struct {
	http.ResponseWriter
	c *writeCounter
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.c.writes.Add(1)
	return w.ResponseWriter.Write(p)
}

// FlushError is what http.ResponseController calls first.
func (w *countingWriter) FlushError() error {
	w.c.flushes.Add(1)
	return http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *countingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
