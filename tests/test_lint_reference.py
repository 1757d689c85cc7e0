"""`skillrail lint` against the Agent Skills reference validator (skills-ref): over a corpus of
edge-case skill folders, lint's spec layer (its errors under --spec-only) and
`skills_ref.validator.validate` reach the same verdict, except where the reference is wrong,
each such case naming the reference's bug (REFERENCE_BUGS). What skillrail adds to the spec (the
extension keys, Claude's stricter rules, what skill-runner's reader needs) stays outside that
verdict: accepted or a warning by default, an error only where the spec says so."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path
from typing import NamedTuple

import pytest
from skills.lib.workflow.tools.skilllint import EXTENSION_KEYS, Problem, lint_skill
from skills_ref.validator import validate

from .conftest import SKILLS_ROOT
from .harness import skillrail

#: Where skills-ref 0.1.1 is wrong and lint is right (.git/skills-ref-bugs.md words each one
#: as a report for upstream). A case carrying one of these asserts lint's verdict, and that the
#: reference still gets it wrong: a fixed reference fails the case, which then joins the rest.
REFERENCE_BUGS = {
    "split": "parser.py:45 splits the file on the first '---' anywhere, not on a '---' line: "
             "a '---' inside a quoted value leaves an unclosed quote, and one inside a plain "
             "value cuts the frontmatter short, hiding every key after it",
    "strictyaml": "parser.py:53 reads the frontmatter with strictyaml, which refuses valid "
                  "YAML: flow mappings, anchors and aliases, tags",
    "untyped": "parser.py:53: strictyaml without a schema reads every value as text, so a "
               "value that YAML loaders read as null, a number or a boolean passes as text",
    "empty compatibility": "validator.py:95 checks only compatibility's upper bound; the spec "
                           "says 1-500 characters when given",
    "stripped name": "validator.py:37 strips the name before checking it, so a quoted name "
                     "with spaces passes though it is neither valid nor its folder's name",
    "shapes": "validate_metadata (validator.py) never checks that metadata is a mapping of "
              "single values, that allowed-tools is text or a list of names, nor that license "
              "is text",
    "skill.md": "parser.py:23 accepts a lowercase skill.md; the spec names the file SKILL.md, "
                "which is all a client on a case-sensitive file system looks for",
    "undecodable": "validator.py:172 reads the file as UTF-8 and catches only ParseError, so "
                   "a SKILL.md that is not UTF-8 raises UnicodeDecodeError out of validate()",
}

DESCRIPTION = "Looks around. Use when asked to look."
BODY = "\n# Looker\n\nLook around.\n"


def md(*keys: str, name: str = "looker", description: str = DESCRIPTION, body: str = BODY) -> str:
    """A SKILL.md: the name, the description, then `keys` (one line each), and the body."""
    return ("---\n" + f"name: {name}\n" + f"description: {description}\n"
            + "".join(k + "\n" for k in keys) + "---\n" + body)


class Case(NamedTuple):
    id: str
    text: str | bytes
    valid: bool  # lint's spec-layer verdict
    says: str = ""  # a fragment of lint's error when invalid
    folder: str = "looker"
    bug: str | None = None  # REFERENCE_BUGS' key when the reference is wrong here
    file: str = "SKILL.md"


LONG_NAME = "a" * 64
CORPUS = [
    Case("valid", md(), True),
    # name
    Case("name of 64 characters", md(name=LONG_NAME), True, folder=LONG_NAME),
    Case("name of 65 characters", md(name=LONG_NAME + "a"), False, "of at most 64 characters",
         folder=LONG_NAME + "a"),
    Case("uppercase name", md(name="Looker"), False, "is not lowercase letters",
         folder="Looker"),
    Case("leading hyphen", md(name="-looker"), False, "(none first or last)",
         folder="-looker"),
    Case("trailing hyphen", md(name="looker-"), False, "(none first or last)",
         folder="looker-"),
    Case("consecutive hyphens", md(name="look--er"), False, "single hyphens",
         folder="look--er"),
    Case("underscore", md(name="look_er"), False, "is not lowercase letters",
         folder="look_er"),
    Case("unicode lowercase letters", md(name="café"), True, folder="café"),
    Case("unicode uppercase letter", md(name="Café"), False, "is not lowercase letters",
         folder="Café"),
    Case("letters without case", md(name="日本語"), True, folder="日本語"),
    Case("folder name decomposed (NFD, as macOS writes it)", md(name="café"), True,
         folder=unicodedata.normalize("NFD", "café")),
    Case("digits and letters", md(name="pdf2text"), True, folder="pdf2text"),
    Case("digits only, quoted", md(name='"2024"'), True, folder="2024"),
    Case("digits only, a number to YAML", md(name="2024"), False,
         "'name' is a number to YAML, not text", folder="2024", bug="untyped"),
    Case("a boolean to YAML", md(name="yes"), False, "'name' is a boolean to YAML",
         folder="yes", bug="untyped"),
    Case("name is not the folder", md(name="seer"), False, "differs from its folder 'looker'"),
    Case("name quoted with a space", md(name='" looker"'), False, "is not lowercase letters",
         bug="stripped name"),
    Case("missing name", "---\n" + f"description: {DESCRIPTION}\n---\n" + BODY, False,
         "'name' is missing"),
    Case("empty name", md(name='""'), False, "'name' is empty"),
    # description
    Case("missing description", "---\nname: looker\n---\n" + BODY, False,
         "'description' is missing or empty"),
    Case("empty description", md(description='""'), False, "'description' is missing or empty"),
    Case("blank description", md(description='"   "'), False, "missing or empty"),
    Case("description with no value", md(description=""), False, "missing or empty"),
    Case("description null", md(description="null"), False, "missing or empty", bug="untyped"),
    Case("description a number", md(description="123"), False,
         "'description' is a number to YAML", bug="untyped"),
    Case("description of 1024 characters", md(description="x" * 1024), True),
    Case("description of 1025 characters", md(description="x" * 1025), False,
         "has 1025 characters, more than 1024"),
    Case("description with angle brackets", md(description="Looks <around>."), True),
    Case("folded description", md(description=">\n  Looks around.\n  Use when asked."), True),
    # compatibility
    Case("compatibility of 500 characters", md("compatibility: " + "c" * 500), True),
    Case("compatibility of 501 characters", md("compatibility: " + "c" * 501), False,
         "'compatibility' has 501 characters, more than the spec's 500"),
    Case("compatibility a list", md("compatibility:\n  - claude-code"), False,
         "'compatibility' is a list, not text"),
    Case("compatibility a number", md("compatibility: 3"), False,
         "'compatibility' is a number to YAML", bug="untyped"),
    Case("compatibility empty", md('compatibility: ""'), False, "'compatibility' is empty",
         bug="empty compatibility"),
    Case("compatibility with no value", md("compatibility:"), False, "'compatibility' is empty",
         bug="empty compatibility"),
    # the other keys
    Case("every spec key", md("license: Apache-2.0", "compatibility: Requires git",
                              "allowed-tools: Bash(git:*) Read",
                              "metadata:\n  author: example-org\n  version: \"1.0\""), True),
    Case("allowed-tools as a list", md("allowed-tools:\n  - Read\n  - Grep"), True),
    Case("allowed-tools a mapping", md("allowed-tools:\n  Read: yes"), False,
         "'allowed-tools' is a mapping", bug="shapes"),
    Case("metadata with a number", md("metadata:\n  max-retries: 3"), True),
    Case("metadata text", md("metadata: hello"), False, "'metadata' is text, not a mapping",
         bug="shapes"),
    Case("metadata a list", md("metadata:\n  - a"), False, "'metadata' is a list, not a mapping",
         bug="shapes"),
    Case("metadata nested", md("metadata:\n  owner:\n    team: x"), False,
         "metadata key 'owner' holds a mapping", bug="shapes"),
    Case("license a list", md("license:\n  - MIT"), False, "'license' is a list, not text",
         bug="shapes"),
    Case("unknown key", md("colour: red"), False, "unknown frontmatter key 'colour'"),
    Case("a key in other capitals", md("Name: looker"), False, "unknown frontmatter key 'Name'"),
    Case("an extension key", md("execution_mode: autonomous"), False,
         "outside the plain Agent Skills spec"),
    Case("duplicate key", md("name: looker"), False,
         "frontmatter key 'name' is given twice, on lines 2 and 4"),
    Case("duplicate key in metadata", md("metadata:\n  a: b\n  a: c"), False,
         "'metadata' key 'a' is given twice, on lines 5 and 6"),
    # the frontmatter's fences and the file
    Case("no frontmatter", "# Looker\n", False, "no frontmatter"),
    Case("empty file", "", False, "no frontmatter"),
    Case("unclosed frontmatter", "---\nname: looker\n" + f"description: {DESCRIPTION}\n",
         False, "has no closing '---' line"),
    Case("four hyphens", md().replace("---", "----", 1), False, "no frontmatter"),
    Case("frontmatter only", md(body=""), True),
    Case("frontmatter only, no final line break", md(body="").rstrip("\n"), True),
    Case("fences with trailing spaces", md().replace("---\n", "---  \n"), True),
    Case("empty frontmatter", "---\n---\n" + BODY, False, "not a mapping of keys"),
    Case("frontmatter a list", "---\n- a\n---\n", False, "not a mapping of keys"),
    Case("horizontal rule in the body", md(body=BODY + "\n---\n\nMore.\n"), True),
    Case("unquoted ': ' in a value", md(description="Looks: around"), False,
         "not valid YAML (mapping values are not allowed here)"),
    Case("a tab in a plain value", md(description="Looks\taround"), False, "not valid YAML"),
    Case("comment line", md("# a comment"), True),
    Case("flow style", "---\n{name: looker, description: Looks around. Use when asked.}\n---\n"
         + BODY, True, bug="strictyaml"),
    Case("anchor and alias", "---\nname: &n looker\ndescription: Looks at *n.\n"
         "metadata:\n  id: *n\n---\n" + BODY, True, bug="strictyaml"),
    Case("tag", md(name="!!str looker"), True, bug="strictyaml"),
    Case("'---' in a quoted value", md(description='"Reads a --- b. Use when asked."'), True,
         bug="split"),
    Case("'---' in a plain value hides the keys after it",
         md("colour: red", description="Reads a---b."), False,
         "unknown frontmatter key 'colour'", bug="split"),
    Case("lowercase skill.md", md(), False, "the file is named skill.md", bug="skill.md",
         file="skill.md"),
    Case("byte order mark", "\ufeff" + md(), False, "byte order mark"),
    Case("CRLF line endings", md().replace("\n", "\r\n"), True),
    Case("not UTF-8", md(description="Looks at caf\xe9.").encode("latin-1"), False,
         "cannot read SKILL.md", bug="undecodable"),
]


def skill(tmp_path: Path, case: Case) -> Path:
    folder = tmp_path / case.folder
    folder.mkdir()
    text = case.text if isinstance(case.text, bytes) else case.text.encode("utf-8")
    (folder / case.file).write_bytes(text)
    return folder


def spec_errors(folder: Path) -> list[Problem]:
    """lint's spec layer: its errors with only the spec's keys allowed, as --spec-only runs."""
    return [p for p in lint_skill(folder, frozenset(), spec_only=True) if p.level == "error"]


def test_every_bug_named_has_a_case() -> None:
    assert {c.bug for c in CORPUS} - {None} == set(REFERENCE_BUGS)
    assert len({c.id for c in CORPUS}) == len(CORPUS)


@pytest.mark.parametrize("case", CORPUS, ids=[c.id for c in CORPUS])
def test_lint_and_the_reference_agree_but_where_the_reference_is_wrong(
        tmp_path: Path, case: Case) -> None:
    folder = skill(tmp_path, case)
    errors = spec_errors(folder)
    assert (not errors) == case.valid, [str(p) for p in errors]
    if not case.valid:
        assert any(case.says in f"{p.message}. {p.fix}" for p in errors), \
            [str(p) for p in errors]
    if case.bug == "undecodable":
        with pytest.raises(UnicodeDecodeError):
            validate(folder)
        return
    reference = validate(folder)
    if case.bug is None:
        assert (not reference) == case.valid, reference
    else:
        assert (not reference) != case.valid, (
            f"skills-ref no longer has the bug '{case.bug}' here; drop it from the case: "
            f"{reference}")


@pytest.mark.parametrize("case", CORPUS, ids=[c.id for c in CORPUS])
def test_each_problem_is_one_line_with_its_fix(tmp_path: Path, case: Case) -> None:
    for problem in lint_skill(skill(tmp_path, case), frozenset(), spec_only=True):
        assert "\n" not in str(problem) and problem.fix, problem
        assert problem.line >= 1 and problem.level in ("error", "warning"), problem


SHIPPED = sorted(p.parent.name for p in SKILLS_ROOT.glob("*/SKILL.md"))


@pytest.mark.parametrize("name", SHIPPED)
def test_the_shipped_skills_pass_both(name: str) -> None:
    assert spec_errors(SKILLS_ROOT / name) == []
    assert validate(SKILLS_ROOT / name) == []


def lint(folder: Path, *flags: str) -> tuple[int, list[dict[str, object]]]:
    """`skillrail lint FOLDER --json FLAGS`, in-process: its status and problems."""
    result = skillrail(["lint", str(folder), "--json", *flags])
    found: list[dict[str, object]] = json.loads(result.stdout)
    return result.returncode, found


#: A value lint accepts for each extension key, on the key's line (from line 4 on; `hooks`,
#: last, runs on to the next).
EXTENSIONS = {
    "execution_mode": "autonomous", "max_iterations": "20", "max_retries_per_tool": "5",
    "timeout_per_iteration": "30s", "early_termination": "true", "context": "fork",
    "agent": "Explore", "model": "haiku", "disallowed-tools": "Bash", "argument-hint": "'[path]'",
    "when_to_use": "When asked to look.", "user-invocable": "true",
    "disable-model-invocation": "false", "version": "'1.0'",
    "hooks": "\n  Stop:\n    - hooks:\n        - type: command\n          command: echo done",
}


def test_the_extension_keys_are_accepted_by_default_and_refused_only_by_the_spec_layer(
        tmp_path: Path) -> None:
    """Claude Code's keys and skillrail's profile: no problem by default; under --spec-only one
    error per key, on its line, naming it as outside the spec (as the reference refuses it), and
    nothing else."""
    assert set(EXTENSIONS) == EXTENSION_KEYS
    folder = skill(tmp_path, Case("extensions", md(*(f"{k}: {v}" for k, v in EXTENSIONS.items())),
                                  True))
    assert lint(folder) == (0, [])
    status, found = lint(folder, "--spec-only")
    assert status == 1
    assert [(p["line"], p["level"]) for p in found] == [
        (line, "error") for line in range(4, 4 + len(EXTENSIONS))], found
    for key, problem in zip(EXTENSIONS, found, strict=True):
        assert f"frontmatter key '{key}' is a" in str(problem["message"])
        assert str(problem["message"]).endswith("outside the plain Agent Skills spec")
    [reference] = validate(folder)
    assert all(key in reference for key in EXTENSIONS), reference


@pytest.mark.parametrize(("keys", "says"), [
    ({"name": "café"}, "name 'café' has characters outside a-z, 0-9 and '-', which Claude's"),
    ({"description": "Looks <around>."}, "the description contains '<' or '>', which Claude's"),
], ids=["non-ASCII name", "angle brackets"])
def test_claudes_stricter_rules_are_errors_by_default_and_warnings_in_the_spec_layer(
        tmp_path: Path, keys: dict[str, str], says: str) -> None:
    folder = skill(tmp_path, Case("claude", md(**keys), True, folder=keys.get("name", "looker")))
    assert validate(folder) == []
    for flags, status, level in (((), 1, "error"), (("--spec-only",), 0, "warning")):
        assert lint(folder, *flags) == (status, [{
            "path": str(folder / "SKILL.md"), "line": 2 if "name" in keys else 3,
            "level": level, "message": says + " rules for skills refuse (the spec allows them)",
            "fix": "Rename it with a-z, 0-9 and hyphens only" if "name" in keys
            else "Write it without angle brackets"}])


@pytest.mark.parametrize("text", [md(body="").rstrip("\n"), md().replace("---\n", "--- \n")],
                         ids=["no final line break", "trailing spaces"])
def test_fences_skill_runner_cannot_read_are_spec_valid_with_a_warning(
        tmp_path: Path, text: str) -> None:
    """The spec (and the reference) take them; skillrail's own reader wants bare '---' lines
    ending with a line break, so lint says so, as a warning on the closing line."""
    folder = skill(tmp_path, Case("fences", text, True))
    assert validate(folder) == []
    status, found = lint(folder, "--spec-only")
    assert status == 0 and [(p["line"], p["level"]) for p in found] == [(4, "warning")], found
    assert "skill-runner will not read these keys" in str(found[0]["message"])
    assert found[0]["fix"] == "Make both lines exactly '---', each ending with a line break"


def test_the_errors_the_reference_was_right_about_name_the_line_and_the_fix(
        tmp_path: Path) -> None:
    folder = skill(tmp_path, Case("both", md("compatibility: " + "c" * 501, "name: looker"),
                                  False))
    status, found = lint(folder)
    assert status == 1
    assert [(p["line"], p["message"], p["fix"]) for p in found] == [
        (5, "frontmatter key 'name' is given twice, on lines 2 and 5",
         "Keep one of them: YAML loaders refuse a repeated key, or silently keep one value"),
        (4, "'compatibility' has 501 characters, more than the spec's 500",
         "Shorten it to what the skill needs (product, system packages, network access); put "
         "the detail in the body")]


def test_a_lowercase_skill_md_is_linted_and_named(tmp_path: Path) -> None:
    """`skillrail lint` on a folder, or on a root, whose skill.md is in lowercase reports it
    with the rename, instead of finding no skill there."""
    folder = skill(tmp_path, Case("lower", md(), False, file="skill.md"))
    for path in (folder, tmp_path):
        result = skillrail(["lint", str(path)])
        assert result.returncode == 1, result.stdout + result.stderr
        assert result.stdout == (
            f"{folder / 'skill.md'}:1: error: the file is named skill.md; the spec names it "
            "SKILL.md, and agents look for that name only. Rename skill.md to SKILL.md\n"
            "1 SKILL.md files: 1 errors, 0 warnings\n")
