"""The lint of a skill's SKILL.md (`skillrail lint`): its frontmatter against the Agent Skills
rules, Claude Code's extension keys and skillrail's profile for skill-runner (whose values
authoring/execution.py judges), its body's invocation against the skill's real scripts; and,
as warnings, the placeholders `skillrail new` left and a stale generated section. Every
problem names the file, the line and the fix."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from ..authoring.execution import FORK_KEYS, PROFILE_KEYS, read_settings
from ..authoring.skillmd import CLAUDE_CODE_KEYS, SPEC_KEYS, split_frontmatter
from ..base.errors import SkillrailError, did_you_mean, one_line
from ..step.discovery import load_script
from ..step.invocation import OPTIONS
from .leftovers import leftovers

#: The keys accepted by default: the spec's extensions above, and skillrail's profile.
EXTENSION_KEYS = CLAUDE_CODE_KEYS | PROFILE_KEYS
NAME = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*\Z")
MAX_NAME, MAX_DESCRIPTION, LONG_DESCRIPTION, LONG_BODY = 64, 1024, 500, 500
#: An invocation in the body: the script under ${CLAUDE_SKILL_DIR} (or, in a project's
#: .agents/skills, the skill's folder from the repository root) and the flags after it.
INVOCATION = re.compile(r"(?:\$\{CLAUDE_SKILL_DIR\}|\.agents/skills/[\w.-]+)/"
                        r"(scripts/[\w./-]+\.py)((?:[ \t]+--?[\w-]+"
                        r"(?:[ =](?:'[^']*'|\"[^\"]*\"|[^\s'\"-][^\s]*))?)*)")


class Problem(NamedTuple):
    path: str
    line: int
    level: str  # error | warning
    message: str
    fix: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.level}: {self.message}. {self.fix}"


def lint_skill(folder: Path, allowed: frozenset[str] = EXTENSION_KEYS) -> list[Problem]:
    """Every problem of `folder`/SKILL.md, `allowed` being the keys accepted beyond the spec;
    then, as warnings, what the skill still owes its author (leftovers.py)."""
    return _skill_md(folder, allowed) + [
        Problem(str(found.path), found.line, "warning", found.what, found.fix)
        for found in leftovers(folder)]


def _skill_md(folder: Path, allowed: frozenset[str]) -> list[Problem]:
    path = folder / "SKILL.md"
    where = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return [Problem(where, 1, "error", f"cannot read SKILL.md ({exc})",
                        "Create SKILL.md as UTF-8 text with YAML frontmatter")]
    parts = split_frontmatter(text)
    if parts is None:
        return [Problem(where, 1, "error", "no frontmatter: SKILL.md must start with a line "
                        "'---', the YAML keys, and a closing '---'",
                        "Add '---', 'name: ...', 'description: ...', '---' at the top")]
    front, body, body_line = parts
    data, lines, problem = _parse(front, where)
    if problem is not None:
        return [problem]
    found = _keys(data, lines, where, allowed) + _settings(data, lines, where, allowed)
    found += _name(data, lines, where, folder.name)
    found += _description(data, lines, where)
    found += _body(body, body_line, where, folder)
    return found


def _parse(front: str, where: str) -> tuple[dict[str, Any], dict[str, int], Problem | None]:
    """The frontmatter's mapping and each key's line (1-based, in the file)."""
    try:
        node = yaml.compose(front)
        data = yaml.safe_load(front)
    except yaml.MarkedYAMLError as exc:
        line = (exc.problem_mark.line + 2) if exc.problem_mark else 2
        fix = ("Quote the value: a ': ' inside an unquoted value ends it, and many loaders "
               "silently drop the key" if "mapping values are not allowed" in str(exc)
               else "Fix the YAML syntax")
        return {}, {}, Problem(where, line, "error", f"the frontmatter is not valid YAML "
                               f"({exc.problem})", fix)
    if not isinstance(data, dict) or node is None:
        return {}, {}, Problem(where, 2, "error", "the frontmatter is not a mapping of keys",
                               "Write one 'key: value' per line")
    lines = {k.value: k.start_mark.line + 2 for k, _ in node.value}
    return data, lines, None


def _keys(data: dict[str, Any], lines: dict[str, int], where: str,
          allowed: frozenset[str]) -> list[Problem]:
    known = SPEC_KEYS | allowed
    found = []
    for key in (k for k in data if k not in known):
        line, allow = lines.get(key, 2), f"allow it with --allow-field {key}"
        if key in EXTENSION_KEYS:
            whose = ("a key of skillrail's profile for skill-runner" if key in PROFILE_KEYS
                     else "a Claude Code key")
            found.append(Problem(where, line, "error", f"frontmatter key '{key}' is {whose}, "
                                 "outside the plain Agent Skills spec", f"Remove it, or {allow}"))
        else:
            found.append(Problem(where, line, "error", f"unknown frontmatter key '{key}'",
                                 "Use the Agent Skills keys (" + ", ".join(sorted(SPEC_KEYS))
                                 + f"), or {allow}." + did_you_mean(str(key), known)))
    return found


def _settings(data: dict[str, Any], lines: dict[str, int], where: str,
              allowed: frozenset[str]) -> list[Problem]:
    """The values of the profile's keys (and the fork keys skill-runner reads), each refused
    with its line and fix; a key `_keys` refused is not judged again."""
    given = {k: v for k, v in data.items() if k in (PROFILE_KEYS | FORK_KEYS) & allowed}
    if not given:
        return []
    _, problems = read_settings(given, lines)  # `given` holds no unknown key to report again
    return [Problem(where, p.line, "error", one_line(p.message), p.fix) for p in problems]


def _name(data: dict[str, Any], lines: dict[str, int], where: str, folder: str) -> list[Problem]:
    line = lines.get("name", 2)
    name = data.get("name")
    if not isinstance(name, str) or not name:
        return [Problem(where, line, "error", "'name' is missing or not text",
                        f"Add 'name: {folder}'")]
    found = []
    if not NAME.match(name) or len(name) > MAX_NAME:
        found.append(Problem(where, line, "error", f"name '{name}' is not lowercase letters, "
                             f"digits and single hyphens of at most {MAX_NAME} characters",
                             "Rename it, e.g. 'review-pr'"))
    if name != folder:
        found.append(Problem(where, line, "error", f"name '{name}' differs from its folder "
                             f"'{folder}'", f"Write 'name: {folder}' or rename the folder"))
    return found


def _description(data: dict[str, Any], lines: dict[str, int], where: str) -> list[Problem]:
    line = lines.get("description", 2)
    text = data.get("description")
    if not isinstance(text, str) or not text.strip():
        return [Problem(where, line, "error", "'description' is missing or empty",
                        "Say what the skill does and when to use it, in one paragraph")]
    found = []
    if len(text) > MAX_DESCRIPTION:
        found.append(Problem(where, line, "error", f"the description has {len(text)} "
                             f"characters, more than {MAX_DESCRIPTION}", "Shorten it"))
    elif len(text) > LONG_DESCRIPTION:
        found.append(Problem(where, line, "warning", f"the description has {len(text)} "
                             "characters; skill listings truncate long ones",
                             f"Keep it under {LONG_DESCRIPTION}: what it does, when to use it"))
    if "<" in text or ">" in text:
        found.append(Problem(where, line, "error", "the description contains '<' or '>'",
                             "Write it without angle brackets"))
    return found


def _body(body: str, first: int, where: str, folder: Path) -> list[Problem]:
    found = []
    count = body.count("\n")
    if count > LONG_BODY:
        found.append(Problem(where, first, "warning", f"the body has {count} lines; agents "
                             "read all of it", f"Keep it under {LONG_BODY}: move detail to "
                             "resources/"))
    for number, line in enumerate(body.splitlines(), first):
        for match in INVOCATION.finditer(line):
            found += _invocation(match, number, where, folder)
    return found


def _invocation(match: re.Match[str], line: int, where: str, folder: Path) -> list[Problem]:
    """The body's command must name a real script and flags that script accepts."""
    script = folder / match.group(1)
    if not script.is_file():
        return [Problem(where, line, "error", f"the invocation names {match.group(1)}, which "
                        "does not exist", "Show the real script path")]
    try:
        workflows = load_script(script)
    except (SkillrailError, Exception, SystemExit) as exc:  # noqa: BLE001 - reported as is
        return [Problem(where, line, "error", f"{match.group(1)} does not load ({exc})",
                        "Run `skillrail validate` and fix the script")]
    flags = set(OPTIONS) | {f"--{p.name}" for wf in workflows for p in wf.params}
    used = _flags(match.group(2))
    return [Problem(where, line, "error", f"the invocation passes {flag}, which "
                    f"{match.group(1)} does not accept", "Run the script with --help for its flags")
            for flag in used if flag not in flags and flag != "-h"]


def _flags(text: str) -> list[str]:
    """The flags of a command line: its words that start with '-' (up to any '='), never words
    inside a quoted value such as 'prompts/triage-ticket.md'."""
    try:
        words = shlex.split(text)
    except ValueError:  # unbalanced quotes: fall back to plain words
        words = text.split()
    return [w.partition("=")[0] for w in words if re.match(r"--?[\w-]+$", w.partition("=")[0])]
