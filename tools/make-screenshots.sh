#!/usr/bin/env bash
# Remakes the screenshots of the docs that the programs can make by themselves, offscreen:
# the demo's views (lockscope --demo --screenshot) and the workshop (lockscope --workshop
# --workshop-steps N --screenshot). Look at each one before committing it.
# Usage: tools/make-screenshots.sh [BIN_DIR (default build/bin)] [OUT_DIR (default resources/screenshots)]
# Not made here (they need a staged incident, several servers or a browser): clients.png,
# force-unlock-gone.png, lease-lost.png (tests/ui's tst_mainwindow with LOCKSCOPE_LEASE_SHOT),
# reads-refused.png, cluster*.png, redlock.png, server-tabs.png, replay.png, prometheus-graph.png,
# ttl-missed-renewal.png, the projector-at-launch pair (tst_workshopwindow's projectorAtLaunch).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/bin}
out=${2:-resources/screenshots}
mkdir -p "$out"
# Offscreen, on one 1440x900 screen at 96 dpi (the windows fit the screen they open on: a
# laptop's, so the shots are readable in the docs at their size).
screens=$(mktemp --suffix=.json)
trap 'rm -f "$screens"' EXIT
cat >"$screens" <<'JSON'
{"synchronousWindowSystemEvents": false, "windowFrameMargins": false, "screens": [
 {"name": "docs", "x": 0, "y": 0, "width": 1440, "height": 900, "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}
JSON
export QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen:configfile=$screens}
shot() { # shot FILE DELAY_MS ARGS...: one PNG, said when made
    local file=$1 delay=$2; shift 2
    "$bin/lockscope" "$@" --screenshot "$out/$file" --screenshot-delay-ms "$delay" >/dev/null 2>&1 \
        || { echo "FAILED: $file (lockscope $*)" >&2; return 1; }
    echo "$out/$file"
}
shot dashboard.png 12000 --demo --select orders:42
shot fair-queue.png 12000 --demo --select jobs:nightly
shot ttl-chart.png 35000 --demo --select orders:42 --tab ttl
shot timeline.png 35000 --demo --tab timeline
shot contention.png 35000 --demo --tab contention
shot dark-table-ttl.png 35000 --demo --select orders:42 --tab ttl --theme dark
shot dark-timeline.png 35000 --demo --tab timeline --theme dark
shot workshop-fair-handoff.png 1000 --workshop fair-handoff --workshop-steps 4
shot workshop-gc-pause.png 1000 --workshop gc-pause-fencing --workshop-steps 6
shot workshop-projector.png 1000 --workshop fair-handoff --workshop-steps 3 --projector
shot workshop-projector-handoff.png 1000 --workshop fair-handoff --workshop-steps 4 --projector
