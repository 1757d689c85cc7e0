"""The `skillrail` command: list, validate and describe, run as a person or CI would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from .conftest import REPO, SKILLS_ROOT

#: BOOTSTRAP with its braces doubled, for the templates below that go through str.format.
from .harness import next_cmd_text, run_of, shell
from .hooks_support import ledger_env
from .test_skills import BOOTSTRAP

FORMAT_BOOTSTRAP = BOOTSTRAP.replace("{", "{{").replace("}", "}}")

GOOD = FORMAT_BOOTSTRAP + '''
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


def skillrail(*args: str, cwd: Path = REPO,
              path: str = "/usr/bin:/bin") -> subprocess.CompletedProcess[str]:
    return shell([sys.executable, "-m", "skills.lib.workflow.commands", *args], cwd=cwd,
                 env={"PYTHONPATH": str(REPO / ".claude"), "PATH": path,
                      "SKILLRAIL_HOME": os.environ["SKILLRAIL_HOME"], **ledger_env()})


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


@pytest.mark.parametrize(("command", "line"), [
    ("valdate", "error: unknown command 'valdate'. Did you mean 'validate'?\n"),
    ("descibe", "error: unknown command 'descibe'. Did you mean 'describe'?\n"),
    ("frobnicate", "error: unknown command 'frobnicate'. Run `skillrail --help` to see the "
                   "commands\n"),
    ("\x1b[2Jx", "error: unknown command '\\x1b[2Jx'. Run `skillrail --help` to see the "
                 "commands\n"),
])
def test_an_unknown_command_is_one_line_with_the_closest_command(command: str,
                                                                  line: str) -> None:
    """A misspelt command: exit 2, one line naming it (escaped) and the command it is
    closest to, not argparse's list of every choice."""
    proc = skillrail(command, "--json")
    assert (proc.returncode, proc.stdout, proc.stderr) == (2, "", line)


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


class TestRunCommands:
    """status, resume, runs and abandon over a real run of a shipped skill."""

    @staticmethod
    def start(tmp_path: Path) -> str:
        """Start a decision-critic run in tmp_path, take one step, return the run id."""
        script = str(SKILLS_ROOT / "decision-critic" / "scripts" / "decision-critic.py")
        first = subprocess.run([sys.executable, script, "--step", "1", "--decision=Use Go"],
                               capture_output=True, text=True, cwd=tmp_path, check=True)
        run_id = (run_of(ET.fromstring(first.stdout)) or "")
        subprocess.run([sys.executable, script, "--step", "challenge", "--run", run_id,
                        "--set", "RESTATEMENT=We will use Go", "--set", "ASSUMPTIONS=A1 x"],
                       capture_output=True, cwd=tmp_path, check=True)
        return run_id

    def test_status_lists_the_active_run_with_its_next_command(self, tmp_path: Path) -> None:
        """status in the run's directory shows its step and the command that comes next."""
        run_id = self.start(tmp_path)
        rows = json.loads(skillrail("status", "--json", cwd=tmp_path).stdout)["runs"]
        assert [(r["run"], r["step"]) for r in rows] == [(run_id, "challenge")]
        assert rows[0]["next"][0].endswith(f"--step verdict --run {run_id} --at 2")

    def test_status_and_resume_print_the_runs_own_interpreter(self, tmp_path: Path) -> None:
        """A run started with another interpreter (a virtual environment's, as a user's
        python3 may be) gets its commands from status and resume with that one, not with the
        interpreter skillrail itself runs on."""
        import venv

        other = tmp_path / "env"
        venv.create(other, with_pip=False, symlinks=True)
        python = str(other / "bin" / "python")
        script = str(SKILLS_ROOT / "decision-critic" / "scripts" / "decision-critic.py")
        work = tmp_path / "work"
        work.mkdir()
        first = subprocess.run([python, script, "--step", "1", "--decision=Use Go"],
                               capture_output=True, text=True, cwd=work, check=True)
        step = ET.fromstring(first.stdout)
        assert next_cmd_text(step).startswith(f"{python} ")
        rows = json.loads(skillrail("status", "--json", cwd=work).stdout)["runs"]
        assert rows[0]["next"][0].startswith(f"{python} {script} --step ")
        assert rows[0]["resume"].startswith(f"{python} {script} --run ")
        shown = ET.fromstring(skillrail("resume", (run_of(step) or ""), cwd=work).stdout)
        assert next_cmd_text(shown).startswith(f"{python} ")

    def test_resume_reprints_the_current_step_without_advancing(self, tmp_path: Path) -> None:
        """resume prints the step the run is at, twice alike, and the run stays there."""
        run_id = self.start(tmp_path)
        first, second = (skillrail("resume", run_id, cwd=tmp_path) for _ in range(2))
        assert first.returncode == 0 and first.stdout == second.stdout
        assert ET.fromstring(first.stdout).get("id") == "challenge"
        memory = ET.fromstring(first.stdout).find("memory/ASSUMPTIONS")
        assert memory is not None and memory.text == "A1 x"

    def test_abandon_ends_the_run_once(self, tmp_path: Path) -> None:
        """abandon marks the run abandoned; a second abandon is exit 1; runs shows it."""
        run_id = self.start(tmp_path)
        assert skillrail("abandon", run_id, cwd=tmp_path).returncode == 0
        again = skillrail("abandon", run_id, cwd=tmp_path)
        assert again.returncode == 1 and "already abandoned" in again.stderr
        listed = json.loads(skillrail("runs", "--json", cwd=tmp_path).stdout)["runs"]
        assert [(r["run"], r["status"]) for r in listed] == [(run_id, "abandoned")]
        assert json.loads(skillrail("status", "--json", cwd=tmp_path).stdout)["runs"] == []

    def test_resume_of_an_unknown_run_is_a_usage_error(self, tmp_path: Path) -> None:
        """An unknown run id: exit 2, one line pointing at `skillrail runs`."""
        proc = skillrail("resume", "xx-000000", cwd=tmp_path)
        assert proc.returncode == 2 and proc.stdout == ""
        assert proc.stderr.count("\n") == 1 and "skillrail runs" in proc.stderr


class TestMigrationStatus:
    def test_the_committed_file_is_fresh(self) -> None:
        """MIGRATION_STATUS.md matches the code; after a change, `--write` and commit it."""
        result = skillrail("migration-status", "--check")
        assert result.returncode == 0, result.stderr

    def test_it_counts_each_workflow_and_names_its_api(self) -> None:
        rows = {r["workflow"]: r for r in json.loads(
            skillrail("migration-status", "--json").stdout)}
        assert rows["commit-message"]["api"] == "legacy"
        assert rows["commit-message"]["review_gates"] == 1
        assert rows["problem-analysis"]["api"] == "workflow"

    def test_a_stale_file_fails_the_check_until_rewritten(self, tmp_path: Path) -> None:
        root = make_skills(tmp_path, {"looker": GOOD.format(name="looker")})
        (tmp_path / "MIGRATION_STATUS.md").write_text("# Migration status\n\nold\n")
        stale = skillrail("migration-status", "--check", "--root", str(root))
        assert stale.returncode == 1
        assert stale.stderr.startswith("error: ") and "is stale" in stale.stderr
        assert skillrail("migration-status", "--write", "--root", str(root)).returncode == 0
        assert "| looker | looker | workflow | 2 | 1 |" in (
            tmp_path / "MIGRATION_STATUS.md").read_text()
        assert skillrail("migration-status", "--check", "--root", str(root)).returncode == 0


SUB_AGENT = FORMAT_BOOTSTRAP + '''
from skills.lib.workflow import Param, StepDef, Workflow, main, register_workflow

WORKFLOW = register_workflow(Workflow(name="sub-review", params=[Param("focus", "what", {req})],
                                      steps=[StepDef("read", "Read", next={{"ok": None}})]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
'''

ORCHESTRATOR = BOOTSTRAP + '''
from skills.lib.workflow import Dispatch, StepDef, Workflow, main, register_workflow

WORKFLOW = register_workflow(Workflow(name="orchestrator", steps=[
    StepDef("review", "Review", dispatch=Dispatch("quality-reviewer", "Review it.", "PASS or FAIL",
                                                  script="scripts/qr/review.py"),
            next={"ok": None}),
]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
'''


@pytest.mark.parametrize(("sub_agent", "message"), [
    (SUB_AGENT.format(req="required=True"), "requires --focus, which the sub-agent's command "
                                            "does not give"),
    (BOOTSTRAP + "\nVALUE = 1\n", "registers no workflow"),
])
def test_validate_checks_a_dispatched_script_accepts_its_command(tmp_path: Path, sub_agent: str,
                                                                 message: str) -> None:
    """W012 across scripts: the sub-agent gets `--step 1 --parent RUN` and nothing else."""
    root = make_skills(tmp_path, {"orchestrator": ORCHESTRATOR})
    (root / "orchestrator" / "scripts" / "qr").mkdir()
    (root / "orchestrator" / "scripts" / "qr" / "review.py").write_text(sub_agent)
    result = skillrail("validate", "--root", str(root))
    assert result.returncode == 1
    assert "W012 workflow 'orchestrator', step 'review'" in result.stdout
    assert message in result.stdout


def test_validate_accepts_a_dispatched_script_with_optional_params(tmp_path: Path) -> None:
    root = make_skills(tmp_path, {"orchestrator": ORCHESTRATOR})
    (root / "orchestrator" / "scripts" / "qr").mkdir()
    (root / "orchestrator" / "scripts" / "qr" / "review.py").write_text(
        SUB_AGENT.format(req="required=False"))
    result = skillrail("validate", "--root", str(root))
    assert result.returncode == 0, result.stdout + result.stderr
