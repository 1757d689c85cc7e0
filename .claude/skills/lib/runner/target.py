"""The skill a skill-runner run follows: found by path or name, its SKILL.md body made concrete
(variables filled in, `` !`cmd` `` run through the gateway with the skill's own policy), its
supporting files and the tools it declares."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from skills.lib.workflow.authoring.execution import Settings
    from skills.lib.workflow.graph.model import StepContext

#: Beyond this the body is shown by section (by_section): a step must stay far below what an
#: agent is shown of a command's output.
MAX_BODY_CHARS = 6_000


def times(count: int, word: str, words: str = "") -> str:
    """`count` and the word for it: '1 retry', '3 retries' (`words`, the plural when it is
    not the word and an s), '2 times'."""
    return f"{count} {word if count == 1 else words or word + 's'}"


def find_skill(given: str) -> str | None:
    """The skill folder `given` names (a folder holding SKILL.md, or a skill's name), or None."""
    from skills.lib.workflow.base.paths import find_skill as found

    return found(given)


def skill_problem(given: str) -> str | None:
    """A --skill value that names no skill, explained; None when it names one."""
    from skills.lib.workflow.base.paths import SKILL_PLACES

    folder = find_skill(given)
    if folder is None:
        return (f"no SKILL.md in '{given}', nor in a skill of that name under "
                f"{', '.join(SKILL_PLACES)}; give the skill's folder or its name")
    problems = skill_settings(folder)[1]
    if problems:  # the run does not start on settings the skill's author got wrong
        return ("its settings are not valid: " + "; ".join(problems)
                + " (`skillrail lint` checks them)")
    return None


def body(folder: str) -> str:
    """SKILL.md without its frontmatter."""
    text = Path(folder, "SKILL.md").read_text(encoding="utf-8")
    if text.startswith("---\n"):
        end = text.find("\n---\n", 3)
        if end >= 0:
            return text[end + 5:].lstrip("\n")
    return text


def concrete_body(folder: str, arguments: str, run: str | None) -> str:
    """The body as the skill's agent would see it: variables filled in (the arguments appended
    when the body never uses them), each `` !`cmd` `` replaced by its output."""
    from skills.lib.workflow.authoring.substitution import Substituter, expand_document, variables

    values = variables(folder, run, arguments)
    text = expand_document(body(folder), Substituter(values, f"SKILL.md of {folder}"))
    text = re.sub(r"!`([^`\n]+)`", lambda m: _injected(m.group(1), folder), text)
    return by_section(text, os.path.join(folder, "SKILL.md")) if len(text) > MAX_BODY_CHARS \
        else text


def headings(lines: list[str]) -> list[tuple[int, int, str]]:
    """(index, level, heading) of each Markdown heading among `lines`; a `#` line inside a
    fenced code block heads nothing."""
    found, fenced = [], False
    for number, line in enumerate(lines):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        match = None if fenced else re.match(r"(#{1,6}) \S", line)
        if match:
            found.append((number, len(match.group(1)), line.strip()))
    return found


def sections(text: str) -> list[tuple[str, str]]:
    """`text` (Markdown) as (heading, the section's whole text) in order, the part before the
    first heading under '' (left out when there is none)."""
    lines = text.splitlines(keepends=True)
    marks = [(0, "")] + [(n, heading) for n, _, heading in headings(lines)]
    ends = [n for n, _ in marks[1:]] + [len(lines)]
    return [(heading, "".join(lines[n:end])) for (n, heading), end in zip(marks, ends,
                                                                           strict=True)
            if heading or end > n]


def by_section(text: str, path: str) -> str:
    """A body too long to show whole, shown whole section by section, in order, while they fit
    in MAX_BODY_CHARS; then, for each section left, its heading and where it is in the file,
    to read when the run needs it. No section, table or code block is cut (one that cannot
    fit even alone is named as the rest are)."""
    raw = Path(path).read_text(encoding="utf-8").splitlines()
    marks = headings(raw)
    shown: list[str] = []
    left: list[str] = []
    used = 0
    for heading, part in sections(text):
        if not left and used + len(part) <= MAX_BODY_CHARS:
            shown.append(part)
            used += len(part)
        else:
            left.append(heading or "(the text before the first heading)")
    lines = [f"- {heading} ({_lines_of(heading, marks, len(raw))})" for heading in left]
    return ("".join(shown).rstrip() + f"\n\n[SKILL.md is longer than {MAX_BODY_CHARS:,} "
            f"characters: its sections above are whole; read each section below in {path} "
            "when the run comes to it:]\n" + "\n".join(lines))


def _lines_of(heading: str, marks: list[tuple[int, int, str]], count: int) -> str:
    """Where the section under `heading` is in a file of `count` lines whose headings are
    `marks`: 'lines N-M', up to the next heading of its level or above."""
    here = next(((n, level) for n, level, text in marks if text == heading), None)
    if here is None:
        return "search the file for its heading"
    end = next((n for n, level, _ in marks if n > here[0] and level <= here[1]), count)
    return f"lines {here[0] + 1}-{end}"


def _injected(command: str, folder: str) -> str:
    from skills.lib.workflow.guard.gateway import attempt

    done = attempt(command.strip(), folder)
    shown = done.head.rstrip() or "(no output)"
    return f"`{command}` gave ({done.summary()}):\n```\n{shown[:2_000]}\n```\n"


def supporting_files(folder: str) -> list[str]:
    """The skill's files beside SKILL.md, relative, sorted (at most 40)."""
    found = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__")))
        for name in sorted(files):
            rel = os.path.relpath(os.path.join(root, name), folder)
            if rel != "SKILL.md" and not name.startswith("."):
                found.append(rel)
    return found[:40]


def declared_tools(folder: str) -> list[str] | None:
    """The skill's `allowed-tools`, as a list ([] when it declares none); None when the
    frontmatter cannot be read here (pyyaml missing)."""
    from skills.lib.workflow.authoring.skillmd import read_frontmatter, tool_list

    try:
        front = read_frontmatter(Path(folder, "SKILL.md")) or {}
    except ModuleNotFoundError:
        return None
    return tool_list(front.get("allowed-tools"))


def skill_name(folder: str) -> str:
    """The frontmatter's name, else the folder's."""
    from skills.lib.workflow.authoring.skillmd import read_frontmatter

    try:
        front = read_frontmatter(Path(folder, "SKILL.md")) or {}
    except ModuleNotFoundError:
        front = {}
    name = front.get("name")
    return str(name) if isinstance(name, str) and name else os.path.basename(folder)


def skill_settings(folder: str) -> tuple[Settings, list[str]]:
    """How the skill asks to be run (authoring/execution.py), and each problem of those
    settings as `path:line: what. fix` (defaults when the frontmatter cannot be read: lint
    reports that)."""
    from skills.lib.workflow.authoring.execution import Settings, key_lines, read_settings
    from skills.lib.workflow.authoring.skillmd import (
        CLAUDE_CODE_KEYS,
        SPEC_KEYS,
        read_frontmatter,
        split_frontmatter,
    )

    path = Path(folder, "SKILL.md")
    try:
        front = read_frontmatter(path)
        parts = split_frontmatter(path.read_text(encoding="utf-8"))
    except (ModuleNotFoundError, OSError, UnicodeDecodeError):
        return Settings(), []
    if front is None or parts is None:
        return Settings(), []
    settings, problems = read_settings(front, key_lines(parts[0]), SPEC_KEYS | CLAUDE_CODE_KEYS)
    return settings, [problem.text(str(path)) for problem in problems]


def execution_mode(ctx: StepContext) -> str:
    """The mode step's decision: 'simple' or 'autonomous', as the skill's settings say."""
    folder = find_skill(ctx.params["skill"]) or ctx.params["skill"]
    return skill_settings(folder)[0].mode


def skill_retries(folder: str) -> int | None:
    """The skill's own retry default: `metadata: {max-retries: N}` in its frontmatter (1 to 5),
    else None."""
    from skills.lib.workflow.authoring.skillmd import read_frontmatter

    try:
        front = read_frontmatter(Path(folder, "SKILL.md")) or {}
    except ModuleNotFoundError:
        return None
    meta = front.get("metadata")
    value = meta.get("max-retries") if isinstance(meta, dict) else None
    return value if isinstance(value, int) and 1 <= value <= 5 else None
