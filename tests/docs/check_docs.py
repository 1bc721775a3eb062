#!/usr/bin/env python3
"""ctest `docs_check`: the documentation says what the programs do.

Usage: check_docs.py SOURCE_DIR LOCKSCOPE_CLI

Checks, each failure printed as FILE:LINE: what is wrong:
  1. every relative link and image in README.md, CONTRIBUTING.md and docs/**/*.md resolves
     (anchors included: #section must be a heading of the target page), and stays inside the
     documentation the package installs (README.md, CONTRIBUTING.md, docs/, resources/screenshots/),
     so the links also work in /usr/share/doc/lockscope;
  2. every `lockscope-cli ...` command line in a shell code block (sh, bash, shell, console) names
     a command that exists and only options that command's --help lists (or the global options);
  3. every option printed by `lockscope-cli --help` and by each command's --help appears in
     docs/reference/cli.md;
  4. every doctor finding code (`f.code = QStringLiteral("...")` in core/) appears in
     docs/reference/findings.md, and every event type made in core/ in docs/reference/events.md.
"""
import os
import re
import shlex
import subprocess
import sys

if len(sys.argv) != 3:
    sys.exit(__doc__)
SRC = os.path.abspath(sys.argv[1])
CLI = sys.argv[2]
errors = []


def fail(where, what):
    errors.append(f"{where}: {what}")


def rel(path):
    return os.path.relpath(path, SRC)


# ---------------------------------------------------------------- the documents
docs = [os.path.join(SRC, "README.md"), os.path.join(SRC, "CONTRIBUTING.md")]
for root, _, files in os.walk(os.path.join(SRC, "docs")):
    docs += [os.path.join(root, f) for f in sorted(files) if f.endswith(".md")]
docs = [d for d in docs if os.path.exists(d)]
INSTALLED = ("README.md", "CONTRIBUTING.md", "docs" + os.sep, os.path.join("resources", "screenshots") + os.sep)


def slug(heading):
    """GitHub's anchor for a heading."""
    h = re.sub(r"[`*_]|<[^>]+>", "", heading.strip().lower())
    h = re.sub(r"[^\w\- ]", "", h)
    return h.replace(" ", "-")


anchors_cache = {}


def anchors(path):
    if path not in anchors_cache:
        found, in_code = set(), False
        for line in open(path, encoding="utf-8"):
            if line.startswith("```"):
                in_code = not in_code
            elif not in_code and line.startswith("#"):
                found.add(slug(line.lstrip("#")))
        anchors_cache[path] = found
    return anchors_cache[path]


LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
for doc in docs:
    in_code = False
    for n, line in enumerate(open(doc, encoding="utf-8"), 1):
        if line.startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
            if re.match(r"^[a-z]+:", target):  # http:, https:, mailto:
                continue
            path, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(doc), path)) if path else doc
            where = f"{rel(doc)}:{n}"
            if not os.path.exists(dest):
                fail(where, f"link to '{target}': {rel(dest)} does not exist")
                continue
            if not rel(dest).startswith(INSTALLED) and rel(dest) not in INSTALLED:
                fail(where, f"link to '{target}' leaves the installed documentation (README.md, CONTRIBUTING.md, "
                            f"docs/, resources/screenshots/): it breaks in /usr/share/doc/lockscope; "
                            f"write the path as `code` instead")
            if anchor and dest.endswith(".md") and anchor not in anchors(dest):
                fail(where, f"link to '{target}': no heading '#{anchor}' in {rel(dest)}")


# ---------------------------------------------------------------- the CLI's help
def run_help(args):
    r = subprocess.run([CLI] + args + ["--help"], capture_output=True, text=True, timeout=30,
                       env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
    if r.returncode != 0:
        fail("lockscope-cli " + " ".join(args + ["--help"]), f"exit {r.returncode}: {r.stderr.strip()}")
    return r.stdout


def help_options(text):
    section = text.split("Options:", 1)[-1].split("\nArguments:", 1)[0]
    return set(re.findall(r"^\s+(?:-\w, )?(--[a-z][a-z-]*)", section, re.M)) - {"--help", "--help-all"}


main_help = run_help([])
global_options = help_options(main_help)
commands = sorted(set(re.findall(r"^  ([a-z][a-z-]+)\b", main_help.split("Commands:", 1)[1].split("\n\n")[0], re.M)))
SUBCOMMANDS = {"redlock": ["show", "acquire"], "workshop": ["list", "run"]}
command_options = {}
for c in commands:
    for sub in SUBCOMMANDS.get(c, [None]):
        args = [c] + ([sub] if sub else [])
        command_options[tuple(args)] = help_options(run_help(args))
# Options every command takes: the connection options and the ones the per-command help names.
common = set()
for line in re.findall(r"^Connection options.*$", run_help(["list"]), re.M):
    common |= set(re.findall(r"--[a-z][a-z-]*", line))
common |= {o for o in global_options if o.startswith("--tls-")} | {"--version"}

cli_md = os.path.join(SRC, "docs", "reference", "cli.md")
cli_text = open(cli_md, encoding="utf-8").read() if os.path.exists(cli_md) else ""
if not cli_text:
    fail("docs/reference/cli.md", "missing")
all_options = set(global_options)
for opts in command_options.values():
    all_options |= opts
for o in sorted(all_options):
    if not re.search(re.escape(o) + r"(?![a-z-])", cli_text):
        fail("docs/reference/cli.md", f"option {o} (printed by lockscope-cli --help) is not described")
for args in command_options:
    if not re.search(r"`" + re.escape(" ".join(args)), cli_text) and f"### `{args[0]}" not in cli_text:
        fail("docs/reference/cli.md", f"command '{' '.join(args)}' has no section")


# ---------------------------------------------------------------- command lines in shell blocks
def shell_lines(doc):
    in_sh, buf, start = False, "", 0
    for n, line in enumerate(open(doc, encoding="utf-8"), 1):
        if line.startswith("```"):
            in_sh = not in_sh and line.strip()[3:] in ("sh", "bash", "shell", "console")
            continue
        if not in_sh:
            continue
        text = line.rstrip("\n")
        if text.startswith("$ "):
            text = text[2:]
        if not buf:
            start = n
        if text.endswith("\\"):
            buf += text[:-1] + " "
            continue
        yield start, buf + text
        buf = ""


VALUE_OPTIONS = {o for o in all_options if re.search(re.escape(o) + r" <", main_help)}
checked = 0
for doc in docs:
    for n, line in shell_lines(doc):
        for m in re.finditer(r"(?:^|[\s;|&(])(lockscope-cli)\s", line):
            rest = line[m.end():]
            rest = re.split(r"\s(?:\||&&|;|>|2>|<)\s|\s#\s|\s{2,}#", rest)[0]
            try:
                words = shlex.split(rest)
            except ValueError as e:
                fail(f"{rel(doc)}:{n}", f"cannot parse '{line.strip()}': {e}")
                continue
            where = f"{rel(doc)}:{n}"
            options, positional = [], []
            i = 0
            while i < len(words):
                w = words[i]
                if w.startswith("--"):
                    name = w.split("=", 1)[0]
                    options.append(name)
                    if "=" not in w and name in VALUE_OPTIONS:
                        i += 1
                elif w.startswith("-") and len(w) > 1 and w not in ("-",):
                    options.append(w)
                else:
                    positional.append(w)
                i += 1
            if not positional:
                if not set(options) & {"--help", "--version", "-h", "-v"}:
                    fail(where, f"'lockscope-cli {rest.strip()}' names no command")
                continue
            cmd = positional[0]
            if cmd not in commands:
                fail(where, f"'lockscope-cli {rest.strip()}': unknown command '{cmd}' (known: {', '.join(commands)})")
                continue
            key = (cmd,)
            if cmd in SUBCOMMANDS:
                sub = positional[1] if len(positional) > 1 else None
                if sub not in SUBCOMMANDS[cmd]:
                    fail(where, f"'lockscope-cli {rest.strip()}': '{cmd}' needs one of {SUBCOMMANDS[cmd]}")
                    continue
                key = (cmd, sub)
            allowed = command_options[key] | common | {"--help", "--help-all", "-h"}
            for o in options:
                if o not in allowed:
                    fail(where, f"'lockscope-cli {rest.strip()}': option {o} is not one of "
                                f"'lockscope-cli {' '.join(key)} --help' (nor a connection option)")
            checked += 1

# ---------------------------------------------------------------- findings and events
def grep_core(patterns):
    found = {}
    for root, _, files in os.walk(os.path.join(SRC, "core")):
        for f in files:
            if not f.endswith((".cpp", ".h")):
                continue
            path = os.path.join(root, f)
            text = open(path, encoding="utf-8", errors="replace").read()
            for p in patterns:
                for m in re.finditer(p, text):
                    found.setdefault(m.group(1), f"{rel(path)}:{text.count(chr(10), 0, m.start()) + 1}")
    return found


def check_terms(found, page, what):
    path = os.path.join(SRC, "docs", "reference", page)
    text = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
    if not found:
        fail(f"core/", f"no {what} found in the code: has the pattern changed? (tests/docs/check_docs.py)")
    for term, where in sorted(found.items()):
        if f"`{term}`" not in text:
            fail(f"docs/reference/{page}", f"{what} `{term}` ({where}) is not described")


codes = grep_core([r'f\.code = QStringLiteral\("([a-z_]+)"\)'])
events = grep_core([r'\btype = QStringLiteral\("([a-z_]+)"\)',
                    r'\badd\(QStringLiteral\("([a-z_]+)"\)',
                    r'\{nowMs, (?:failover \? QStringLiteral\("[a-z_]+"\) : )?QStringLiteral\("([a-z_]+)"\)',
                    r'\? QStringLiteral\("(failover)"\) : QStringLiteral\("slots_moved"\)',
                    r'QStringLiteral\("failover"\) : QStringLiteral\("(slots_moved)"\)'])
check_terms(codes, "findings.md", "finding code")
check_terms(events, "events.md", "event type")

for e in errors:
    print("FAIL " + e)
print(f"{len(docs)} documents, {checked} lockscope-cli command lines, {len(all_options)} options, "
      f"{len(codes)} finding codes, {len(events)} event types checked: "
      + ("PASS" if not errors else f"{len(errors)} problem(s)"))
sys.exit(1 if errors else 0)
