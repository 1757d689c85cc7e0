"""`skillrail lint`: a table of malformed SKILL.md files, each caught with the line and the fix;
the placeholders of a new skill and a stale generated section, as warnings; and the shipped
skills clean."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from .test_commands import GOOD, make_skills, skillrail
from .test_scaffold import new

HEAD = "---\nname: looker\ndescription: Looks around. Use when asked to look.\n---\n"
BODY = "\nRun: python3 ${CLAUDE_SKILL_DIR}/scripts/looker.py --step 1\n"

CASES = [
    ("no frontmatter", "# Looker\n" + BODY, 1, "no frontmatter"),
    ("unquoted colon", "---\nname: looker\ndescription: Looks: around\n---\n" + BODY, 3,
     "Quote the value: a ': ' inside an unquoted value ends it"),
    ("bad name", HEAD.replace("name: looker", "name: Looker_2") + BODY, 2,
     "is not lowercase letters, digits and single hyphens"),
    ("name not the folder", HEAD.replace("name: looker", "name: seer") + BODY, 2,
     "differs from its folder 'looker'"),
    ("missing description", "---\nname: looker\n---\n" + BODY, 2,
     "'description' is missing or empty"),
    ("angle brackets", HEAD.replace("Looks around.", "Looks <around>.") + BODY, 3,
     "contains '<' or '>'"),
    ("too long", HEAD.replace("Looks around.", "x" * 1100) + BODY, 3, "more than 1024"),
    ("unknown key", HEAD.replace("---\n\n", "") .replace("description:", "colour: red\n"
                                                          "description:") + BODY, 3,
     "unknown frontmatter key 'colour'"),
    ("misspelt key", HEAD.replace("description:", "allowed-tool: Bash\ndescription:") + BODY,
     3, "Did you mean 'allowed-tools'?"),
    ("wrong script", HEAD + BODY.replace("looker.py", "lookr.py"), 6,
     "names scripts/lookr.py, which does not exist"),
    ("unknown flag", HEAD + BODY.replace("--step 1", "--step 1 --topic 'a b'"), 6,
     "passes --topic, which scripts/looker.py does not accept"),
]


@pytest.mark.parametrize(("case", "text", "line", "message"), CASES, ids=[c[0] for c in CASES])
def test_a_malformed_skill_md_is_caught_with_line_and_fix(tmp_path: Path, case: str, text: str,
                                                          line: int, message: str) -> None:
    root = make_skills(tmp_path, {"looker": GOOD.format(name="looker")})
    (root / "looker" / "SKILL.md").write_text(text)
    result = skillrail("lint", str(root / "looker"), "--json")
    assert result.returncode == 1, result.stdout
    problems = json.loads(result.stdout)
    assert any(p["line"] == line and message in p["message"] + ". " + p["fix"]
               for p in problems), problems


def test_a_long_description_is_a_warning_not_an_error(tmp_path: Path) -> None:
    root = make_skills(tmp_path, {"looker": GOOD.format(name="looker")})
    (root / "looker" / "SKILL.md").write_text(HEAD.replace("Looks around.", "y" * 600) + BODY)
    result = skillrail("lint", str(root / "looker"))
    assert result.returncode == 0
    assert ":3: warning: the description has" in result.stdout


def test_extension_keys_are_refused_under_spec_only(tmp_path: Path) -> None:
    root = make_skills(tmp_path, {"looker": GOOD.format(name="looker")})
    (root / "looker" / "SKILL.md").write_text(
        HEAD.replace("description:", "model: sonnet\ndescription:") + BODY)
    assert skillrail("lint", str(root / "looker")).returncode == 0
    strict = skillrail("lint", str(root / "looker"), "--spec-only")
    assert strict.returncode == 1
    assert "frontmatter key 'model' is a Claude Code key, outside the plain" in strict.stdout
    assert skillrail("lint", str(root / "looker"), "--spec-only", "--allow-field",
                     "model").returncode == 0


def test_the_shipped_skills_lint_clean() -> None:
    result = skillrail("lint")
    assert result.returncode == 0, result.stdout
    assert "0 errors, 0 warnings" in result.stdout


def fresh_skill(tmp_path: Path) -> tuple[Path, Path]:
    """A skills root and the skill `skillrail new review-pr` made in it."""
    root = make_skills(tmp_path, {})
    assert new(root, "review-pr").returncode == 0
    return root, root / "review-pr"


def placeholder_lines(folder: Path) -> set[tuple[str, int]]:
    """(file, line) of each `TODO: ` and `TODO - ` in the skill's files, as grep finds them."""
    files = [folder / "SKILL.md", folder / "README.md", *(folder / "scripts").rglob("*.py")]
    return {(str(path), number) for path in files
            for number, line in enumerate(path.read_text().splitlines(), 1)
            if re.search(r"TODO(:| -) ", line)}


def finish(folder: Path) -> None:
    """Write the skill's own text where each placeholder was."""
    for path in [folder / "SKILL.md", folder / "README.md", *(folder / "scripts").rglob("*.py")]:
        path.write_text(re.sub(r"TODO(:| -) ", "", path.read_text()))


def lint_json(folder: Path) -> tuple[int, list[dict[str, Any]]]:
    result = skillrail("lint", str(folder), "--json")
    return result.returncode, json.loads(result.stdout)


class TestLeftovers:
    def test_each_placeholder_of_a_new_skill_is_a_warning_with_its_file_and_line(
            self, tmp_path: Path) -> None:
        """SKILL.md, README.md and the script: one warning per line holding a placeholder,
        naming it and the fix; warnings only, so lint exits 0."""
        _, folder = fresh_skill(tmp_path)
        expected = placeholder_lines(folder)
        assert {path.rsplit("/", 1)[1] for path, _ in expected} == {
            "SKILL.md", "README.md", "review-pr.py"}
        status, problems = lint_json(folder)
        assert status == 0
        assert {(p["path"], p["line"]) for p in problems} == expected
        assert all(p["level"] == "warning" and "placeholder from `skillrail new`" in p["message"]
                   and p["fix"] == "Replace it with the skill's own text" for p in problems)
        shown = skillrail("lint", str(folder)).stdout
        assert f"{folder / 'SKILL.md'}:3: warning: a placeholder" in shown
        assert f"1 SKILL.md files: 0 errors, {len(expected)} warnings" in shown

    def test_a_skill_with_its_placeholders_replaced_lints_clean(self, tmp_path: Path) -> None:
        root, folder = fresh_skill(tmp_path)
        finish(folder)
        assert skillrail("validate", "--root", str(root)).returncode == 0
        linted = skillrail("lint", str(folder))
        assert linted.returncode == 0 and "0 errors, 0 warnings" in linted.stdout, linted.stdout

    def test_a_stale_generated_section_is_a_warning_with_the_command_that_fixes_it(
            self, tmp_path: Path) -> None:
        """A step renamed in the script leaves SKILL.md's section behind: one warning on the
        section's first line, naming `skillrail docs --write`; after it, lint is clean."""
        root, folder = fresh_skill(tmp_path)
        finish(folder)
        script = folder / "scripts" / "review-pr.py"
        script.write_text(script.read_text().replace('"Do the work"', '"Read the change"'))
        status, problems = lint_json(folder)
        start = (folder / "SKILL.md").read_text().split("\n").index(
            "<!-- skillrail:workflow:start -->") + 1
        assert status == 0 and [(p["line"], p["level"]) for p in problems] == [
            (start, "warning")]
        assert "out of date with the skill's scripts" in problems[0]["message"]
        fix = f"skillrail docs --write review-pr --root {root}"
        assert fix in problems[0]["fix"]
        assert skillrail(*fix.split()[1:]).returncode == 0
        assert lint_json(folder) == (0, [])
