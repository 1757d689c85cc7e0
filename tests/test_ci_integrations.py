"""The pre-commit hooks and the example GitHub Actions workflow name only `skillrail` commands
that exist, with options they accept, so neither drifts from the CLI."""

from __future__ import annotations

import re
import shlex
from typing import Any

import pytest
import yaml
from skills.lib.workflow.commands import build_parser

from .conftest import REPO

HOOKS: list[dict[str, Any]] = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
ACTIONS: dict[str, Any] = yaml.safe_load((REPO / "docs" / "ci" / "github-actions.yml").read_text())
STEPS: list[dict[str, Any]] = ACTIONS["jobs"]["check"]["steps"]


def parses(command: str) -> bool:
    """Whether `skillrail ...` parses as a real subcommand with accepted options."""
    words = shlex.split(command)
    assert words[0] == "skillrail"
    build_parser().parse_args(words[1:])  # a bad command raises UsageError
    return True


@pytest.mark.parametrize("hook", HOOKS, ids=lambda h: h["id"])
class TestPreCommitHooks:
    def test_the_entry_is_a_real_command(self, hook: dict[str, Any]) -> None:
        """Each hook's entry parses with the skillrail CLI."""
        assert parses(hook["entry"])

    def test_it_runs_once_per_commit_in_pythons_environment(self, hook: dict[str, Any]) -> None:
        """language python (pre-commit installs skillrail), no file names passed."""
        assert (hook["language"], hook["pass_filenames"]) == ("python", False)

    def test_it_runs_when_a_skill_script_changes(self, hook: dict[str, Any]) -> None:
        """The files pattern matches a skill's script and not an unrelated file."""
        assert re.search(hook["files"], ".claude/skills/triage/scripts/triage.py")
        assert not re.search(hook["files"], "src/app.py")


def test_the_hooks_are_the_checks_ci_runs() -> None:
    """validate and the two freshness checks, under stable ids."""
    assert [h["id"] for h in HOOKS] == ["skillrail-validate", "skillrail-migration-status",
                                        "skillrail-docs", "skillrail-lint"]
    assert [h["entry"] for h in HOOKS] == ["skillrail validate",
                                           "skillrail migration-status --check",
                                           "skillrail docs --check", "skillrail lint"]


def test_the_example_workflow_installs_tests_and_checks() -> None:
    """checkout, Python 3.11, install with the test extra, pytest, then the checks."""
    uses = [s["uses"].split("@")[0] for s in STEPS if "uses" in s]
    assert uses == ["actions/checkout", "actions/setup-python"]
    assert STEPS[1]["with"]["python-version"] == "3.11"
    runs = [s["run"] for s in STEPS if "run" in s]
    assert runs == ["pip install -e '.[test]'", "pytest", "skillrail validate --format github",
                    "skillrail migration-status --check", "skillrail docs --check",
                    "skillrail simulate --all"]
    assert all(parses(r) for r in runs if r.startswith("skillrail "))
