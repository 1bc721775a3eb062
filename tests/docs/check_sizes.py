#!/usr/bin/env python3
"""A source file over 600 lines says why (issue 42): for every .cpp of core/, app/ and ui/ longer
than that, its header must carry a sentence "Why NAME.cpp is long: ..." in the class's comment.
Usage: check_sizes.py SOURCE_DIR. Exit 1 naming each file without its reason."""
import pathlib
import sys

LIMIT = 600


def main() -> int:
    root = pathlib.Path(sys.argv[1])
    missing = []
    for folder in ("core", "app", "ui"):
        for cpp in sorted((root / folder).rglob("*.cpp")):
            lines = cpp.read_text(encoding="utf-8").count("\n")
            if lines <= LIMIT:
                continue
            header = cpp.with_suffix(".h")
            text = header.read_text(encoding="utf-8") if header.exists() else ""
            if f"Why {cpp.name} is long:" not in text:
                missing.append(f"{cpp.relative_to(root)} ({lines} lines): split it, or say in "
                               f"{header.relative_to(root)} \"Why {cpp.name} is long: ...\"")
    for m in missing:
        print(m)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
