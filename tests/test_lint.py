"""`skillrail lint`: a table of malformed SKILL.md files, each caught with the line and the fix,
and the shipped skills clean."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .test_commands import GOOD, make_skills, skillrail

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
