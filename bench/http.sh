#!/usr/bin/env bash
# http.sh runs apikit's example server and the real apiextensions-apiserver
# (kube-crd-server) side by side over HTTP with the same driver (httpload), in one run:
# every round starts each server afresh, alternating which goes first, over each storage
# mode, and runs the same workloads against both. At the end it prints httpload's
# comparison table (medians of the rounds, spread, ratio) per mode.
#
#   bench/http.sh                          # bolt and etcd, 3 rounds, HTTPS + bearer token
#   MODES=memory PLAIN=1 bench/http.sh     # plain HTTP, no authentication, memory store
#
# Modes: bolt (apikit on storage/bolt; the peer on its embedded etcd, fsync on),
# memory (apikit on storage/memory; the peer as for bolt), etcd (both over one fresh
# etcd-server, apikit with its watch cache, as kube-apiserver with its own).
#
# Knobs (environment):
#   MODES      storage modes, default "bolt etcd"
#   ROUNDS     rounds, default 3
#   N          create/get/update operations per run, default 1000
#   PLAIN      1: plain HTTP without authentication on both (the peer's insecure port,
#              apikit with -anonymous-auth -authorization-mode AlwaysAllow), as the
#              issue's baseline was taken; default 0: HTTPS with a bearer token on both
#   WORKLOADS  default "create get update list watch"
#   OUT        results directory, default a new /tmp/apikit-http-XXXXXX
#   BIN        where the binaries are (built as bench/README.md says), default /tmp:
#              $BIN/apikit-widgets, $BIN/kube-crd-server, $BIN/httpload, $BIN/etcd-server
#   PEER_CRDS  the peer's CRD directory, default ../shared/bench/kube-crd-server/crds
set -euo pipefail
cd "$(dirname "$0")/.."

MODES=${MODES:-bolt etcd}
ROUNDS=${ROUNDS:-3}
N=${N:-1000}
PLAIN=${PLAIN:-0}
WORKLOADS=${WORKLOADS:-create get update list watch}
BIN=${BIN:-/tmp}
PEER_CRDS=${PEER_CRDS:-$(cd .. && pwd)/shared/bench/kube-crd-server/crds}
OUT=${OUT:-$(mktemp -d /tmp/apikit-http-XXXXXX)}
DRV=$BIN/httpload
mkdir -p "$OUT/logs"
for b in apikit-widgets kube-crd-server httpload etcd-server; do
  [[ -x $BIN/$b ]] || { echo "missing $BIN/$b: build it as bench/README.md says" >&2; exit 2; }
done
echo "# $(git rev-parse --short HEAD 2>/dev/null) $(date -u +%FT%TZ) plain=$PLAIN n=$N rounds=$ROUNDS load: $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$OUT/header.txt"

# stop PID: SIGTERM, then SIGKILL after 20 s.
stop() {
  kill -TERM "$1" 2>/dev/null || return 0
  for _ in $(seq 1 100); do kill -0 "$1" 2>/dev/null || break; sleep 0.2; done
  kill -KILL "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

# one MODE SIDE ROUND: start SIDE (apikit | kube-crd-server) over MODE, run the workloads, stop it.
one() {
  local mode=$1 side=$2 round=$3
  local dir port log etcd_pid="" etcd_url="" srv_pid scheme=https token="" args
  dir=$(mktemp -d "$OUT/srv-XXXXXX")
  port=$($DRV -workload freeport)
  log=$OUT/logs/$mode-$side-r$round
  if [[ $mode == etcd ]]; then
    local ep pp
    ep=$($DRV -workload freeport) pp=$($DRV -workload freeport)
    "$BIN/etcd-server" -data-dir "$dir/etcd" -listen-client "127.0.0.1:$ep" -listen-peer "127.0.0.1:$pp" >"$log.etcd.out" 2>"$log.etcd.err" &
    etcd_pid=$!
    for _ in $(seq 1 400); do grep -q ready "$log.etcd.out" 2>/dev/null && break; sleep 0.05; done
    etcd_url=http://127.0.0.1:$ep
  fi
  if [[ $side == apikit ]]; then
    token=bench-token-$RANDOM$RANDOM
    case $mode in
      bolt) args=(-storage bolt -data "$dir/data") ;;
      memory) args=(-storage memory) ;;
      etcd) args=(-storage etcd -etcd-endpoints "$etcd_url") ;;
    esac
    [[ $PLAIN == 1 ]] && args+=(-anonymous-auth -authorization-mode AlwaysAllow)
    "$BIN/apikit-widgets" -addr "127.0.0.1:$port" "${args[@]}" -kubeconfig "$dir/kubeconfig" -token "$token" >"$log.out" 2>"$log.err" &
  else
    if [[ $mode == etcd ]]; then args=(-etcd-endpoints "$etcd_url"); else args=(-etcd-dir "$dir/etcd"); fi
    if [[ $PLAIN == 1 ]]; then
      args+=(-addr 127.0.0.1:0 -http-addr "127.0.0.1:$port")
    else
      args+=(-addr "127.0.0.1:$port")
    fi
    "$BIN/kube-crd-server" "${args[@]}" -crds "$PEER_CRDS" -kubeconfig "$dir/kubeconfig" >"$log.out" 2>"$log.err" &
  fi
  srv_pid=$!
  local drv=("$DRV" -pid "$srv_pid" -label "$side" -round "$round" -timeout 120s)
  if [[ $PLAIN == 1 ]]; then
    drv+=(-server "http://127.0.0.1:$port")
  else
    for _ in $(seq 1 1200); do grep -qs certificate-authority-data "$dir/kubeconfig" && break; sleep 0.05; done
    grep -o 'certificate-authority-data: .*' "$dir/kubeconfig" | awk '{print $2}' | tr -d '"' | base64 -d >"$dir/ca.pem"
    [[ $side == apikit ]] || token=$(grep -o 'token: .*' "$dir/kubeconfig" | head -1 | awk '{print $2}' | tr -d '"')
    drv+=(-server "https://127.0.0.1:$port" -token "$token")
  fi
  echo "== $mode $side round $round (load $(cut -d' ' -f1 /proc/loadavg))"
  SSL_CERT_FILE=$dir/ca.pem "${drv[@]}" -workload wait || { echo "   not ready; see $log.err"; stop "$srv_pid"; [[ -z $etcd_pid ]] || stop "$etcd_pid"; return 0; }
  run() { SSL_CERT_FILE=$dir/ca.pem "${drv[@]}" -json "$@" >>"$OUT/results-$mode.jsonl" 2>>"$log.driver" || echo "   failed: $*"; }
  for w in $WORKLOADS; do
    case $w in
      create) run -workload create -ns create-c1 -n "$N" -c 1; run -workload create -ns create-c16 -n "$N" -c 16 ;;
      get) run -workload get -ns bench -objects "$N" -n "$N" -c 1; run -workload get -ns bench -objects "$N" -n "$N" -c 16 ;;
      update) run -workload update -ns bench -objects "$N" -n "$N" -c 1; run -workload update -ns bench -objects "$N" -n "$N" -c 16 ;;
      list) run -workload list -ns list3k -objects 3000 -n 10 ;;
      watch)
        # The server's write(2) calls per event delivered (/proc/PID/io's syscw).
        local w0 w1
        w0=$(awk '/^syscw/ {print $2}' "/proc/$srv_pid/io")
        run -workload watch-fanout -ns watch -objects 300 -watchers 1000 -events 300 -rate 200
        w1=$(awk '/^syscw/ {print $2}' "/proc/$srv_pid/io")
        echo "$mode $side round $round: $(( w1 - w0 )) writes for 300,000 deliveries, $(awk -v n=$(( w1 - w0 )) 'BEGIN {printf "%.3f", n / 300000}') per event" | tee -a "$OUT/watch-writes.txt" ;;
      *) echo "unknown workload $w" >&2; exit 2 ;;
    esac
  done
  stop "$srv_pid"
  [[ -z $etcd_pid ]] || stop "$etcd_pid"
  rm -rf "$dir"
}

for r in $(seq 1 "$ROUNDS"); do
  for mode in $MODES; do
    if (( r % 2 )); then one "$mode" kube-crd-server "$r"; one "$mode" apikit "$r"
    else one "$mode" apikit "$r"; one "$mode" kube-crd-server "$r"; fi
  done
done
for mode in $MODES; do
  echo
  echo "## $mode ($(cat "$OUT/header.txt"))"
  "$DRV" -report "$OUT/results-$mode.jsonl" | tee "$OUT/table-$mode.md"
done
[[ ! -s $OUT/watch-writes.txt ]] || { echo; echo "## watch: the server's write(2) calls per delivered event"; cat "$OUT/watch-writes.txt"; }
echo "results: $OUT"
