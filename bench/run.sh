#!/usr/bin/env bash
# Runs the e2e module's side-by-side benchmarks (apikit beside apimachinery, client-go or
# apiextensions-apiserver, the sub-benchmark key impl=) in one run and prints benchstat
# tables with apikit and its peer in adjacent columns. From anywhere in the repository:
#
#   bench/run.sh                                   # every side-by-side benchmark, 6 rounds
#   BENCH='^BenchmarkTracker' ROUNDS=3 bench/run.sh  # the memory store's rows only
#   CG=1 bench/run.sh                              # also instructions/op of the store rows
#   BENCH=none ROUNDS=0 CG=protobuf bench/run.sh   # instructions/op of the protobuf decode rows only
#
# One test binary serves every round, and each round runs every benchmark once with both
# impls back to back, so that load on a shared machine falls on both sides alike rather
# than on whichever ran in a bad minute. Knobs (environment):
#
#   BENCH      benchmark pattern (default: the benchmarks that have impl= cases)
#   ROUNDS     rounds, each one run of every benchmark (default 6; benchstat wants >= 6)
#   BENCHTIME  -test.benchtime of each run (default 1s)
#   OUT        directory for e2e.test, bench.txt and cg.txt (default: a new /tmp directory)
#   CG=1       after the rounds, count instructions per op of the memory store's rows
#              (BenchmarkTrackerCRUD create, get and update, BenchmarkTrackerLifecycle) with
#              e2e/cgbench.sh (needs valgrind). The delete row's setup makes one object per
#              op, which cgbench.sh would count: bench/README.md counts its calls instead.
#   CG=protobuf  after the rounds, count instructions per op of the protobuf decode rows
#              (BenchmarkProtobufMeta's three, BenchmarkWireList's metadata list of 500),
#              once with the garbage collector off and once at GOGC=100, where the count
#              takes in the collector's work for what the decode allocated (GOMAXPROCS=1).
#
# The HTTP rows against the real apiextensions-apiserver are not here: they need two servers
# and ../shared/bench (see bench/README.md).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
BENCH=${BENCH:-'^Benchmark(Tracker|FanOut|CBOR|JSON|DeepCopy|UnstructuredToFromTyped|ProtobufMeta|CRDPruneDefault|CRDValidate|CRDCEL|ApplyWidget50Parts|WireList)'}
ROUNDS=${ROUNDS:-6}
BENCHTIME=${BENCHTIME:-1s}
OUT=${OUT:-$(mktemp -d /tmp/apikit-bench-XXXXXX)}
mkdir -p "$OUT"

if command -v benchstat >/dev/null; then
	benchstat=(benchstat)
else
	benchstat=(go run golang.org/x/perf/cmd/benchstat@latest)
fi

echo "# $(date -u +%FT%TZ) $(git -C "$root" rev-parse --short HEAD) load: $(cut -d' ' -f1-3 /proc/loadavg) cpus: $(nproc)" | tee "$OUT/bench.txt" >&2
go test -C "$root/e2e" -c -o "$OUT/e2e.test" .
for round in $(seq "$ROUNDS"); do
	echo "round $round/$ROUNDS (load $(cut -d' ' -f1 /proc/loadavg))" >&2
	# The test binary runs in its package directory, as go test does.
	(cd "$root/e2e" && "$OUT/e2e.test" -test.run '^$' -test.bench "$BENCH" -test.benchmem \
		-test.count 1 -test.benchtime "$BENCHTIME") >>"$OUT/bench.txt"
done
if ((ROUNDS > 0)); then
	"${benchstat[@]}" -col /impl "$OUT/bench.txt"
fi

if [[ ${CG:-} == protobuf ]]; then
	: >"$OUT/cg.txt"
	rows=()
	for impl in apikit apimachinery; do
		for row in Status_with_details PartialObjectMetadata_with_full_metadata PartialObjectMetadataList; do
			rows+=("^BenchmarkProtobufMeta\$/^$row\$/^Decode\$/^impl=$impl\$ 20000")
		done
		# enough decodes of 500 items for a few dozen collections at GOGC=100
		rows+=("^BenchmarkWireList\$/^format=protobuf\$/^kind=PartialObjectMetadataList\$/^op=decode\$/^impl=$impl\$ 1000")
	done
	for gogc in off 100; do
		for row in "${rows[@]}"; do
			# shellcheck disable=SC2086 # pattern and count are two arguments
			(cd "$root/e2e" && GOGC=$gogc ./cgbench.sh $row) | sed "s/\$/ (GOGC=$gogc)/" | tee -a "$OUT/cg.txt"
		done
	done
fi

if [[ ${CG:-} == 1 ]]; then
	: >"$OUT/cg.txt"
	rows=()
	for op in create get update; do
		for impl in apikit client-go; do
			rows+=("^BenchmarkTrackerCRUD\$/^op=$op\$/^impl=$impl\$ 2000")
		done
	done
	for impl in apikit client-go; do
		rows+=("^BenchmarkTrackerLifecycle\$/^impl=$impl\$ 1000")
	done
	for row in "${rows[@]}"; do
		# shellcheck disable=SC2086 # pattern and count are two arguments
		(cd "$root/e2e" && ./cgbench.sh $row) | tee -a "$OUT/cg.txt"
	done
fi
echo "results in $OUT" >&2
