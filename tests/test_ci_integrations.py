"""The pre-commit hooks and the example GitHub Actions workflow name only `skillrail` commands
that exist, with options they accept, so neither drifts from the CLI."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from skills.lib.workflow.commands import build_parser

from .conftest import REPO
from .test_commands import skillrail

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
    """validate, lint and the two freshness checks (migration status: this repository's), under
    stable ids."""
    assert [h["id"] for h in HOOKS] == ["skillrail-validate", "skillrail-migration-status",
                                        "skillrail-docs", "skillrail-lint"]
    assert [h["entry"] for h in HOOKS] == ["skillrail validate",
                                           "skillrail migration-status --check",
                                           "skillrail docs --check", "skillrail lint"]


def test_the_example_workflow_installs_skillrail_and_runs_the_three_checks() -> None:
    """checkout, Python 3.11, skillrail installed at a pinned version, then validate, lint and
    simulate: what applies in a project that uses skills (not this repository's own checks)."""
    uses = [s["uses"].split("@")[0] for s in STEPS if "uses" in s]
    assert uses == ["actions/checkout", "actions/setup-python"]
    assert STEPS[1]["with"]["python-version"] == "3.11"
    runs = [s["run"] for s in STEPS if "run" in s]
    assert runs[0].startswith("pip install \"skillrail @ git+") and "@v" in runs[0]
    assert runs[1:] == ["skillrail validate --format github", "skillrail lint",
                        "skillrail simulate --all"]
    assert all(parses(r) for r in runs[1:])


@pytest.mark.slow  # the example CI workflow, every step in a process
def test_the_example_workflow_passes_on_a_project_set_up_with_init(tmp_path: Path) -> None:
    """Its checks, run as CI would in a project that `skillrail init` set up and that wrote a
    skill of its own with `skillrail new`, and another with checks (the release-check
    fixture: the project's tests with a fix loop, a reviewed changelog, the user's approval),
    pass: simulate walks the checks' edges too."""
    import shutil

    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    for argv in (["init", "problem-analysis", "decision-critic"], ["new", "triage-bugs"]):
        done = skillrail(*argv, cwd=tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr
    shutil.copytree(REPO / "tests" / "fixtures" / "release-check",
                    tmp_path / ".claude" / "skills" / "release-check")
    for run in [s["run"] for s in STEPS if "run" in s][1:]:
        done = skillrail(*shlex.split(run)[1:], cwd=tmp_path)
        assert done.returncode == 0, f"{run}: {done.stdout}{done.stderr}"
