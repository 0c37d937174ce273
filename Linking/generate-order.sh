#!/usr/bin/env bash
# Writes Linking/todo.order: the functions the release `todo` runs in its everyday commands and in the terminal app,
# which the linker places side by side at the front of the executable's code (Package.swift, docs/BENCHMARKS.md).
#
# Why: the kernel maps a program's code 64 KB at a time around each page it touches. Left in the linker's own order,
# the 1 MB a `todo list` runs lies spread over 15 MB of a 27 MB `.text`, and all 15 MB count in the command's memory.
#
# How: each workload below runs under valgrind's callgrind, which names every function executed. The reads from the
# cache come first, ordered by how many of them run each function (those all run at the front); then, in layers of
# the functions not already placed, starting and printing help, the commands that reach the cloud, the terminal app.
# Within a layer, functions keep their present order. Names the binary holds more than once are left out (below).
# A function missing from the file (new code) is only placed further back: regenerate after larger changes.
#
# Needs: valgrind, tmux, objcopy (binutils), python3, and a free loopback port (TODO_ORDER_PORT, default 28190).
# Usage: Linking/generate-order.sh   (from anywhere; builds release first)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
port=${TODO_ORDER_PORT:-28190}
for tool in valgrind tmux objcopy python3 nm; do
    command -v "$tool" >/dev/null || { echo "generate-order: $tool is needed (apt-get install valgrind tmux binutils python3)"; exit 1; }
done

swift build -c release --disable-default-traits
bin=$(swift build -c release --disable-default-traits --show-bin-path)
work=$(mktemp -d /tmp/todo-order.XXXXXX)
server_pid=""
cleanup() {
    tmux kill-session -t todo-order 2>/dev/null || true
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# valgrind cannot read this size of DWARF: profile a copy without it (same symbols, same code).
objcopy --strip-debug "$bin/todo" "$work/todo"

"$bin/todo-server" --port "$port" --data-dir "$work/cloud" --open-registration >"$work/cloud.log" 2>&1 &
server_pid=$!
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.1; done

device=(--data-dir "$work/device" --account order)
TODO_PASSWORD=order-password-1 "$bin/todo" signup "http://127.0.0.1:$port" --account order --device main --data-dir "$work/device" >/dev/null
python3 - "$work/todos.json" <<'PY'
import json, sys
tags = ["home", "work", "errand", "call", "garden"]
todos = [{"title": f"Todo number {i} about something", "tags": [tags[i % 5]], "priority": i % 4, "done": i % 7 == 0,
          **({"due": f"2026-11-{1 + i % 28:02d}"} if i % 3 else {}),
          **({"notes": "Remember to check the details."} if i % 4 == 0 else {})} for i in range(1000)]
json.dump(todos, open(sys.argv[1], "w"))
PY
"$bin/todo" import "$work/todos.json" --no-send "${device[@]}" >/dev/null

# profile NAME ARGS...: the functions one run of `todo ARGS` executes, into $work/NAME.functions
profile() {
    local name=$1; shift
    valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/$name.callgrind" "$work/todo" "$@" \
        >/dev/null 2>"$work/$name.valgrind" || { echo "generate-order: todo $* failed: $(tail -3 "$work/$name.valgrind")"; exit 1; }
    functions "$name"
}
functions() {
    sed -nE 's/^c?fn=\([0-9]+\) (.*)$/\1/p' "$work/$1.callgrind" | sort -u >"$work/$1.functions"
}

profile version --version
profile help --help
profile list-home list +home --offline "${device[@]}"
profile list-due list due.before:eow --offline "${device[@]}"
profile next next --offline "${device[@]}"
profile export export --format taskwarrior --offline "${device[@]}"
profile list-all list --offline "${device[@]}"
profile summary summary --offline "${device[@]}"
profile sync sync "${device[@]}"
profile list-online list +work "${device[@]}"
profile add add "Buy milk +home due:tomorrow" "${device[@]}"
profile import import "$work/todos.json" "${device[@]}"

# The terminal app: load, move, filter, add a todo, complete one, quit.
tmux new-session -d -s todo-order -x 120 -y 40 \
    "valgrind --tool=callgrind --demangle=no --callgrind-out-file=$work/app.callgrind $work/todo ${device[*]} 2>$work/app.valgrind"
keys() { for key in "$@"; do tmux send-keys -t todo-order "$key"; sleep 0.5; done; }
sleep 20
keys j j j k G g Tab Tab Tab T / home Enter
sleep 2
keys Escape a "Profiled todo +home" C-s
sleep 3
keys Escape " " "?" Escape q
for _ in $(seq 60); do tmux has-session -t todo-order 2>/dev/null || break; sleep 0.5; done
functions app

nm --defined-only "$bin/todo" | awk '$2 ~ /^[tTwW]$/ { print $1, $3 }' >"$work/symbols"
python3 - "$work" "$root/Linking/todo.order" <<'PY'
import collections, sys
work, out = sys.argv[1], sys.argv[2]
address, copies = {}, collections.Counter()
for line in open(f"{work}/symbols"):
    at, name = line.split(" ", 1)
    address.setdefault(name.strip(), int(at, 16))
    copies[name.strip()] += 1
# A name the binary holds more than once is a file's local helper (`objectdestroyTm`, outlined copies): the linker
# places every copy where the file names it, and a copy inside a dependency's unsplit `.text` pulls all of that
# file's code forward with it. Such names are left out; their copies stay where the linker puts them.
def functions(workload):
    return {line.strip() for line in open(f"{work}/{workload}.functions")} & address.keys()
def unique(names):
    return {name for name in names if copies[name] == 1}
# The reads first, the functions most of them run at the very front, so that each read's code lies together;
# then starting and help, the commands that reach the cloud, and the app, each layer after the ones before.
reads = ["list-home", "list-due", "next", "export", "list-all", "summary"]
runs = collections.Counter()
for workload in reads:
    for name in unique(functions(workload)):
        runs[name] += 1
order = sorted(runs, key=lambda name: (-runs[name], address[name], name))
placed = set(order)
layers = [["version", "help"], ["sync", "list-online", "add", "import"], ["app"]]
for layer in layers:
    names = set()
    for workload in layer:
        names |= unique(functions(workload))
    names -= placed
    order += sorted(names, key=lambda name: (address[name], name))
    placed |= names
open(out, "w").write("\n".join(order) + "\n")
print(f"generate-order: {len(order)} functions in {out}")
PY

# SwiftPM does not know that the link reads the order file: link `todo` again so the new order is in it.
rm -f "$bin/todo"
swift build -c release --disable-default-traits --product todo
