#!/usr/bin/env python3
"""A check for plans' `verify` commands: exit 0 when the file exists and is not empty (and
holds the text given with --contains), else exit 1 with the reason."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])


def main(argv: list[str]) -> int:
    if not argv or argv[0].startswith("-") or len(argv) not in (1, 3) or (
            len(argv) == 3 and argv[1] != "--contains"):
        print("usage: _file_check.py PATH [--contains TEXT]")
        return 2
    path = argv[0]
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError as exc:
        print(f"FAIL: cannot read {path}: {exc.strerror}")
        return 1
    if not text.strip():
        print(f"FAIL: {path} is empty")
        return 1
    if len(argv) == 3 and argv[2] not in text:
        print(f"FAIL: {path} does not contain {argv[2]!r}")
        return 1
    print(f"OK: {path} ({len(text)} characters)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
