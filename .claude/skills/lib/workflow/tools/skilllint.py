"""The lint of a skill's SKILL.md (`skillrail lint`): its frontmatter against the Agent Skills
specification, Claude Code's extension keys and skillrail's profile for skill-runner (whose values
authoring/execution.py judges), its body's invocation against the skill's real scripts; and,
as warnings, the placeholders `skillrail new` left and a stale generated section. Every
problem names the file, the line and the fix.

The spec's own rules are errors in every mode, and agree with the reference validator
(skills-ref; tests/test_lint_reference.py holds the two to each other and lists where the
reference is wrong). What goes beyond the spec stays apart from them: the extension keys, refused
under `spec_only`; Claude's stricter rules for a name and a description, errors by default and
warnings under `spec_only`; and what skillrail's own reader needs, always a warning."""

from __future__ import annotations

import datetime
import re
import shlex
import unicodedata
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from ..authoring.execution import FORK_KEYS, PROFILE_KEYS, read_settings
from ..authoring.skillmd import CLAUDE_CODE_KEYS, SPEC_KEYS, split_frontmatter
from ..base.errors import SkillrailError, did_you_mean, one_line, shortened
from ..step.discovery import load_script
from ..step.invocation import OPTIONS
from .leftovers import leftovers

#: The keys accepted by default: the spec's extensions above, and skillrail's profile.
EXTENSION_KEYS = CLAUDE_CODE_KEYS | PROFILE_KEYS
#: Claude's rule for a name (the spec allows lowercase letters of any script).
NAME = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*\Z")
MAX_NAME, MAX_DESCRIPTION, MAX_COMPATIBILITY = 64, 1024, 500
LONG_DESCRIPTION, LONG_BODY = 500, 500
#: A line that opens or closes the frontmatter: three hyphens, then at most spaces or tabs.
FENCE = re.compile(r"---[ \t]*\Z")
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


class Front(NamedTuple):
    """The frontmatter as YAML reads it: its mapping, each top-level key's line (1-based, in
    the file) and value node (for the text as written)."""

    data: dict[Any, Any]
    lines: dict[Any, int]
    nodes: dict[Any, yaml.Node]
    root: yaml.MappingNode


def lint_skill(folder: Path, allowed: frozenset[str] = EXTENSION_KEYS, *,
               spec_only: bool = False) -> list[Problem]:
    """Every problem of `folder`/SKILL.md, `allowed` being the keys accepted beyond the spec and
    `spec_only` making Claude's rules beyond the spec warnings; then, as warnings, what the
    skill still owes its author (leftovers.py). Each problem is one line."""
    found = _skill_md(folder, allowed, spec_only) + [
        Problem(str(found.path), found.line, "warning", found.what, found.fix)
        for found in leftovers(folder)]
    return [p._replace(message=one_line(p.message), fix=one_line(p.fix)) for p in found]


def _skill_md(folder: Path, allowed: frozenset[str], spec_only: bool) -> list[Problem]:
    path = folder / "SKILL.md"
    misnamed = _misnamed(folder)
    if misnamed is not None:
        return [misnamed]
    where = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return [Problem(where, 1, "error", f"cannot read SKILL.md ({exc})",
                        "Create SKILL.md as UTF-8 text with YAML frontmatter")]
    parts = _split(text, where)
    if isinstance(parts, Problem):
        return [parts]
    front_text, body, body_line, found = parts
    front = _parse(front_text, where)
    if isinstance(front, Problem):
        return found + [front]
    found += _duplicates(front.root, where)
    found += _keys(front, where, allowed) + _settings(front, where, allowed)
    found += _name(front, where, folder.name, spec_only)
    found += _description(front, where, spec_only)
    found += _compatibility(front, where) + _license(front, where)
    found += _metadata(front, where) + _allowed_tools(front, where)
    found += _body(body, body_line, where, folder)
    return found


def _misnamed(folder: Path) -> Problem | None:
    """The problem of a skill whose SKILL.md is spelt in other capitals (skill.md): agents look
    for SKILL.md, and on a case-sensitive file system never find it."""
    try:
        names = {p.name for p in folder.iterdir()}
    except OSError:
        return None
    if "SKILL.md" in names:
        return None
    other = sorted(n for n in names if n.lower() == "skill.md")
    if not other:
        return None
    return Problem(str(folder / other[0]), 1, "error", f"the file is named {other[0]}; the spec "
                   "names it SKILL.md, and agents look for that name only",
                   f"Rename {other[0]} to SKILL.md")


def _split(text: str, where: str) -> tuple[str, str, int, list[Problem]] | Problem:
    """The frontmatter between the first two '---' lines, the body after them and its first
    line; a warning when skillrail's own reader (skillmd.split_frontmatter, which needs bare
    '---' lines each ending in a line break) would not find the same frontmatter."""
    if text.startswith("\ufeff"):
        return Problem(where, 1, "error", "SKILL.md starts with a byte order mark (U+FEFF) "
                       "before its '---'", "Save it as UTF-8 without a BOM")
    lines = text.split("\n")
    if not FENCE.match(lines[0]):
        return Problem(where, 1, "error", "no frontmatter: SKILL.md must start with a line "
                       "'---', the YAML keys, and a closing '---'",
                       "Add '---', 'name: ...', 'description: ...', '---' at the top")
    close = next((i for i, line in enumerate(lines[1:], 1) if FENCE.match(line)), None)
    if close is None:
        return Problem(where, 1, "error", "the frontmatter opened on line 1 has no closing "
                       "'---' line", "Add a line '---' after the last key")
    front = "".join(line + "\n" for line in lines[1:close])
    body, body_line = "\n".join(lines[close + 1:]), close + 2
    found = []
    if split_frontmatter(text) != (front, body, body_line):
        found.append(Problem(where, close + 1, "warning", "a '---' line of the frontmatter "
                             "has spaces after it or no line break, so skill-runner will not "
                             "read these keys", "Make both lines exactly '---', each ending "
                             "with a line break"))
    return front, body, body_line, found


def _parse(front: str, where: str) -> Front | Problem:
    """The frontmatter's mapping, each key's line and value node; or the problem of YAML that
    is not a mapping."""
    try:
        node = yaml.compose(front)
        data = yaml.safe_load(front)
    except yaml.MarkedYAMLError as exc:
        line = (exc.problem_mark.line + 2) if exc.problem_mark else 2
        fix = ("Quote the value: a ': ' inside an unquoted value ends it, and many loaders "
               "silently drop the key" if "mapping values are not allowed" in str(exc)
               else "Fix the YAML syntax")
        return Problem(where, line, "error", f"the frontmatter is not valid YAML "
                       f"({exc.problem})", fix)
    if not isinstance(data, dict) or not isinstance(node, yaml.MappingNode):
        return Problem(where, 2, "error", "the frontmatter is not a mapping of keys",
                       "Write one 'key: value' per line")
    pairs = [(k.value, k, v) for k, v in node.value if isinstance(k, yaml.ScalarNode)]
    return Front(data, {key: k.start_mark.line + 2 for key, k, _ in pairs},
                 {key: v for key, _, v in pairs}, node)


def _duplicates(root: yaml.MappingNode, where: str) -> list[Problem]:
    """A key given twice in one mapping, anywhere in the frontmatter: PyYAML keeps the last,
    other loaders refuse the file or keep the first."""
    found: list[Problem] = []
    seen: set[int] = set()

    def walk(node: yaml.Node, under: str) -> None:
        if id(node) in seen:  # an alias: the anchored node was walked already
            return
        seen.add(id(node))
        if isinstance(node, yaml.SequenceNode):
            for item in node.value:
                walk(item, under)
        if not isinstance(node, yaml.MappingNode):
            return
        first: dict[str, int] = {}
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode):
                line = key.start_mark.line + 2
                if key.value in first:
                    found.append(Problem(
                        where, line, "error", f"{under}key '{shortened(key.value)}' is given "
                        f"twice, on lines {first[key.value]} and {line}",
                        "Keep one of them: YAML loaders refuse a repeated key, or silently "
                        "keep one value"))
                first.setdefault(key.value, line)
                walk(value, f"'{shortened(key.value)}' ")
            else:
                walk(value, under)

    walk(root, "frontmatter ")
    return found


def _keys(front: Front, where: str, allowed: frozenset[str]) -> list[Problem]:
    known = SPEC_KEYS | allowed
    found = []
    for key in (k for k in front.data if k not in known):
        line, allow = front.lines.get(key, 2), f"allow it with --allow-field {key}"
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


def _settings(front: Front, where: str, allowed: frozenset[str]) -> list[Problem]:
    """The values of the profile's keys (and the fork keys skill-runner reads), each refused
    with its line and fix; a key `_keys` refused is not judged again."""
    given = {k: v for k, v in front.data.items() if k in (PROFILE_KEYS | FORK_KEYS) & allowed}
    if not given:
        return []
    _, problems = read_settings(given, front.lines)  # `given` holds no unknown key to report
    return [Problem(where, p.line, "error", one_line(p.message), p.fix) for p in problems]


def _kind(value: Any) -> str:
    """What YAML made of a value that is not text, in words: 'empty' (null or ''), 'a list',
    'a mapping', or what it read a plain word as ('a number to YAML, not text')."""
    if value is None or value == "":
        return "empty"
    if isinstance(value, (list, dict)):
        return f"{_noun(value)}, not text"
    return f"{_noun(value)} to YAML, not text"


def _noun(value: Any) -> str:
    for types, what in ((bool, "a boolean"), ((int, float), "a number"),
                        (datetime.date, "a date"), (list, "a list"),
                        (dict, "a mapping")):
        if isinstance(value, types):
            return what
    return "a value"


def _quote(front: Front, key: str, otherwise: str) -> str:
    """The fix for a value YAML reads as a number, a boolean, a date or null: the same value,
    quoted; `otherwise` for a list or a mapping."""
    node = front.nodes.get(key)
    if isinstance(node, yaml.ScalarNode) and node.value:
        return f"Quote it: {key}: \"{shortened(node.value)}\""
    return otherwise


def _name(front: Front, where: str, folder: str, spec_only: bool) -> list[Problem]:
    line = front.lines.get("name", 2)
    name = front.data.get("name")
    if "name" not in front.data:
        return [Problem(where, line, "error", "'name' is missing", f"Add 'name: {folder}'")]
    if not isinstance(name, str) or not name:
        return [Problem(where, line, "error", f"'name' is {_kind(name)}",
                        _quote(front, "name", f"Write 'name: {folder}'"))]
    # The reference compares names in NFKC (a folder name from macOS is decomposed).
    spec_name, shown = unicodedata.normalize("NFKC", name), shortened(name)
    found = []
    if (len(spec_name) > MAX_NAME or spec_name != spec_name.lower() or "--" in spec_name
            or spec_name.startswith("-") or spec_name.endswith("-")
            or not all(c.isalnum() or c == "-" for c in spec_name)):
        found.append(Problem(where, line, "error", f"name '{shown}' is not lowercase letters, "
                             f"digits and single hyphens (none first or last) of at most "
                             f"{MAX_NAME} characters", "Rename it, e.g. 'review-pr'"))
    elif not NAME.match(name):
        found.append(Problem(where, line, "warning" if spec_only else "error",
                             f"name '{shown}' has characters outside a-z, 0-9 and '-', which "
                             "Claude's rules for skills refuse (the spec allows them)",
                             "Rename it with a-z, 0-9 and hyphens only"))
    if spec_name != unicodedata.normalize("NFKC", folder):
        found.append(Problem(where, line, "error", f"name '{shown}' differs from its folder "
                             f"'{folder}'", f"Write 'name: {folder}' or rename the folder"))
    return found


def _description(front: Front, where: str, spec_only: bool) -> list[Problem]:
    line = front.lines.get("description", 2)
    text = front.data.get("description")
    if text is not None and not isinstance(text, str):
        return [Problem(where, line, "error", f"'description' is {_kind(text)}",
                        _quote(front, "description", "Write it as one paragraph of text"))]
    if not text or not text.strip():
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
        found.append(Problem(where, line, "warning" if spec_only else "error",
                             "the description contains '<' or '>', which Claude's rules for "
                             "skills refuse (the spec allows them)",
                             "Write it without angle brackets"))
    return found


def _compatibility(front: Front, where: str) -> list[Problem]:
    """The spec's `compatibility`: when given, 1 to 500 characters of text."""
    if "compatibility" not in front.data:
        return []
    line, text = front.lines.get("compatibility", 2), front.data["compatibility"]
    needs = "what the skill needs (product, system packages, network access)"
    if text is None or text == "":
        return [Problem(where, line, "error", "'compatibility' is empty; the spec wants 1 to "
                        f"{MAX_COMPATIBILITY} characters when it is given",
                        f"Say {needs}, or remove the key")]
    if not isinstance(text, str):
        return [Problem(where, line, "error", f"'compatibility' is {_kind(text)}",
                        _quote(front, "compatibility", f"Write {needs} as one line of text"))]
    if len(text) > MAX_COMPATIBILITY:
        return [Problem(where, line, "error", f"'compatibility' has {len(text)} characters, "
                        f"more than the spec's {MAX_COMPATIBILITY}",
                        f"Shorten it to {needs}; put the detail in the body")]
    return []


def _license(front: Front, where: str) -> list[Problem]:
    """`license`, when given, is text: a license's name or the file that holds it."""
    if "license" not in front.data or isinstance(front.data["license"], str):
        return []
    return [Problem(where, front.lines.get("license", 2), "error",
                    f"'license' is {_kind(front.data['license'])}",
                    _quote(front, "license", "Name the license or its file, e.g. "
                                             "'license: MIT'"))]


def _metadata(front: Front, where: str) -> list[Problem]:
    """The spec's `metadata`: a mapping of keys to single values (a number, as for
    skill-runner's max-retries, is read as the text YAML wrote)."""
    if "metadata" not in front.data:
        return []
    line, value = front.lines.get("metadata", 2), front.data["metadata"]
    if not isinstance(value, dict):
        what = ("empty" if value is None or value == "" else "text" if isinstance(value, str)
                else _noun(value))
        return [Problem(where, line, "error", f"'metadata' is {what}, not a mapping of keys "
                        "to values", "Write it as indented 'key: value' lines under "
                        "'metadata:', or remove it")]
    node = front.nodes["metadata"]
    lines = {k.value: k.start_mark.line + 2 for k, _ in node.value
             if isinstance(k, yaml.ScalarNode)} if isinstance(node, yaml.MappingNode) else {}
    return [Problem(where, lines.get(str(key), line), "error",
                    f"metadata key '{shortened(str(key))}' holds {_noun(item)}; "
                    "the spec's metadata values are text", "Give it one value, e.g. "
                    f"'{shortened(str(key))}: \"...\"'")
            for key, item in value.items() if isinstance(item, (list, dict))]


def _allowed_tools(front: Front, where: str) -> list[Problem]:
    """The spec's `allowed-tools`: a line of tools separated by spaces, or a list of them."""
    if "allowed-tools" not in front.data:
        return []
    value = front.data["allowed-tools"]
    if isinstance(value, str) or (isinstance(value, list) and value and not any(
            isinstance(item, (list, dict)) or item is None for item in value)):
        return []
    what = ("a list holding more than tool names" if isinstance(value, list) and value
            else _kind(None if value in ([], {}) else value))
    return [Problem(where, front.lines.get("allowed-tools", 2), "error",
                    f"'allowed-tools' is {what}", "Write the tools on one line "
                    "('allowed-tools: Read Grep') or as a list of names, or remove the key")]


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
