"""The team ledger (issue 22): two clones of one repository, on two paths with two homes and two
users (two machines, as far as the ledger can tell), sharing one PostgreSQL database. What one
clone's run teaches skill-runner shows in the other's next plan; `status` and `stats` in either
see both clones' runs, and a clone of another repository sees none of them. The `ledger:` key
of .claude/skillrail.yaml and SKILLRAIL_LEDGER choose the ledger, bad settings said in one
line."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import REPO
from .test_planner import Agent
from .test_skill_runner import FIXTURE, RUNNER, plan_to_approval

CLI = [sys.executable, "-m", "skills.lib.workflow.commands"]


def clone(where: Path, origin: str) -> Path:
    """A repository at `where` whose origin is `origin` (spelled as a user's clone has it)."""
    where.mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=where, check=True)
    subprocess.run(["git", "remote", "add", "origin", origin], cwd=where, check=True)
    return where


@pytest.fixture
def machines(tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """Alice's and Bob's clones of github.com/org/app (https and ssh spellings), and Carol's of
    another repository, each with its own SKILLRAIL_HOME; every one on the team's database."""
    monkeypatch.setenv("SKILLRAIL_LEDGER", pg_url)
    found = {"alice": clone(tmp_path / "laptop" / "src" / "app", "https://github.com/org/app.git"),
             "bob": clone(tmp_path / "ci-runner" / "work" / "app-7", "git@github.com:org/app.git"),
             "carol": clone(tmp_path / "desk" / "other", "https://github.com/org/other.git")}
    for name in found:
        (tmp_path / f"home-{name}").mkdir()
    return found


def as_user(monkeypatch: pytest.MonkeyPatch, machines: dict[str, Path], name: str) -> Agent:
    """An agent in `name`'s clone, with `name`'s home and login (what the ledger records)."""
    monkeypatch.setenv("SKILLRAIL_HOME", str(machines[name].parents[2] / f"home-{name}"))
    monkeypatch.setenv("USER", name)
    monkeypatch.setenv("LOGNAME", name)
    return Agent(machines[name])


def cli(agent: Agent, *args: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([*CLI, *args], capture_output=True, text=True, cwd=agent.repo,
                          env={**os.environ, "PYTHONPATH": str(REPO / ".claude")}, timeout=60)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def planning_prompt(agent: Agent) -> str:
    doc = agent.run([sys.executable, str(RUNNER), "--step", "1", f"--skill={FIXTURE}"])
    return doc.findtext("DO/action", "")


def run_and_teach(agent: Agent, feedback: str) -> str:
    """A release-notes plan run to its end in `agent`'s clone, the user's feedback last; the
    plan run's id."""
    sealed = agent.follow(plan_to_approval(agent), "approve")
    doc = agent.run(shlex.split(sealed.findtext("DO/action", "")
                                .split("follow the steps it prints: ")[1]))
    doc = agent.follow(agent.follow(doc, RESULT_COLLECT="3 merges"), "pass",
                       CHANGES="#12 add --json; #14 fix crash")
    (agent.repo / "RELEASE_NOTES.md").write_text("# 2.4.0\n- #12 add --json\n")
    doc = agent.follow(doc, RESULT_WRITE="wrote RELEASE_NOTES.md")
    doc = agent.follow(doc, "pass", NOTES_FILE="RELEASE_NOTES.md")
    assert doc.get("id") == "feedback", doc.get("id")
    done = agent.follow(doc, "feedback", FEEDBACK=feedback)
    assert done.get("id") == "learn" and done.find("NEXT/complete") is not None
    return done.get("run", "")


def test_a_case_learned_in_one_clone_improves_the_next_plan_in_another(
        machines: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    bob = as_user(monkeypatch, machines, "bob")
    assert "No earlier run of this skill was recorded." in planning_prompt(bob)

    alice = as_user(monkeypatch, machines, "alice")
    taught = run_and_teach(alice, "Group by PR label, not title")

    bob = as_user(monkeypatch, machines, "bob")
    prompt = planning_prompt(bob)
    assert "What earlier runs of this skill taught" in prompt
    assert f"feedback ({taught}): Group by PR label, not title" in prompt
    assert f"success ({taught}): passed in order: collect" in prompt


def test_status_and_stats_are_the_teams_in_every_clone_of_the_repository(
        machines: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    alice = as_user(monkeypatch, machines, "alice")
    taught = run_and_teach(alice, "Keep it short")
    bob = as_user(monkeypatch, machines, "bob")
    started = bob.run([sys.executable, str(RUNNER), "--step", "1", f"--skill={FIXTURE}"]
                      ).get("run")

    for name in ("alice", "bob"):
        agent = as_user(monkeypatch, machines, name)
        listed = json.loads(cli(agent, "status", "--json").stdout)
        assert listed["workspace"] == "github.com/org/app"
        ids = {r["run"] for r in listed["runs"]}
        assert started in ids  # bob's planning run, still active, shows in alice's clone too
        stats = json.loads(cli(agent, "stats", "--json").stdout)
        runner = next(r for r in stats if r["skill"] == "skill-runner")
        assert runner["runs"] >= 3 and runner["completed"] >= 2, runner  # plan runs of both
    carol = as_user(monkeypatch, machines, "carol")
    assert json.loads(cli(carol, "status", "--json").stdout)["runs"] == []
    assert taught in {r["run"] for r in json.loads(cli(carol, "runs", "--json")  # the ledger's
                                                   .stdout)["runs"]}


def test_the_projects_ledger_key_chooses_the_team_ledger_and_the_environment_wins(
        machines: dict[str, Path], pg_url: str, monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> None:
    alice = as_user(monkeypatch, machines, "alice")
    monkeypatch.delenv("SKILLRAIL_LEDGER")
    (alice.repo / ".claude").mkdir()
    (alice.repo / ".claude" / "skillrail.yaml").write_text(f"version: 2\nledger: '{pg_url}'\n")
    run = alice.run([sys.executable, str(RUNNER), "--step", "1", f"--skill={FIXTURE}"]).get(
        "run", "")
    doctor = json.loads(cli(alice, "doctor", "--json").stdout)
    said = next(c["what"] for c in doctor["checks"] if c["what"].startswith("run ledger"))
    assert said.startswith("run ledger: PostgreSQL postgresql://") and \
        "(from `ledger:` in .claude/skillrail.yaml)" in said
    assert run in cli(alice, "runs").stdout
    monkeypatch.setenv("SKILLRAIL_LEDGER", str(tmp_path / "mine.sqlite3"))
    assert run not in cli(alice, "runs").stdout  # the environment names another ledger
    assert (tmp_path / "mine.sqlite3").exists()


@pytest.mark.parametrize(("setting", "said"), [
    ("ledger: postgresql://alice:hunter2@db/runs",
     "ledger: the URL holds a password, and this file is shared through git: remove it from "
     "the URL and keep it in ~/.pgpass or PGPASSWORD"),
    ("ledger: mysql://db/runs", "ledger: 'mysql://db/runs' is not a PostgreSQL URL"),
])
def test_a_bad_ledger_key_is_refused_in_one_line(tmp_path: Path, setting: str,
                                                 said: str) -> None:
    project = clone(tmp_path / "app", "https://github.com/org/app.git")
    (project / ".claude").mkdir()
    (project / ".claude" / "skillrail.yaml").write_text(f"version: 2\n{setting}\n")
    proc = cli(Agent(project), "gateway", "policy")
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1
    assert said in proc.stderr and "hunter2" not in proc.stderr


def test_a_ledger_of_a_scheme_skillrail_does_not_speak_is_refused_before_any_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKILLRAIL_LEDGER", "mysql://db/runs")
    proc = cli(Agent(tmp_path), "runs")
    assert proc.returncode == 1 and proc.stderr == (
        "error: the run ledger's setting names a 'mysql' database (mysql://db/runs), which "
        "skillrail does not speak. Name a PostgreSQL server (postgresql://HOST/DB) in "
        "SKILLRAIL_LEDGER or in `ledger:` of .claude/skillrail.yaml, or unset it for this "
        "machine's SQLite ledger\n")
    assert list(tmp_path.iterdir()) == []  # no 'mysql:' folder taken for the ledger's


def test_without_psycopg_a_postgresql_ledger_names_the_install_command(
        pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKILLRAIL_LEDGER", pg_url)
    hidden = tmp_path / "hide" / "psycopg"  # a package that fails to import, as a missing one
    hidden.mkdir(parents=True)
    (hidden / "__init__.py").write_text("raise ModuleNotFoundError(name='psycopg')\n")
    proc = subprocess.run([*CLI, "runs"], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": f"{hidden.parent}:{REPO / '.claude'}"})
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1, proc.stderr
    assert "the Python package 'psycopg[binary]' is missing" in proc.stderr
    assert "-m pip install 'psycopg[binary]'" in proc.stderr


def test_a_step_on_the_sqlite_ledger_never_imports_the_driver(
        pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The driver's import is most of a PostgreSQL step's cost (README): a step that starts a
    run on this machine's SQLite ledger imports none of it; one on the team's imports it."""
    script = REPO / ".claude" / "skills" / "problem-analysis" / "scripts" / "problem-analysis.py"
    monkeypatch.setenv("SKILLRAIL_HOME", str(tmp_path / "home"))

    def drivers_imported(**env: str) -> list[str]:
        proc = subprocess.run([sys.executable, "-X", "importtime", str(script), "--step", "1"],
                              capture_output=True, text=True, cwd=tmp_path, timeout=60,
                              env={**os.environ, **env})
        assert proc.returncode == 0 and ' run="pa-' in proc.stdout, proc.stderr[-2000:]
        # -X importtime: a line per module, its name last (indented by how deep it was imported).
        return [line for line in proc.stderr.splitlines()
                if line.rsplit("|", 1)[-1].strip() in ("psycopg", "psycopg_binary")]

    monkeypatch.delenv("SKILLRAIL_LEDGER", raising=False)
    assert drivers_imported() == []
    assert len(drivers_imported(SKILLRAIL_LEDGER=pg_url)) >= 1
