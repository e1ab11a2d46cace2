#!/usr/bin/env bash
# Installs what is missing, builds, starts a local shard node and puts some load on it.
# Until the console exists (a later issue) this is the demo: one real shardmap-node on
# 127.0.0.1:7400, a shard of Zipf-sized spaces, searches and metrics, left running.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target shardmap-node node_e2e_bench

listen="${SHARDMAP_DEMO_LISTEN:-127.0.0.1:7400}"
data="${SHARDMAP_DEMO_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/shardmap-demo}/node-1"
mkdir -p "$data"
node=build/release/app/node/shardmap-node

"$node" --listen "$listen" --data-dir "$data" --node-id demo-node-1 > "$data.out" 2> "$data.log" &
node_pid=$!
trap 'kill -TERM $node_pid 2>/dev/null; wait $node_pid 2>/dev/null' EXIT INT TERM
for _ in $(seq 1 100); do
    grep -q "listening on" "$data.out" 2>/dev/null && break
    kill -0 $node_pid 2>/dev/null || { cat "$data.log"; exit 1; }
    sleep 0.1
done
echo "demo: $(cat "$data.out") (data in $data, log in $data.log)"

# Loads the node through its gRPC API: creates shard 'demo', writes ~700-byte documents into
# Zipf-sized spaces with BulkWrite, then measures searches (term, prefix, phrase) and a scan.
build/release/bench/node_e2e_bench --target "$listen" --shard demo --docs "${SHARDMAP_DEMO_DOCS:-20000}" \
    --spaces 20 --queries 100 --skip-direct

cat <<HELP

The node keeps running on $listen (Ctrl-C stops it cleanly). It speaks gRPC
(proto/shardmap/v1/node.proto, service shardmap.v1.Node) with server reflection and the
standard health service, so any gRPC client can talk to it, for example:
  grpcurl -plaintext $listen list
  grpcurl -plaintext -d '{"include_spaces": true}' $listen shardmap.v1.Node/GetMetrics
  grpcurl -plaintext -d '{"shard_id":"demo","spaces":["bench-000"],"query":"a*","limit":5}' \\
      $listen shardmap.v1.Node/Search
Load it again with: build/release/bench/node_e2e_bench --target $listen --shard demo --skip-direct
HELP
wait $node_pid
