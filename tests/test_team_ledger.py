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
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from skills.lib.workflow.protocol.reading import asked

from .conftest import REPO
from .harness import cmd_text, first_action, offered, run_of
from .pgserver import PgServer
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
    return first_action(doc)


def run_and_teach(agent: Agent, feedback: str) -> str:
    """A release-notes plan run to its end in `agent`'s clone, the user's feedback last; the
    plan run's id."""
    sealed = agent.follow(plan_to_approval(agent), "approve")
    doc = agent.run(shlex.split(first_action(sealed).split("follow the steps it prints: ")[1]))
    doc = agent.follow(agent.follow(doc, RESULT_COLLECT="3 merges"), "pass",
                       CHANGES="#12 add --json; #14 fix crash")
    (agent.repo / "RELEASE_NOTES.md").write_text("# 2.4.0\n- #12 add --json\n")
    doc = agent.follow(doc, RESULT_WRITE="wrote RELEASE_NOTES.md")
    doc = agent.follow(doc, "pass", NOTES_FILE="RELEASE_NOTES.md")
    assert doc.get("id") == "feedback", doc.get("id")
    done = agent.follow(doc, "feedback", FEEDBACK=feedback)
    assert done.get("id") == "learn" and done.find("NEXT/complete") is not None
    return (run_of(done) or "")


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
    ("postgresql://alice:hunter2@db/runs", "holds a password, and that file is shared through "
     "git. Remove it from the URL (postgresql://USER@HOST/DB) and keep it in ~/.pgpass"),
    ("mysql://db/runs", "names a 'mysql' database (mysql://db/runs), which skillrail does not "
     "speak. Give a PostgreSQL URL"),
    ("postgresql:/db/runs", "is not a PostgreSQL URL: 'postgresql:/db/runs'. Write "
     "postgresql://USER@HOST/DB (two slashes after the colon)"),
    ("runs.sqlite3", "is 'runs.sqlite3', which names no ledger. Give a PostgreSQL URL"),
])
def test_a_bad_ledger_key_is_one_line_and_leaves_the_command_policy_alone(
        tmp_path: Path, setting: str, said: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The project file's `ledger:` takes a PostgreSQL URL without a password; anything else is
    the ledger's error, in one line naming the file, and never makes the file's command policy
    invalid (which would stop every skill's commands)."""
    monkeypatch.delenv("SKILLRAIL_LEDGER", raising=False)
    project = clone(tmp_path / "app", "https://github.com/org/app.git")
    (project / ".claude").mkdir()
    (project / ".claude" / "skillrail.yaml").write_text(f"version: 2\nledger: {setting}\n")
    before = sorted(project.iterdir())
    proc = cli(Agent(project), "runs")
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith(f"error: `ledger:` in {project}/.claude/skillrail.yaml ")
    assert said in proc.stderr and "hunter2" not in proc.stderr
    assert sorted(project.iterdir()) == before  # no file taken for the ledger
    assert cli(Agent(project), "gateway", "policy").returncode == 0


@pytest.mark.parametrize(("setting", "said"), [
    ("mysql://db/runs", "SKILLRAIL_LEDGER names a 'mysql' database (mysql://db/runs), which "
     "skillrail does not speak. Give a PostgreSQL URL (postgresql://USER@HOST/DB, its password "
     "in ~/.pgpass or PGPASSWORD), an absolute path to a SQLite file, or 'local' for this "
     "machine's SQLite ledger"),
    ("postgresql:/bob@/runs", "SKILLRAIL_LEDGER is not a PostgreSQL URL: 'postgresql:/bob@/runs'"),
    ("sqlite", "SKILLRAIL_LEDGER is 'sqlite', which names no ledger. Give a PostgreSQL URL"),
])
def test_a_ledger_variable_naming_no_ledger_is_refused_before_any_file(
        tmp_path: Path, setting: str, said: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKILLRAIL_LEDGER", setting)
    proc = cli(Agent(tmp_path), "runs")
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith(f"error: {said}"), proc.stderr
    assert list(tmp_path.iterdir()) == []  # no 'mysql:' or 'postgresql:' folder made


def test_local_keeps_a_shell_on_this_machines_ledger_whatever_the_project_names(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = clone(tmp_path / "app", "https://github.com/org/app.git")
    (project / ".claude").mkdir()
    (project / ".claude" / "skillrail.yaml").write_text(
        "version: 2\nledger: postgresql://nobody@/none?host=/nonexistent\n")
    monkeypatch.setenv("SKILLRAIL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SKILLRAIL_LEDGER", "local")
    doctor = json.loads(cli(Agent(project), "doctor", "--json").stdout)
    said = next(c for c in doctor["checks"] if c["what"].startswith("run ledger"))
    assert said["ok"] and said["what"].startswith(
        f"run ledger: SQLite {tmp_path / 'home' / 'runs.sqlite3'}, this machine's"), said


def hidden_psycopg(tmp_path: Path) -> str:
    """A PYTHONPATH on which psycopg fails to import, as a missing one does."""
    hidden = tmp_path / "hide" / "psycopg"
    hidden.mkdir(parents=True)
    (hidden / "__init__.py").write_text("raise ModuleNotFoundError(name='psycopg')\n")
    return f"{hidden.parent}:{REPO / '.claude'}"


def test_without_psycopg_libpq_serves_the_team_ledger(pg_url: str, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """libpq itself (the system's, or the copy psycopg's wheel carries) is the driver where it
    is found: psycopg need not import."""
    monkeypatch.setenv("SKILLRAIL_LEDGER", pg_url)
    proc = subprocess.run([*CLI, "runs"], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": hidden_psycopg(tmp_path)})
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr


def test_without_a_driver_a_postgresql_ledger_names_the_install_command(
        pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where no libpq is found (here: psycopg asked for), a missing psycopg is one line naming
    the command that installs it."""
    monkeypatch.setenv("SKILLRAIL_LEDGER", pg_url)
    proc = subprocess.run([*CLI, "runs"], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": hidden_psycopg(tmp_path),
                               "SKILLRAIL_PG_DRIVER": "psycopg"})
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1, proc.stderr
    assert "the Python package 'psycopg[binary]' is missing" in proc.stderr
    assert "-m pip install 'psycopg[binary]'" in proc.stderr


def test_a_step_on_the_sqlite_ledger_never_loads_a_driver(
        pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A driver's import was most of a PostgreSQL step's cost: a step that starts a run on
    this machine's SQLite ledger loads none; one on the team's loads libpq, not psycopg."""
    script = REPO / ".claude" / "skills" / "problem-analysis" / "scripts" / "problem-analysis.py"
    monkeypatch.setenv("SKILLRAIL_HOME", str(tmp_path / "home"))
    drivers = ("psycopg", "psycopg_binary", "skills.lib.workflow.ledger.libpq")

    def drivers_imported(**env: str) -> list[str]:
        proc = subprocess.run([sys.executable, "-X", "importtime", str(script), "--step", "1"],
                              capture_output=True, text=True, cwd=tmp_path, timeout=60,
                              env={**os.environ, **env})
        assert proc.returncode == 0 and ' run="pa-' in proc.stdout, proc.stderr[-2000:]
        # -X importtime: a line per module, its name last (indented by how deep it was imported).
        return [name for line in proc.stderr.splitlines()
                if (name := line.rsplit("|", 1)[-1].strip()) in drivers]

    monkeypatch.delenv("SKILLRAIL_LEDGER", raising=False)
    assert drivers_imported() == []
    assert drivers_imported(SKILLRAIL_LEDGER=pg_url) == ["skills.lib.workflow.ledger.libpq"]


def with_skill(clone: Path, skill: str = "problem-analysis") -> Path:
    """`clone` with its own copy of `skill` (the framework linked in); the copy's script."""
    import shutil

    skills = clone / ".claude" / "skills"
    skills.mkdir(parents=True)
    (skills / "lib").symlink_to(REPO / ".claude" / "skills" / "lib")
    shutil.copytree(REPO / ".claude" / "skills" / skill, skills / skill)
    return skills / skill / "scripts" / f"{skill}.py"


def test_a_teammates_run_is_shown_and_resumed_with_this_clones_script(
        machines: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """Alice starts a run in her clone; in Bob's, `status` and `resume` name Bob's copy of the
    script (Alice's path is another machine's), and the command it prints advances her run."""
    mine = {name: with_skill(machines[name]) for name in ("alice", "bob")}
    alice = as_user(monkeypatch, machines, "alice")
    run_id = (run_of(alice.run([sys.executable, str(mine["alice"]), "--step", "1"])) or "")

    bob = as_user(monkeypatch, machines, "bob")
    listed = json.loads(cli(bob, "status", "--json").stdout)["runs"]
    (row,) = [r for r in listed if r["run"] == run_id]
    assert row["next"] and all(str(mine["bob"]) in cmd for cmd in row["next"]), row
    assert str(mine["alice"]) not in json.dumps(row)
    proc = cli(bob, "resume", run_id)
    assert proc.returncode == 0, proc.stderr
    resumed = ET.fromstring(proc.stdout)
    commands = [cmd_text(held) for held in offered(resumed)]
    assert commands and all(str(mine["bob"]) in c for c in commands), commands
    went = bob.follow(resumed, None, **{key: "x" for key in _args(resumed)})
    assert run_of(went) == run_id and went.get("id") != resumed.get("id")


def _args(doc: ET.Element) -> list[str]:
    return [arg.key for invoke in offered(doc) for arg in asked(invoke)]


def test_a_teammate_with_a_role_of_their_own_works_with_the_grants_readme_lists(
        pg_server: PgServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The database's owner makes the tables (its first step); another role is refused in one
    line naming the fix until the owner runs README's GRANT, then starts and advances runs."""
    import secrets

    import psycopg

    tag = secrets.token_hex(3)
    owner, mate, database = f"owner_{tag}", f"mate_{tag}", f"team_{tag}"
    with psycopg.connect(pg_server.url, autocommit=True) as admin:
        admin.execute(f"CREATE ROLE {owner} LOGIN")
        admin.execute(f"CREATE ROLE {mate} LOGIN")
        admin.execute(f"CREATE DATABASE {database} OWNER {owner}")
    url = {role: pg_server.url_of(database).replace("skillrail@", f"{role}@", 1)
           for role in (owner, mate)}
    script = REPO / ".claude" / "skills" / "problem-analysis" / "scripts" / "problem-analysis.py"
    monkeypatch.setenv("SKILLRAIL_HOME", str(tmp_path / "home"))
    agent = Agent(tmp_path)

    monkeypatch.setenv("SKILLRAIL_LEDGER", url[owner])
    first = agent.run([sys.executable, str(script), "--step", "1"]).get("run")
    monkeypatch.setenv("SKILLRAIL_LEDGER", url[mate])
    refused = cli(agent, "runs")
    assert refused.returncode == 1 and refused.stderr.count("\n") == 1, refused.stderr
    assert "permission denied" in refused.stderr
    assert "grant yours the rights README's 'A team ledger' lists" in refused.stderr

    grants = [line.strip().replace("ROLE", mate) for line in
              (REPO / "README.md").read_text(encoding="utf-8").splitlines()
              if line.strip().startswith("GRANT ")]
    assert grants, "README lists no GRANT"
    with psycopg.connect(url[owner], autocommit=True) as conn:
        for grant in grants:
            conn.execute(grant)
    started = agent.run([sys.executable, str(script), "--step", "1"])
    assert run_of(started) and run_of(agent.follow(started, None, **{
        key: "x" for key in _args(started)})) == run_of(started)
    listed = {r["run"] for r in json.loads(cli(agent, "runs", "--json").stdout)["runs"]}
    assert {first, run_of(started)} <= listed


@pytest.mark.parametrize("sql", [
    "SELECT 1::int8, 2::int4, 2.5::float8, true, false, NULL, 'x é', 3.25::numeric",
    "SELECT COUNT(*), MAX(x), SUM(x) FROM (VALUES (1), (2)) AS t(x)",
])
def test_both_drivers_read_values_alike(pg_url: str, sql: str,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """libpq's text read back by column type, as psycopg reads it: the ledger's code sees the
    same rows whichever driver the machine has."""
    from skills.lib.workflow.ledger import libpq, pgstore

    rows = {}
    for driver in ("libpq", "psycopg"):
        monkeypatch.setenv("SKILLRAIL_PG_DRIVER", driver)
        libpq._LOADED.clear()
        connection = pgstore.Connection(pg_url, 1000)
        try:
            rows[driver] = connection.execute(sql).fetchall()
        finally:
            connection.close()
    libpq._LOADED.clear()
    assert rows["libpq"] == rows["psycopg"]
    assert [type(v) for v in rows["libpq"][0]] == [type(v) for v in rows["psycopg"][0]]


def test_both_drivers_share_one_ledger(pg_url: str, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A run one teammate's step starts through libpq, another's psycopg lists and continues."""
    monkeypatch.setenv("SKILLRAIL_LEDGER", pg_url)
    script = REPO / ".claude" / "skills" / "problem-analysis" / "scripts" / "problem-analysis.py"
    first = subprocess.run([sys.executable, str(script), "--step", "1"], capture_output=True,
                           text=True, cwd=tmp_path, timeout=60, env=dict(os.environ))
    assert first.returncode == 0, first.stderr
    run = run_of(ET.fromstring(first.stdout))
    listed = subprocess.run([*CLI, "runs", "--json"], capture_output=True, text=True, timeout=60,
                            env={**os.environ, "SKILLRAIL_PG_DRIVER": "psycopg"}, cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert [r["run"] for r in json.loads(listed.stdout)["runs"]] == [run]
