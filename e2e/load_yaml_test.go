package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Issue 23's YAML load: 5,000 widgets of some 820 bytes (a 4.1 MB list), listed as
// YAML by 64 clients at once, none of them refused for load.
const (
	yamlLoadObjects = 5000
	yamlLoadListers = 64
	// yamlLoadPeakRSSLimit is what the server's peak resident memory must stay under
	// while the 64 lists run: 512 MiB, the figure the JSON, protobuf, CBOR and Table
	// lists of the issue stayed under (451 MiB). Lists built whole and converted by
	// go-yaml took one list from 66 to 461 MiB and 64 of them past 23 GiB.
	yamlLoadPeakRSSLimit = 512 << 20
)

// yamlLoadWidget is a Widget of about 820 bytes of JSON.
func yamlLoadWidget(i int) string {
	return fmt.Sprintf(`{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"y%05d","labels":{"shard":"%d"},"annotations":{"note":"%s"}},"spec":{"color":"red"}}`,
		i, i%10, strings.Repeat("n", 560))
}

func TestLoad_ConcurrentYAMLListsStayUnderAPeakRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("a load test")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	ls := startLoadServer(t, 400, 8)

	var fill sync.WaitGroup
	next := atomic.Int64{}
	var failures atomic.Int64
	for range 8 {
		fill.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= yamlLoadObjects || ctx.Err() != nil {
					return
				}
				if code, err := ls.createUntilAdmitted(ctx, yamlLoadWidget(i)); err != nil || code != http.StatusCreated {
					if failures.Add(1) <= 5 {
						t.Errorf("create %d: %d %v", i, code, err)
					}
				}
			}
		})
	}
	fill.Wait()
	if failures.Load() > 0 {
		t.FailNow()
	}
	base := ls.peakRSS(t)

	start := time.Now()
	var listers sync.WaitGroup
	var items, bytesRead atomic.Int64
	for range yamlLoadListers {
		listers.Go(func() {
			n, size, err := ls.countYAMLItems(ctx, loadWidgetsPath)
			if err != nil {
				t.Errorf("YAML list: %v", err)
				return
			}
			items.Add(int64(n))
			bytesRead.Add(size)
		})
	}
	listers.Wait()
	peak := ls.peakRSS(t)
	t.Logf("%d YAML lists of %d widgets (%d MiB each) in %v; peak RSS %d MiB after filling, %d MiB after the lists",
		yamlLoadListers, yamlLoadObjects, bytesRead.Load()/yamlLoadListers>>20, time.Since(start).Round(time.Second), base>>20, peak>>20)
	if want := int64(yamlLoadListers * yamlLoadObjects); items.Load() != want {
		t.Errorf("%d items listed, want %d", items.Load(), want)
	}
	if peak > yamlLoadPeakRSSLimit {
		t.Errorf("peak RSS %d MiB, over %d MiB", peak>>20, yamlLoadPeakRSSLimit>>20)
	}
}

// countYAMLItems lists path as YAML and counts the items as they arrive, without
// holding the list.
func (ls *loadServer) countYAMLItems(ctx context.Context, path string) (items int, size int64, err error) {
	req, err := http.NewRequestWithContext(ctx, "GET", ls.url+path, nil)
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("Accept", "application/yaml")
	res, err := ls.client.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return 0, 0, fmt.Errorf("status %d", res.StatusCode)
	}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	first := true
	for sc.Scan() {
		line := sc.Bytes()
		size += int64(len(line)) + 1
		if first && !bytes.HasPrefix(line, []byte("apiVersion: toys.example.com/v1")) {
			return 0, size, fmt.Errorf("the list starts %q", line)
		}
		first = false
		if bytes.HasPrefix(line, []byte("- apiVersion: ")) {
			items++
		}
	}
	return items, size, sc.Err()
}
