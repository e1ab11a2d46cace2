#!/usr/bin/env bash
# Installs what is missing, builds, and runs the demo: two local shard nodes, a shard map in an
# SQLite store, documents of twenty tenants written through the router, searches and live
# figures — then leaves the fleet running for you to explore with shardmapctl (Ctrl-C stops it).
# With a display, the Qt console opens on the fleet; quitting it ends the demo.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target shardmap-node shardmapctl shardmap

demo="${SHARDMAP_DEMO_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/shardmap-demo}"
mkdir -p "$demo"
bin=build/release/app
export SHARDMAP_STORE="sqlite:$demo/map.db"
ctl() { "$bin/ctl/shardmapctl" --actor demo "$@"; }

pids=()
cleanup() { for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM

start_node() { # id port
    "$bin/node/shardmap-node" --listen "127.0.0.1:$2" --data-dir "$demo/$1" --node-id "$1" --exit-with-parent \
        > "$demo/$1.out" 2> "$demo/$1.log" &
    pids+=($!)
    for _ in $(seq 1 100); do
        grep -q "listening on" "$demo/$1.out" 2>/dev/null && return 0
        kill -0 "${pids[-1]}" 2>/dev/null || { cat "$demo/$1.log"; exit 1; }
        sleep 0.1
    done
    echo "demo: node $1 did not start" >&2; exit 1
}
start_node node-1 7401
start_node node-2 7402
echo "demo: nodes on 127.0.0.1:7401 and 127.0.0.1:7402, data and logs in $demo"

ctl init
# Registering twice (a second demo run) is refused with "already exists"; that is fine here.
ctl node add node-1 127.0.0.1:7401 --label zone=a 2>/dev/null || true
ctl node add node-2 127.0.0.1:7402 --label zone=b 2>/dev/null || true
ctl shard create shard-1 --node node-1 2>/dev/null || true
ctl shard create shard-2 --node node-2 2>/dev/null || true

# Twenty tenants of Zipf-like sizes (tenant-01 largest), documents from a small vocabulary.
words=(quarterly report revenue north south update upgrade release notes meeting plan budget
       invoice contract design review search index shard tenant migration backup restore)
docs="$demo/docs.jsonl"
: > "$docs"
for t in $(seq 1 20); do
    count=$(( 600 / t ))
    for i in $(seq 1 "$count"); do
        w1=${words[$(( (t * 7 + i) % ${#words[@]} ))]}; w2=${words[$(( (i * 13) % ${#words[@]} ))]}
        w3=${words[$(( (t + i * 3) % ${#words[@]} ))]}
        printf '{"space":"tenant-%02d","id":"doc-%04d","fields":{"title":"%s %s","body":"the %s %s of tenant %02d, item %d"}}\n' \
            "$t" "$i" "$w1" "$w2" "$w3" "$w1" "$t" "$i" >> "$docs"
    done
done
echo "demo: writing $(wc -l < "$docs") documents through the router"
ctl write --file "$docs" | tail -1

echo; ctl shard list
echo; ctl space list | head -8
echo; echo '$ shardmapctl search --space tenant-01 "quarterly report"'
ctl search --space tenant-01 --limit 5 '"quarterly report"'
echo; echo '$ shardmapctl search --space tenant-02 --space tenant-03 "upd*"'
ctl search --space tenant-02 --space tenant-03 --limit 5 'upd*'
sleep 1
echo; ctl stats

cat <<HELP

The fleet keeps running (Ctrl-C stops it). Try, with SHARDMAP_STORE=$SHARDMAP_STORE:
  $bin/ctl/shardmapctl space where tenant-01
  $bin/ctl/shardmapctl search --space tenant-05 'budget NOT invoice'
  $bin/ctl/shardmapctl write --space tenant-99 --id hello --field title=Hello --field body=world
  $bin/ctl/shardmapctl map history
  $bin/ctl/shardmapctl --json stats --spaces
  $bin/console/shardmap --store $SHARDMAP_STORE      (the console)
HELP
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    echo "demo: opening the console; quitting it stops the fleet"
    "$bin/console/shardmap" --store "$SHARDMAP_STORE"
    exit 0
fi
wait
