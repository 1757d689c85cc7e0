"""`skillrail lint` and skillrail's profile for skill-runner (the SKILL.md keys that tune an
autonomous run): accepted and their values checked by default, each bad value refused once with
its line and fix, and every key refused under --spec-only as outside the plain spec."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .test_commands import GOOD, make_skills, skillrail

#: The frontmatter's keys start at line 4, after '---', name and description.
PROFILE = """execution_mode: autonomous
max_iterations: 20
max_retries_per_tool: 5
timeout_per_iteration: 30s
early_termination: true
context: fork
agent: Explore
model: haiku
"""


def looker(tmp_path: Path, keys: str) -> Path:
    """A skill folder whose SKILL.md sets `keys` after its name and description."""
    root = make_skills(tmp_path, {"looker": GOOD.format(name="looker")})
    (root / "looker" / "SKILL.md").write_text(
        "---\nname: looker\ndescription: Looks around. Use when asked to look.\n" + keys
        + "---\n\nRun: python3 ${CLAUDE_SKILL_DIR}/scripts/looker.py --step 1\n")
    return root / "looker"


def problems(folder: Path, *flags: str) -> list[dict[str, object]]:
    result = skillrail("lint", str(folder), "--json", *flags)
    assert result.returncode == 1, result.stdout + result.stderr
    found: list[dict[str, object]] = json.loads(result.stdout)
    return found


def test_the_whole_profile_lints_clean(tmp_path: Path) -> None:
    result = skillrail("lint", str(looker(tmp_path, PROFILE)))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 errors, 0 warnings" in result.stdout


BAD = [
    ("timeout_per_iteration: soon\n", "timeout_per_iteration", "'soon' is not a duration",
     "e.g. 30s, 5m, 1h"),
    ("timeout_per_iteration: 0s\n", "timeout_per_iteration", "more than 0", "e.g. 30s"),
    ("max_iterations: 0\n", "max_iterations", "greater than or equal to 2", "from 2 to 100"),
    ("max_iterations: 101\n", "max_iterations", "less than or equal to 100", "from 2 to 100"),
    ("max_iterations: '20'\n", "max_iterations", "valid integer", "whole number"),
    ("max_retries_per_tool: 11\n", "max_retries_per_tool", "less than or equal to 10",
     "from 0 to 10"),
    ("execution_mode: fast\n", "execution_mode", "'autonomous' or 'simple'",
     "execution_mode: autonomous"),
    ("early_termination: maybe\n", "early_termination", "valid boolean", "true or false"),
    ("context: spoon\n", "context", "'fork'", "context: fork"),
    ("agent: Explore\n", "agent", "context is not fork", "set context: fork"),
    ("context: fork\nagent: ''\n", "agent", "at least 1 character", "Name a sub-agent"),
]


@pytest.mark.parametrize(("keys", "key", "message", "fix"), BAD, ids=[b[0].strip() for b in BAD])
def test_a_bad_value_is_refused_once_with_line_and_fix(tmp_path: Path, keys: str, key: str,
                                                       message: str, fix: str) -> None:
    line = 4 + keys.splitlines().index(next(k for k in keys.splitlines() if k.startswith(key)))
    found = [p for p in problems(looker(tmp_path, keys)) if key in str(p["message"])]
    assert len(found) == 1, found
    assert found[0]["line"] == line and found[0]["level"] == "error", found
    assert message in str(found[0]["message"]) and fix in str(found[0]["fix"]), found


def test_the_text_names_file_line_key_and_fix(tmp_path: Path) -> None:
    folder = looker(tmp_path, "max_iterations: 20\ntimeout_per_iteration: soon\n")
    result = skillrail("lint", str(folder))
    assert result.returncode == 1
    assert (f"{folder / 'SKILL.md'}:5: error: timeout_per_iteration: 'soon' is not a duration. "
            "Write a duration: a number with a unit, e.g. 30s") in result.stdout
    assert "1 errors, 0 warnings" in result.stdout


def test_a_value_with_a_line_break_stays_on_one_line(tmp_path: Path) -> None:
    result = skillrail("lint", str(looker(tmp_path, 'timeout_per_iteration: "so\\non"\n')))
    assert result.returncode == 1
    assert "'so\\non' is not a duration" in result.stdout
    assert len(result.stdout.splitlines()) == 2, result.stdout  # the problem and the summary


def test_a_misspelt_key_is_refused_once_with_did_you_mean(tmp_path: Path) -> None:
    found = problems(looker(tmp_path, "model: haiku\nmax_iteration: 3\n"))
    assert len(found) == 1, found
    assert found[0]["line"] == 5
    assert "unknown frontmatter key 'max_iteration'" in str(found[0]["message"])
    assert "Did you mean 'max_iterations'?" in str(found[0]["fix"])


def test_spec_only_refuses_every_key_as_outside_the_spec(tmp_path: Path) -> None:
    folder = looker(tmp_path, PROFILE.replace("max_iterations: 20", "max_iterations: 0"))
    found = problems(folder, "--spec-only")
    keys = [line.partition(":")[0] for line in PROFILE.splitlines()]
    assert [p["line"] for p in found] == list(range(4, 4 + len(keys))), found
    for key, problem in zip(keys, found, strict=True):
        whose = "Claude Code key" if key in ("context", "agent", "model") else \
            "key of skillrail's profile for skill-runner"
        assert problem["message"] == (f"frontmatter key '{key}' is a {whose}, outside the plain "
                                      "Agent Skills spec"), problem
        assert f"--allow-field {key}" in str(problem["fix"])


def test_a_key_allowed_under_spec_only_has_its_value_checked(tmp_path: Path) -> None:
    folder = looker(tmp_path, "max_iterations: 0\n")
    found = problems(folder, "--spec-only", "--allow-field", "max_iterations")
    assert [(p["line"], "greater than or equal to 2" in str(p["message"])) for p in found] == \
        [(4, True)], found
