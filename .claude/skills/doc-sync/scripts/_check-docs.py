#!/usr/bin/env python3
"""Doc-sync's mechanical check: does every reference in the docs still hold?

    python3 _check-docs.py [--dir DIR]      (run from the repository root; DIR: .doc-sync)

Reads DIR/docs.txt (the docs to check, one path per line; a folder means its markdown and
reStructuredText files),
DIR/clis.txt (optional: the project's CLIs, one per line, `NAME` or `NAME: how to run it`; a
command that starts with either runs the CLI, e.g. `calc: python3 -m calc.cli`),
DIR/ignore.txt (optional: `'REFERENCE'  # why it is right as written`) and DIR/hand-checked.txt
(optional: `'CLI --flag'  # FILE:LINE that defines it`, for flags no method below could read).
Markdown is read by the rules of _docrefs.py; reStructuredText by docutils (_rstrefs.py), with
Sphinx's roles and directives: `:func:`, `:class:`, `:meth:` and the other Python roles, and the
`auto*` directives, must name what the code defines (read, never imported; a name outside the
project is not judged), and `literalinclude`, `include`, `image`, `figure` and `:doc:` must
name files that exist. Checks that linked and named paths exist, that commands (in inline
code and in shell, untyped and indented code blocks) name scripts, make targets and npm
scripts that exist, that --flags documented for a CLI are flags of that CLI, and that
docstrings document only real parameters.
A CLI's flags come from its --help, run through skillrail's security gateway, else from the
option calls of the Python file that defines it (read, not run); the output says which. A flag
neither can read, and not recorded as checked by hand, is listed as not checked.

Prints one line per problem, `doc:line: 'REFERENCE' what; fix`, one `flags of 'CLI': ...` line
per CLI of clis.txt (how its flags were read, or that no doc showed it with a flag), then a
summary line. Exit 0: the docs are clean; 1: drift found; 2: the inputs are unusable; 3: no
drift found, but some flags were not checked, so the docs are not known to be clean.
"""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

import re
from typing import NamedTuple

from _docchecks import SKIP_DIRS, Checker, Problem, inside
from _docrefs import INTERPRETERS

SHOWN = 25  # problem lines printed; the fix step works through them and the check runs again
MARKDOWN = (".md", ".markdown", ".mdx")
#: What a folder of docs.txt stands for: its markdown and reStructuredText files.
DOCS = (*MARKDOWN, ".rst", ".rest")


class InputError(Exception):
    """The checker's inputs cannot be used; the message says which and how to fix them."""


class Inputs(NamedTuple):
    docs: list[str]
    clis: dict[str, str]  # name -> the command that runs it
    ignored: dict[str, str]  # reference -> reason
    by_hand: dict[str, str]  # 'CLI --flag' -> where the code defines it
    problems: list[Problem]  # in the input files themselves


def read_inputs(folder: str, root: str) -> Inputs:
    listing = os.path.join(folder, "docs.txt")
    if not os.path.isfile(listing):
        raise InputError(f"no doc list at {listing} (doc-sync checker). Write the docs to check "
                         "there, one path per line, relative to the repository root")
    docs, problems = [], []
    for number, entry in _entries(listing):
        path = os.path.realpath(os.path.join(root, entry))
        if not inside(path, root) or not os.path.exists(path):
            problems.append(Problem(listing, number, entry, "is not a file or folder in the "
                                    "repository", "fix or delete the line"))
            continue
        docs += _markdown_under(path, root) if os.path.isdir(path) else [os.path.relpath(path,
                                                                                          root)]
    if not docs and not problems:
        raise InputError(f"the doc list {listing} names no doc (doc-sync checker). List the "
                         "docs to check, one path per line")
    clis = {}
    for _, entry in _entries(os.path.join(folder, "clis.txt")):
        name, _, command = entry.partition(":")
        clis[name.strip()] = command.strip() or name.strip()
    ignored = _annotated(os.path.join(folder, "ignore.txt"), problems, "", "is ignored without a "
                         "reason", "add '# why it is right as written' or delete the line")
    by_hand = _annotated(os.path.join(folder, "hand-checked.txt"), problems, r"\S:\d+",
                         "is recorded as checked by hand without the code that defines it",
                         "add '# FILE:LINE that defines it' or delete the line")
    work = os.path.realpath(folder)  # its drift.md is no doc of the project
    docs = [d for d in dict.fromkeys(docs) if not inside(os.path.join(root, d), work)]
    return Inputs(docs, clis, ignored, by_hand, problems)


def _annotated(path: str, problems: list[Problem], needs: str, what: str,
               fix: str) -> dict[str, str]:
    """The `'REFERENCE'  # note` lines of a file; a line whose note is empty or lacks the
    pattern `needs` is a problem."""
    found = {}
    for number, entry in _entries(path):
        ref, _, note = entry.partition("#")
        ref, note = ref.strip().strip("'"), note.strip()
        found[ref] = note
        if not note or not re.search(needs, note):
            problems.append(Problem(path, number, ref, what, fix))
    return found


def _entries(path: str) -> list[tuple[int, str]]:
    if not os.path.isfile(path):
        return []
    with open(path, encoding="utf-8", errors="replace") as handle:
        return [(n, line.strip()) for n, line in enumerate(handle, 1)
                if line.strip() and not line.lstrip().startswith("#")]


def _markdown_under(folder: str, root: str) -> list[str]:
    found = []
    for here, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        found += [os.path.relpath(os.path.join(here, f), root) for f in sorted(files)
                  if f.endswith(DOCS)]
    return found


def report(inputs: Inputs, checker: Checker, problems: list[Problem], folder: str) -> int:
    """Print the problems (those of the input files first, which no ignore entry hides), how
    each CLI's flags were checked, and the summary; the exit status."""
    kept = inputs.problems + [p for p in dict.fromkeys(problems) if p.ref not in inputs.ignored]
    used = {p.ref for p in problems} & set(inputs.ignored)
    for problem in kept[:SHOWN]:
        print(problem)
    if len(kept) > SHOWN:
        print(f"... and {len(kept) - SHOWN} more problems: fix these, then run the check again")
    unchecked = _flag_lines(checker, os.path.join(folder, "hand-checked.txt"))
    unused = sorted(set(inputs.ignored) - used)
    if unused:
        print(f"note: ignore entries that match nothing (delete them): {', '.join(unused)}")
    spare = sorted(set(inputs.by_hand) - checker.hand_used)
    if spare:
        print("note: hand-checked entries for no flag left unchecked (delete them): "
              + ", ".join(spare))
    for doc, why in sorted(checker.unread.items()):
        print(f"not read: {doc}: {why}")
    hand = f", {_count(len(checker.hand_used), 'flag')} by hand" if checker.hand_used else ""
    read = len(inputs.docs) - len(checker.unread)
    kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(checker.kinds.items()))
    counts = (f"{_count(checker.checked, 'reference')} in {_count(read, 'doc')} "
              f"({kinds or 'none'}) checked{hand}, {len(used)} ignored")
    missing = f"; and {_count(unchecked, 'flag')} not checked" if unchecked else ""
    if checker.unread:
        missing += f"; and {_count(len(checker.unread), 'doc')} not read"
    if kept:
        files = len({p.where for p in kept})
        print(f"drift: {_count(len(kept), 'problem')} in {_count(files, 'file')} ({counts})"
              f"{missing}")
        return 1
    if unchecked or checker.unread:
        what = " and ".join(part for part in (
            _count(unchecked, "flag") + " not checked" if unchecked else "",
            _count(len(checker.unread), "doc") + " not read" if checker.unread else "") if part)
        print(f"incomplete: {what}, so the docs are not known to be clean; no other drift "
              f"({counts})")
        return 3
    print(f"clean: {counts}")
    return 0


def _flag_lines(checker: Checker, record: str) -> int:
    """Print how each CLI's flags were checked and which were not; the number not checked."""
    for cli in sorted(checker.clis):  # one line for each CLI, so none is passed over unseen
        print(f"flags of '{cli}': {_how_read(cli, checker)}")
    for cli, flags in sorted(checker.unchecked.items()):
        places = list(dict.fromkeys(p for found in flags.values() for p in found))
        more = f" and {len(places) - 3} more" if len(places) > 3 else ""
        print(f"not checked: '{cli}' {', '.join(flags)} at {', '.join(places[:3])}{more}")
    if checker.unchecked:
        example = next(iter(sorted(checker.unchecked)))
        print(f"to settle them: compare each flag not checked with the code; record each the "
              f"code defines in {record} as '{example} --FLAG'  # FILE:LINE that defines it, "
              "and fix the docs for the others")
        for cli in sorted(checker.unchecked):
            print(_enable(cli, checker.clis[cli]))
    if checker.hand_used:
        print(f"checked by hand ({record}): {', '.join(sorted(checker.hand_used))}")
    return sum(len(flags) for flags in checker.unchecked.values())


def _how_read(cli: str, checker: Checker) -> str:
    known = checker.sources.get(cli)
    if known is None:  # the docs showed no --flag with it: say what the check looked for
        starts = " or ".join(f"'{w}'" for w in dict.fromkeys([cli, checker.clis[cli]]))
        return f"no documented flags found (in commands that start with {starts})"
    if known.flags is None:
        return f"could not be read ({known.note})"
    source = known.source.replace(f"the --help of '{cli}'", "its --help")
    return f"checked against {source}" + (f" ({known.note})" if known.note else "")


def _enable(cli: str, command: str) -> str:
    """How the user can have the check read this CLI's flags itself."""
    first = command.split()[0] if command.split() else cli
    if first in INTERPRETERS:
        return (f"note: '{command} --help' cannot pass the gateway's {first} rule, which runs "
                "only the skill's own scripts; the check reads a Python CLI's flags from its "
                "code when its argparse, optparse or click calls name them literally")
    return (f"to have the check run '{command} --help': the user adds '{first}: {{options: "
            "{--help: flag}}' under 'programs:' in .claude/skillrail.yaml (a 'version: 2' "
            "file, which extends the default policy; with 'local: true' when the CLI lives "
            "inside the project; `skillrail gateway policy` shows the policy in force)")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' * (n != 1)}"


def main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="_check-docs.py", description="Check that the "
                                     "references in the listed docs still hold.")
    parser.add_argument("--dir", default=".doc-sync", help="the folder holding docs.txt, "
                        "clis.txt, ignore.txt and hand-checked.txt (default: .doc-sync)")
    ns = parser.parse_args(argv)
    root = os.path.realpath(os.getcwd())
    try:
        inputs = read_inputs(ns.dir, root)
    except InputError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
    checker = Checker(root, inputs.clis, set(inputs.by_hand))
    problems = [p for doc in inputs.docs for p in checker.doc(doc)]
    return report(inputs, checker, problems, ns.dir)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
