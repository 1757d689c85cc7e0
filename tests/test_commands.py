"""The `skillrail` command: list, validate and describe, run as a person or CI would."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import REPO, SKILLS_ROOT
from .test_skills import BOOTSTRAP

GOOD = BOOTSTRAP + '''
from skills.lib.workflow import Outcome, Rework, StepDef, Workflow, main, register_workflow

WORKFLOW = register_workflow(Workflow(name="{name}", steps=[
    StepDef("look", "Look", actions=["Look around."],
            next={{"iterate": Rework("look", 3, "done"), "ok": "done"}},
            when={{"iterate": "not seen enough", "ok": "seen enough"}}),
    StepDef("done", "Done", next={{Outcome.OK: None}}),
]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
'''

BROKEN = BOOTSTRAP + '''
from skills.lib.workflow import StepDef, Workflow, register_workflow

register_workflow(Workflow(name="broken", steps=[
    StepDef("a", "A", next={"ok": "bb"}),
    StepDef("b", "B", next={"ok": "a"}),
    StepDef("orphan", "Orphan"),
]))
'''


def skillrail(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "skills.lib.workflow.commands", *args],
                          capture_output=True, text=True, cwd=cwd, timeout=120,
                          env={"PYTHONPATH": str(REPO / ".claude"), "PATH": "/usr/bin:/bin"})


def make_skills(tmp_path: Path, scripts: dict[str, str]) -> Path:
    """A skills root in tmp_path with one skill folder per script, linking the framework in."""
    root = tmp_path / ".claude" / "skills"
    root.mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "lib").symlink_to(SKILLS_ROOT / "lib")
    for name, source in scripts.items():
        (root / name / "scripts").mkdir(parents=True)
        (root / name / "scripts" / f"{name}.py").write_text(source)
    return root


class TestValidate:
    def test_shipped_skills_pass(self) -> None:
        """`skillrail validate` on this repository finds nothing and exits 0."""
        proc = skillrail("validate")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "match the protocol schema" in proc.stdout

    def test_every_finding_of_every_skill_is_reported(self, tmp_path: Path) -> None:
        """A broken skill beside a good one: exit 1, each finding with code, step and fix."""
        root = make_skills(tmp_path, {"good": GOOD.format(name="good"), "broken": BROKEN})
        proc = skillrail("validate", "--root", str(root), "--json")
        assert proc.returncode == 1
        report = json.loads(proc.stdout)
        assert report["workflows"] == ["good"]
        text = "\n".join(report["problems"])
        for code in ("W003", "W005", "W006"):
            assert code in text
        assert "Did you mean 'b'?" in text

    def test_an_empty_root_is_a_failure(self, tmp_path: Path) -> None:
        """Validating a folder with no skills exits 1: CI must not pass on nothing."""
        root = make_skills(tmp_path, {})
        proc = skillrail("validate", "--root", str(root))
        assert proc.returncode == 1
        assert "no skill scripts found" in proc.stdout


class TestDescribe:
    def test_shows_loops_caps_and_the_worst_case(self, tmp_path: Path) -> None:
        """describe lists steps, the loop with its cap, and the static step bound."""
        root = make_skills(tmp_path, {"good": GOOD.format(name="good")})
        facts = json.loads(skillrail("describe", "good", "--root", str(root), "--json").stdout)
        assert [s["id"] for s in facts["steps"]] == ["look", "done"]
        assert facts["loops"] == [{"steps": ["look"], "reworks": ["look:iterate"], "cap": 3}]
        assert facts["worst_case_steps"] == 4

    def test_unknown_name_is_a_usage_error_with_a_suggestion(self) -> None:
        """A misspelt skill name: exit 2, one line, did-you-mean."""
        proc = skillrail("describe", "problem-analysys")
        assert proc.returncode == 2
        assert proc.stdout == ""
        assert proc.stderr.count("\n") == 1
        assert "Did you mean 'problem-analysis'?" in proc.stderr


class TestList:
    def test_lists_each_workflow_with_its_script(self) -> None:
        """list names every shipped workflow."""
        proc = skillrail("list", "--json")
        assert proc.returncode == 0
        names = {row["workflow"] for row in json.loads(proc.stdout)["workflows"]}
        assert {"problem-analysis", "decision-critic"} <= names


@pytest.mark.parametrize("args", [[], ["bogus"], ["describe"], ["validate", "--nope"]])
def test_bad_usage_exits_2_with_one_line(args: list[str]) -> None:
    """Usage errors are one stderr line and exit 2, never argparse's usage dump."""
    proc = skillrail(*args)
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1


def test_a_missing_dependency_names_the_install_command(tmp_path: Path) -> None:
    """With lxml unimportable, validate says which package to install instead of a traceback."""
    fake = tmp_path / "fake" / "lxml"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'lxml'\", name='lxml')\n")
    proc = subprocess.run(
        [sys.executable, "-m", "skills.lib.workflow.commands", "validate"], cwd=REPO,
        capture_output=True, text=True, timeout=120,
        env={"PYTHONPATH": f"{tmp_path / 'fake'}:{REPO / '.claude'}", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert "pip install lxml" in proc.stderr
