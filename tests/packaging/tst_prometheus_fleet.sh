#!/usr/bin/env bash
# Fleet mode end to end with a real Prometheus and the shipped scrape config (issue 40):
#   - three redis-servers on loopback, listed in a file_sd targets file with labels,
#   - one `lockscope-cli serve --targets FILE` for all three,
#   - Prometheus started with packaging/prometheus/prometheus-fleet.yml, only adapted (sed) to this
#     run's targets file, exporter port, rules path and a short scrape interval,
#   - Prometheus' /api/v1/targets shows the three Redis up (job lockscope-targets) and the exporter
#     itself up (job lockscope); /api/v1/query lockscope_up gives three series, value 1, with three
#     distinct `instance` labels (the Redis URLs: the relabelling works), the file's labels once
#     (no exported_* twins), and lockscope_exporter_targets says 3.
# Usage: tst_prometheus_fleet.sh [LOCKSCOPE_CLI [PORT_BASE]]
#   LOCKSCOPE_CLI (or the environment variable of that name): the lockscope-cli to test.
#   PORT_BASE (or LOCKSCOPE_PORT_BASE, default 27400): PORT_BASE..PORT_BASE+4 must be free on
#   127.0.0.1 (three Redis, the exporter, Prometheus).
# Needs redis-server, redis-cli, prometheus, curl and python3. Exit 0 on success; otherwise the
# first failure is printed as "FAIL: ..." with the logs that explain it.
set -euo pipefail
cli=${1:-${LOCKSCOPE_CLI:-}}
base=${2:-${LOCKSCOPE_PORT_BASE:-27400}}
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
shipped=$src/packaging/prometheus/prometheus-fleet.yml

fail() { echo "FAIL: $*" >&2; exit 1; }
[ -n "$cli" ] || fail "no lockscope-cli given (usage: tst_prometheus_fleet.sh LOCKSCOPE_CLI [PORT_BASE])"
[ -x "$cli" ] || fail "$cli is not an executable"
for tool in redis-server redis-cli prometheus curl python3; do
    command -v "$tool" >/dev/null || fail "$tool not found (./run.sh installs it)"
done
[ -r "$shipped" ] || fail "$shipped not found"

redis_ports=("$base" "$((base + 1))" "$((base + 2))")
exporter_port=$((base + 3))
prometheus_port=$((base + 4))
for port in "${redis_ports[@]}" $exporter_port $prometheus_port; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
        fail "port $port on 127.0.0.1 is in use: give another PORT_BASE"
    fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/lockscope-fleet.XXXXXX")
pids=()
cleanup() {
    local pid
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Prints the tail of the logs, then fails.
fail_with_logs() {
    local log
    for log in "$work"/*.log; do
        [ -s "$log" ] && { echo "--- $(basename "$log") (last lines)" >&2; tail -n 20 "$log" >&2; }
    done
    fail "$*"
}

# wait_until SECONDS COMMAND...: runs COMMAND every 0.25 s until it succeeds; 1 on timeout.
wait_until() {
    local deadline=$((SECONDS + $1))
    shift
    until "$@" >/dev/null 2>&1; do
        [ $SECONDS -lt $deadline ] || return 1
        sleep 0.25
    done
}

echo "== three redis-servers on 127.0.0.1:${redis_ports[*]}"
for port in "${redis_ports[@]}"; do
    mkdir -p "$work/redis-$port"
    redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize no \
        --dir "$work/redis-$port" >"$work/redis-$port.log" 2>&1 &
    pids+=("$!")
done
for port in "${redis_ports[@]}"; do
    wait_until 10 redis-cli -h 127.0.0.1 -p "$port" ping || fail_with_logs "redis-server on port $port did not start"
done
# A lock in each, so that every target has something to show.
for port in "${redis_ports[@]}"; do
    redis-cli -h 127.0.0.1 -p "$port" HSET "orders:$port" "$(cat /proc/sys/kernel/random/uuid):1" 1 >/dev/null
    redis-cli -h 127.0.0.1 -p "$port" PEXPIRE "orders:$port" 600000 >/dev/null
done

echo "== the targets file"
targets=$work/targets.json
cat >"$targets" <<EOF
[
  {"targets": ["redis://127.0.0.1:${redis_ports[0]}", "redis://127.0.0.1:${redis_ports[1]}"],
   "labels": {"env": "test", "team": "payments"}},
  {"targets": ["redis://127.0.0.1:${redis_ports[2]}"], "labels": {"env": "test", "team": "orders"}}
]
EOF
cat "$targets"

echo "== lockscope-cli serve --targets on 127.0.0.1:$exporter_port"
"$cli" serve --targets "$targets" --listen "127.0.0.1:$exporter_port" >"$work/exporter.log" 2>&1 &
exporter_pid=$!
pids+=("$exporter_pid")
if ! wait_until 20 curl -sf "http://127.0.0.1:$exporter_port/healthz"; then
    if kill -0 "$exporter_pid" 2>/dev/null; then
        fail_with_logs "the exporter runs but did not answer /healthz within 20 s"
    fi
    status=0
    wait "$exporter_pid" || status=$?
    fail_with_logs "the exporter ended with exit status $status"
fi

echo "== Prometheus with the shipped prometheus-fleet.yml on 127.0.0.1:$prometheus_port"
config=$work/prometheus.yml
sed -e "s#/etc/lockscope/targets.json#$targets#" \
    -e "s#127\.0\.0\.1:9464#127.0.0.1:$exporter_port#" \
    -e "s#/usr/share/lockscope/prometheus/#$src/packaging/prometheus/#" \
    -e "s#scrape_interval: 15s#scrape_interval: 1s#" \
    -e "s#evaluation_interval: 15s#evaluation_interval: 1s#" \
    -e "s#scrape_timeout: 10s#scrape_timeout: 1s#" \
    -e "s#refresh_interval: 1m#refresh_interval: 5s#" \
    "$shipped" >"$config"
# Each substitution must have happened: a shipped file changed under this test fails it here, not
# with a Prometheus that scrapes something else.
for expected in "- $targets" "replacement: 127.0.0.1:$exporter_port" "targets: ['127.0.0.1:$exporter_port']" \
                "$src/packaging/prometheus/lockscope-alerts.yml" "scrape_interval: 1s" "scrape_timeout: 1s" \
                "metrics_path: /scrape" "job_name: lockscope-targets" "job_name: lockscope"; do
    grep -qF -- "$expected" "$config" || fail "the adapted prometheus-fleet.yml lacks '$expected': has the shipped file changed?"
done
if command -v promtool >/dev/null; then
    promtool check config "$config" >"$work/promtool.log" 2>&1 || fail_with_logs "promtool check config rejects the adapted prometheus-fleet.yml"
fi
prometheus --config.file="$config" --storage.tsdb.path="$work/data" \
    --web.listen-address="127.0.0.1:$prometheus_port" --log.level=warn >"$work/prometheus.log" 2>&1 &
pids+=("$!")
api=http://127.0.0.1:$prometheus_port
wait_until 30 curl -sf "$api/-/ready" || fail_with_logs "Prometheus was not ready within 30 s"

echo "== Prometheus scrapes the three Redis through the exporter"
# Prints "JOB INSTANCE HEALTH LASTERROR" per active target.
active_targets() {
    curl -sf "$api/api/v1/targets?state=active" | python3 -c '
import json, sys
for t in json.load(sys.stdin)["data"]["activeTargets"]:
    print(t["labels"].get("job", "-"), t["labels"].get("instance", "-"), t["health"], t.get("lastError", "") or "-")'
}
all_up() {
    local list
    list=$(active_targets) || return 1
    [ "$(grep -c '^lockscope-targets .* up ' <<<"$list")" -eq 3 ] && grep -q '^lockscope .* up ' <<<"$list"
}
if ! wait_until 60 all_up; then
    echo "--- Prometheus' targets (job instance health last-error):" >&2
    active_targets >&2 || true
    fail_with_logs "Prometheus does not show the three Redis (job lockscope-targets) and the exporter (job lockscope) up within 60 s"
fi
active_targets

echo "== lockscope_up: three series, one per Redis"
query() { curl -sf --get "$api/api/v1/query" --data-urlencode "query=$1"; }
# The samples of the first scrapes become queryable a moment after the targets turn up.
three_series() { query 'count(lockscope_up) == 3' | grep -q '"value"'; }
wait_until 20 three_series || fail "lockscope_up has not three series within 20 s: $(query lockscope_up)"
query lockscope_up | python3 -c '
import json, sys
ports = sys.argv[1:]
series = json.load(sys.stdin)["data"]["result"]
errors = []
instances = sorted(s["metric"].get("instance", "") for s in series)
expected = sorted("redis://127.0.0.1:" + p for p in ports)
if instances != expected:
    errors.append(f"instance labels {instances}, expected {expected} (distinct, one per Redis)")
for s in series:
    m, value = s["metric"], s["value"][1]
    where = m.get("instance", "?")
    if value != "1":
        errors.append(f"{where}: lockscope_up {value}, expected 1")
    job = m.get("job")
    if job != "lockscope-targets":
        errors.append(f"{where}: job {job!r}, expected lockscope-targets")
    if m.get("env") != "test":
        errors.append(f"{where}: no env=\"test\" label from the targets file: {m}")
    twins = [k for k in m if k.startswith("exported_")]
    if twins:
        errors.append(f"{where}: labels {twins}: the targets file labels are doubled (honor_labels)")
    print(f"{where}: lockscope_up {value} {dict(sorted(m.items()))}")
for e in errors:
    print("FAIL: " + e, file=sys.stderr)
sys.exit(1 if errors else 0)
' "${redis_ports[@]}" || fail "lockscope_up as Prometheus stored it is not one series per Redis (above)"

echo "== the exporter's own metrics (job lockscope)"
query 'lockscope_exporter_targets{job="lockscope"}' | python3 -c '
import json, sys
result = json.load(sys.stdin)["data"]["result"]
values = [r["value"][1] for r in result]
print("lockscope_exporter_targets:", values)
sys.exit(0 if values == ["3"] else 1)
' || fail "lockscope_exporter_targets{job=\"lockscope\"} is not 3"

echo "PASS"
