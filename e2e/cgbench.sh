#!/usr/bin/env bash
# Instructions per op of one e2e benchmark, counted by callgrind: repeatable on a shared,
# noisy machine where wall-clock numbers swing by tens of percent. Run from e2e/:
#
#   ./cgbench.sh '^BenchmarkTrackerCRUD$/^op=create$/^impl=apikit$' 20000
#   GOGC=100 ./cgbench.sh '^BenchmarkDeepCopy$/^typed$/^parts=20$/^impl=apikit$' 5000
#
# It runs the benchmark at -test.benchtime 2N+1 and N+1 under valgrind (apt-get install
# valgrind) with GOMAXPROCS=1 and prints (instructions(2N+1) - instructions(N+1)) / N: the
# setup cancels out, also the setup a benchmark function repeats before each of its runs
# (the testing package runs it with b.N = 1 first). Setup that grows with b.N (objects
# made for a delete to remove) is counted, on both sides of a comparison. GOGC defaults
# to off (no garbage-collector work counted); anchor every element of the pattern
# (^...$), since "parts=20" also matches "parts=200". GODEBUG cpu.rdtscp=off keeps the
# runtime's clock reads (a contended lock's spinning) to RDTSC: valgrind 3.19 cannot
# decode RDTSCP and kills the run with SIGILL, mid-count.
#
# PKG names another package directory to build instead (PKG=../rest for the handler's
# in-process BenchmarkWritePath); BIN runs an already built test binary, so that two
# commits can be counted side by side.
set -euo pipefail
pattern=$1 n=${2:-5000}
bin=$(mktemp -d)/e2e.test
trap 'rm -rf "$(dirname "$bin")"' EXIT
if [ -n "${BIN:-}" ]; then cp "$BIN" "$bin"; else go test -c -o "$bin" "${PKG:-.}"; fi
count() {
	GOGC=${GOGC:-off} GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off GOMAXPROCS=1 valgrind --tool=callgrind \
		--callgrind-out-file=/dev/null "$bin" -test.run '^$' -test.bench "$pattern" \
		-test.benchtime "${1}x" 2>&1 >/dev/null | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
a=$(count $((2 * n + 1)))
b=$(count $((n + 1)))
echo "$pattern: $(((a - b) / n)) instructions/op"
