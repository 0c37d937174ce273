#!/usr/bin/env bash
# Starts a real cloud (`todo server`) in a scratch directory, over TLS with a throwaway certificate or plain HTTP on
# loopback, and fuzzes it with cloud-fuzz.py; the cloud's exit status follows the figures.
# Usage: Tests/Fuzz/run-cloud-fuzz.sh TODO_BINARY http|tls COUNT SEED
set -euo pipefail
binary=$1 mode=$2 count=$3 seed=$4
here=$(cd "$(dirname "$0")" && pwd)
scratch=$(mktemp -d /tmp/cloudtodo-fuzz.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
tls=()
scheme=http
if [ "$mode" = tls ]; then
    openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=localhost -days 1 \
        -keyout "$scratch/key.pem" -out "$scratch/cert.pem" >/dev/null 2>&1
    tls=(--tls-cert "$scratch/cert.pem" --tls-key "$scratch/key.pem")
    scheme=https
fi
"$binary" server --port "$port" --data-dir "$scratch/cloud" --open-registration --idle-timeout 5 --log-level error ${FUZZ_SERVER_OPTIONS:-} \
    "${tls[@]}" >"$scratch/cloud.log" 2>&1 &
pid=$!
for _ in $(seq 1 300); do
    curl -ksf "$scheme://127.0.0.1:$port/health" >/dev/null 2>&1 && break
    sleep 0.05
done
python3 "$here/cloud-fuzz.py" 127.0.0.1 "$port" "$pid" "$count" "$mode" "$seed"
kill "$pid"
wait "$pid" && echo "cloud exit status 0" || echo "cloud exit status $?"
