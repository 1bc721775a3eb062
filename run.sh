#!/usr/bin/env bash
# LockScope's one entry point: installs what is missing (Debian 12), builds, then runs.
#   ./run.sh demo    start the dashboard on the embedded demo (headless: PNG + CLI live view)
#   ./run.sh test    build and run the test suite (ctest)
#   ./run.sh build   build only (build/bin/lockscope, build/bin/lockscope-cli)
#   ./run.sh format  apply .clang-format to every C++ file in git; ./run.sh check-format: fail if one would change
#   ./run.sh bench   build and run the benchmark (tests/bench): one markdown table on stdout, headless;
#                    options: --quick, --long, --locks N --other-keys N (see lockscope-bench --help)
set -euo pipefail
cd "$(dirname "$0")"

PACKAGES=(build-essential cmake ninja-build pkg-config qt6-base-dev qt6-qpa-plugins libqcustomplot-dev libhiredis-dev libyaml-cpp-dev
          redis-server redis-tools python3-redis xvfb xauth fonts-dejavu-core qtkeychain-qt6-dev openssl
          lintian appstream desktop-file-utils man-db file zsh fish
          qt6-httpserver-dev qt6-websockets-dev prometheus clang-format iproute2)
BUILD_DIR=${LOCKSCOPE_BUILD_DIR:-build}

log() { printf '[run.sh] %s\n' "$*" >&2; }

ensure_packages() {
    local missing=()
    for p in "${PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if ! command -v apt-get >/dev/null; then
        log "missing packages (${missing[*]}) and no apt-get: install them by hand"
        exit 1
    fi
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || { log "need root or sudo to install: ${missing[*]}"; exit 1; }
        sudo=(sudo)
    fi
    log "installing: ${missing[*]}"
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
    # The redis-server package may start a system Redis on 6379; LockScope never uses it.
}

# node-redisson (npm) is the independent Redisson-compatible client of the interop test.
ensure_node_client() {
    local dir=tests/integration/node-redisson
    [ -f "$dir/node_modules/node-redisson/package.json" ] && return 0
    if ! command -v npm >/dev/null; then
        log "npm not found: tst_noderedisson (interop with node-redisson) will be skipped"
        return 0
    fi
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) \
        || log "npm ci failed: tst_noderedisson (interop with node-redisson) will be skipped"
}

build() {
    ensure_packages
    if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
        cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
    fi
    cmake --build "$BUILD_DIR" -j "$(nproc)"
}

cmd=${1:-}
case "$cmd" in
    build)
        build
        ;;
    test)
        build
        ensure_node_client
        # The suites share nothing (own redis-servers, temp and XDG dirs): one at a time per core;
        # the ASan build and the benchmark take every core and run alone (their PROCESSORS).
        ctest --test-dir "$BUILD_DIR" --output-on-failure --timeout 300 -j "$(nproc)"
        ;;
    format|check-format)
        ensure_packages
        mapfile -t sources < <(git ls-files '*.cpp' '*.h')
        if [ "$cmd" = format ]; then
            clang-format -i "${sources[@]}"
        elif ! clang-format --dry-run --Werror "${sources[@]}" 2>/dev/null; then
            { clang-format --dry-run "${sources[@]}" 2>&1 | grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error):' \
                | cut -d: -f1,2 | sort -u | head -20 >&2; } || true
            log "these files do not follow .clang-format (first lines shown): run ./run.sh format"
            exit 1
        fi
        ;;
    bench)
        build
        ensure_node_client # the peer column (node-redisson); skipped with a note when npm is missing
        "$BUILD_DIR/bin/lockscope-bench" "${@:2}"
        ;;
    demo)
        build
        if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
            exec "$BUILD_DIR/bin/lockscope" --demo "${@:2}"
        fi
        shot="$PWD/$BUILD_DIR/demo-screenshot.png"
        log "no display (DISPLAY and WAYLAND_DISPLAY are unset): rendering the dashboard offscreen instead"
        QT_QPA_PLATFORM=offscreen "$BUILD_DIR/bin/lockscope" --demo --screenshot "$shot" --screenshot-delay-ms 12000
        log "dashboard screenshot: $shot"
        log "the CLI's live view of the demo for 10 s (lockscope-cli --demo watch):"
        "$BUILD_DIR/bin/lockscope-cli" --demo watch --duration-ms 10000
        "$BUILD_DIR/bin/lockscope-cli" --demo list
        ;;
    *)
        echo "usage: ./run.sh demo | test | build | bench" >&2
        exit 1
        ;;
esac
