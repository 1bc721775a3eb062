#!/usr/bin/env bash
# ctest `package_deb`: builds the Debian package from this build tree (CPack), unpacks it into a
# scratch root and checks it as a user and as Debian would:
#   - the installed lockscope-cli and lockscope answer --version (lockscope without a display),
#   - both man pages render with `man -l` without groff warnings, and name every option that
#     `--help` lists,
#   - lintian reports no error (warnings are printed; accepted ones are listed in CONTRIBUTING.md),
#   - appstreamcli and desktop-file-validate accept the metainfo and the desktop entry,
#   - the bash, zsh and fish completions parse,
#   - the documentation and screenshots are installed and their relative links resolve there,
#   - the exporter's units, one Redis and fleet (systemd-analyze verify, hardening), alert rules and the
#     fleet scrape config (promtool), the examples and the dashboard are in,
#   - apt would install it (dependencies resolvable: apt-get --simulate).
# Usage: tst_package.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
need() { command -v "$1" >/dev/null || fail "$1 not found (./run.sh installs it)"; }
for tool in cpack dpkg-deb lintian appstreamcli desktop-file-validate man zsh fish; do need "$tool"; done

echo "== cpack -G DEB"
(cd "$build" && cpack -G DEB -B "$work/out" >"$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; fail "cpack"; }
deb=$(ls "$work"/out/lockscope_*.deb)
echo "$deb"
dpkg-deb -f "$deb" Package Version Depends Recommends Suggests Maintainer Homepage Section

echo "== unpack into a scratch root"
root=$work/root
dpkg-deb -x "$deb" "$root"
for f in usr/bin/lockscope-cli usr/share/man/man1/lockscope-cli.1.gz usr/share/doc/lockscope/copyright \
         usr/share/doc/lockscope/changelog.gz usr/share/bash-completion/completions/lockscope-cli \
         usr/share/zsh/vendor-completions/_lockscope-cli usr/share/fish/vendor_completions.d/lockscope-cli.fish; do
    [ -e "$root/$f" ] || fail "$f is not in the package"
done
gui=0
if [ -e "$root/usr/bin/lockscope" ]; then
    gui=1
    for f in usr/share/man/man1/lockscope.1.gz usr/share/applications/io.github.lockscope.LockScope.desktop \
             usr/share/metainfo/io.github.lockscope.LockScope.metainfo.xml \
             usr/share/icons/hicolor/scalable/apps/io.github.lockscope.LockScope.svg \
             usr/share/icons/hicolor/48x48/apps/io.github.lockscope.LockScope.png; do
        [ -e "$root/$f" ] || fail "$f is not in the package"
    done
fi

echo "== installed binaries"
version=$("$root/usr/bin/lockscope-cli" --version) || fail "lockscope-cli --version"
echo "$version"
[[ $version == *"$(dpkg-deb -f "$deb" Version)"* ]] || fail "lockscope-cli --version does not say the package version"
if [ $gui = 1 ]; then
    # No display: --version must not need one (env -u: neither X nor Wayland nor offscreen).
    env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM "$root/usr/bin/lockscope" --version || fail "lockscope --version without a display"
fi

echo "== man pages"
pages=(lockscope-cli)
[ $gui = 1 ] && pages+=(lockscope)
for page in "${pages[@]}"; do
    file=$root/usr/share/man/man1/$page.1.gz
    warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$file" 2>&1 >"$work/$page.txt") || fail "man -l $page"
    [ -z "$warnings" ] || fail "groff warnings in $page.1: $warnings"
    [ -s "$work/$page.txt" ] || fail "man -l $page rendered nothing"
    echo "$page(1): $(wc -l <"$work/$page.txt") lines"
    # Every long option of --help is in the page (help without a display: offscreen for old builds).
    help=$(QT_QPA_PLATFORM=offscreen "$root/usr/bin/$page" --help 2>/dev/null)
    missing=()
    for option in $(grep -o -- '--[a-z][a-z-]*' <<<"$help" | sort -u); do
        case $option in --help-all) continue ;; esac
        zcat "$file" | grep -q -- "$(sed 's/-/\\\\-/g' <<<"$option")" || missing+=("$option")
    done
    [ ${#missing[@]} -eq 0 ] || fail "$page.1 does not describe: ${missing[*]}"
done

echo "== lintian"
lintian --fail-on error --display-level '>=warning' "$deb" 2>&1 | grep -v 'running with root privileges' || true
lintian --fail-on error "$deb" >/dev/null 2>&1 || fail "lintian reports errors"

if [ $gui = 1 ]; then
    echo "== appstreamcli, desktop-file-validate"
    appstreamcli validate --no-net "$root/usr/share/metainfo/io.github.lockscope.LockScope.metainfo.xml"
    out=$(desktop-file-validate "$root/usr/share/applications/io.github.lockscope.LockScope.desktop" 2>&1) || fail "desktop-file-validate: $out"
    [ -z "$out" ] || fail "desktop-file-validate has hints: $out"
fi

echo "== documentation (README, guides, references, screenshots; relative links work there)"
doc=$root/usr/share/doc/lockscope
for f in README.md CONTRIBUTING.md docs/operator-runbook.md docs/exporter.md docs/teaching.md \
         docs/reference/cli.md docs/reference/findings.md resources/screenshots/dashboard.png; do
    [ -e "$doc/$f" ] || fail "usr/share/doc/lockscope/$f is not in the package"
done
# Every relative link and image of the installed pages resolves in the installed tree.
broken=$(cd "$doc" && find . -name '*.md' | while read -r page; do
    grep -oE '\]\([^)#[:space:]]+' "$page" | sed 's/^](//' | grep -vE '^[a-z]+:' | while read -r target; do
        [ -e "$(dirname "$page")/$target" ] || echo "$page -> $target"
    done
done)
[ -z "$broken" ] || fail "broken links in the installed documentation: $broken"
echo "$(find "$doc" -name '*.md' | wc -l) pages, $(find "$doc" -name '*.png' | wc -l) images"

echo "== exporter files (lockscope-cli serve)"
prom=usr/share/lockscope/prometheus examples=usr/share/doc/lockscope/examples
unit=lib/systemd/system/lockscope-exporter.service fleet=lib/systemd/system/lockscope-exporter-fleet.service
for f in $unit $fleet $prom/lockscope-alerts.yml $prom/lockscope-alerts.test.yml $prom/prometheus-fleet.yml \
         usr/share/lockscope/grafana/lockscope-dashboard.json $examples/lockscope-exporter.env \
         $examples/lockscope-targets.example.json $examples/lockscope-passwords.example.json; do
    [ -e "$root/$f" ] || fail "$f is not in the package"
done
if command -v promtool >/dev/null; then
    promtool check rules "$root/$prom/lockscope-alerts.yml" || fail "promtool check rules"
    promtool test rules "$root/$prom/lockscope-alerts.test.yml" || fail "promtool test rules"
    # The fleet config as installed, with its targets file replaced by the installed example (promtool
    # also parses file_sd files): the rules path it names is the installed one.
    sed "s#/etc/lockscope/targets.json#$root/$examples/lockscope-targets.example.json#; s#/usr/share/lockscope/prometheus/#$root/$prom/#" \
        "$root/$prom/prometheus-fleet.yml" >"$work/prometheus-fleet.yml"
    promtool check config "$work/prometheus-fleet.yml" || fail "promtool check config prometheus-fleet.yml"
fi
for f in usr/share/lockscope/grafana/lockscope-dashboard.json $examples/lockscope-targets.example.json \
         $examples/lockscope-passwords.example.json; do
    python3 -m json.tool "$root/$f" >/dev/null || fail "$f is not valid JSON"
done
# Every panel follows the $instance selection (one Redis of a fleet, or several) and names no job
# (the fleet job is lockscope-targets, a single exporter's is whatever the user called it).
python3 - "$root/usr/share/lockscope/grafana/lockscope-dashboard.json" <<'PY' || fail "dashboard queries"
import json, sys
d = json.load(open(sys.argv[1]))
bad = [f"panel {p.get('id')} ({p.get('title')}): {t.get('expr')}" for p in d["panels"] for t in p.get("targets", [])
       if 'instance=~"$instance"' not in t.get("expr", "") or "job=" in t.get("expr", "")]
var = {v["name"]: v for v in d["templating"]["list"]}.get("instance", {})
if not (var.get("multi") and var.get("includeAll")):
    bad.append("the instance variable is not multi-select with All")
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
for u in $unit $fleet; do
    if command -v systemd-analyze >/dev/null; then
        # Only complaints about the unit itself count (the binary is not installed on this host).
        out=$(systemd-analyze verify "$root/$u" 2>&1 | grep -v -e 'is not executable' -e "Command 'man " || true)
        [ -z "$out" ] || fail "systemd-analyze verify $u: $out"
    fi
    grep -q '^DynamicUser=yes' "$root/$u" || fail "$u without DynamicUser"
    grep -q '^ProtectSystem=strict' "$root/$u" || fail "$u without ProtectSystem=strict"
    if grep -E '^ExecStart=.*(--url|redis://|PASSWORD|--password )' "$root/$u"; then
        fail "$u: the command line carries connection details (they belong in the EnvironmentFile or a credential)"
    fi
done
# The fleet unit is hardened exactly as the single one, and reads the passwords as a credential
# (a DynamicUser cannot read a root 0600 file).
diff <(sed -n '/^# Hardening/,$p' "$root/$unit") <(sed -n '/^# Hardening/,$p' "$root/$fleet") \
    || fail "$fleet is not hardened as $unit"
grep -q '^LoadCredential=passwords.json:/etc/lockscope/passwords.json' "$root/$fleet" || fail "$fleet without LoadCredential"
grep -q -- '--password-file ${CREDENTIALS_DIRECTORY}/passwords.json' "$root/$fleet" || fail "$fleet does not read the credential"

echo "== completions parse"
bash -n "$root/usr/share/bash-completion/completions/lockscope-cli"
zsh -n "$root/usr/share/zsh/vendor-completions/_lockscope-cli"
fish -n "$root/usr/share/fish/vendor_completions.d/lockscope-cli.fish"

echo "== apt would install it"
if command -v apt-get >/dev/null; then
    apt-get install --simulate -qq "$deb" >"$work/apt.log" 2>&1 || { cat "$work/apt.log"; fail "apt-get --simulate install"; }
    grep -E '^Inst lockscope' "$work/apt.log" || fail "apt-get --simulate did not plan to install lockscope"
fi
echo "PASS"
