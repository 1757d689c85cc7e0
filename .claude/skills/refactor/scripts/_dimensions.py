"""The refactor skill's dimensions: the code-quality convention set (each
`conventions/code-quality-<dimension>.md`, with its `Mode:` group and summary) and the
dimensions each mode explores, and the check of the names given for custom mode."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from collections.abc import Mapping
from typing import NamedTuple

from skills.lib.workflow import SkillrailError, StepContext, get_convention
from skills.lib.workflow.authoring.conventions import convention_names

PREFIX = "code-quality-"  # the convention set: conventions/code-quality-<dimension>.md
GROUPS = ("design", "code")  # the `Mode:` a dimension's convention declares; both = all
MODES = (*GROUPS, "both", "custom")


class Dimension(NamedTuple):
    name: str
    group: str
    summary: str


def convention_set() -> list[Dimension]:
    """Every code-quality convention, design dimensions first, each group by name: the same
    list, in the same order, on every run."""
    found = [_dimension(name) for name in convention_names() if name.startswith(PREFIX)]
    return sorted(found, key=lambda d: (GROUPS.index(d.group), d.name))


def _dimension(convention: str) -> Dimension:
    head = get_convention(convention).text.splitlines()[:12]
    fields = dict(line.split(": ", 1) for line in head if line.startswith(("Mode: ", "Summary: ")))
    if fields.get("Mode") not in GROUPS:
        raise SkillrailError(f"convention '{convention}' has no 'Mode: design' or 'Mode: code' "
                             "line", "skill 'refactor'", "Add one below its title")
    return Dimension(convention[len(PREFIX):], fields["Mode"], fields.get("Summary", ""))


def parse_names(text: str) -> list[str]:
    """Dimension names as given: one per line or comma-separated, any case."""
    raw = text.replace(",", "\n").lower()
    names = ("-".join(line.strip(" -*\t`'\"").split()) for line in raw.splitlines())
    return list(dict.fromkeys(n for n in names if n and n != "none"))


def named(ctx: StepContext) -> list[str]:
    """The dimensions named for custom mode (DIMENSIONS)."""
    return parse_names(ctx.values.get("DIMENSIONS", ""))


def names_problem(value: str, params: Mapping[str, str]) -> str | None:
    """DIMENSIONS' check: what is wrong with the names given, or None when every one is in
    the set. A refused value never reaches the run, so no explorer is asked for a name the
    set does not have."""
    from difflib import get_close_matches  # only when a value is checked: --step stays lean

    known = [d.name for d in convention_set()]
    names = parse_names(value)
    if not names:
        return f"no dimension was named. The set: {', '.join(known)}"
    unknown = [n for n in names if n not in known]
    if not unknown:
        return None
    wrong = ", ".join(f"'{n}'" + "".join(f" (did you mean '{m}'?)"
                                         for m in get_close_matches(n, known, n=1))
                      for n in unknown)
    return (f"not in the convention set: {wrong}. The set: {', '.join(known)}. A concern the "
            "set does not cover cannot be explored here: leave it out")


def chosen(mode: str, ctx: StepContext) -> list[Dimension]:
    """The dimensions a mode explores, in convention-set order whatever order they were named
    in: design or code (their group), both (all), custom (the named ones in the set)."""
    dims = convention_set()
    if mode == "custom":
        return [d for d in dims if d.name in named(ctx)]
    return [d for d in dims if mode in ("both", d.group)]


def listing() -> str:
    return "; ".join(f"{d.name} ({d.summary.rstrip('.')})" for d in convention_set())


def names_of(group: str) -> str:
    return ", ".join(d.name for d in convention_set() if d.group == group)


def mode_line(ctx: StepContext) -> str:
    """The plan's `Mode:` line, rendered from MODE (reported with the mode's outcome) and, for
    custom, the named dimensions and then the ones not explored: the agent copies it, it does not
    recall it."""
    mode = ctx.values.get("MODE", "")
    line = f"Mode: {mode} ({', '.join(d.name for d in chosen(mode, ctx))})"
    if mode != "custom":
        return line
    left = [d.name for d in convention_set() if d not in chosen(mode, ctx)]
    return line + (f"; not explored: {', '.join(left)}" if left else "")
