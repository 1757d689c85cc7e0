"""`skillrail runs` a page at a time, and `skillrail status` scoped to the directory it runs in,
run as a person types them: what is shown, how many more there are, and the literal command
that shows them."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from skills.lib.workflow.graph.analysis import fingerprint
from skills.lib.workflow.ledger.store import Ledger, Run
from skills.lib.workflow.ledger.workspace import who
from skills.lib.workflow.step.discovery import load_script
from skills.lib.workflow.step.routing import script_path

from .conftest import SKILLS_ROOT
from .harness import run_of
from .ledger.support import follow, start, write_script
from .test_commands import skillrail

SCRIPT = SKILLS_ROOT / "decision-critic" / "scripts" / "decision-critic.py"


def recorded(count: int, *, skill: str = "bulk", status: str = "active",
             workspace: str = "/elsewhere",
             by: tuple[str, str] | tuple[None, None] = (None, None)) -> list[str]:
    """`count` runs recorded through the ledger's API, oldest first, started `by` (machine,
    login; none: as before schema 9); their ids."""
    ids = []
    with Ledger() as ledger, ledger.transaction():
        for _ in range(count):
            run_id = f"{skill[:2]}-{len(ledger.query('SELECT id FROM runs')):06x}"
            ledger.create(Run(id=run_id, skill=skill, workflow=skill, script="/nowhere.py",
                              fingerprint="f", workspace=workspace, session=None, params={},
                              status="active", parent=None, step="first", decided=None,
                              hops=1, started=0.0, updated=0.0, counts={}, memory={},
                              host=by[0], who=by[1]))
            if status != "active":
                ledger.set_status(run_id, status)
            ids.append(run_id)
    return ids


def started(cwd: Path) -> str:
    """A real decision-critic run started in `cwd`, as an agent starts one; its id."""
    cwd.mkdir(parents=True, exist_ok=True)
    first = subprocess.run([sys.executable, str(SCRIPT), "--step", "1", "--decision=Use Go"],
                           capture_output=True, text=True, cwd=cwd, check=True)
    return (run_of(ET.fromstring(first.stdout)) or "")


def listed(*args: str, cwd: Path | None = None) -> dict[str, Any]:
    proc = skillrail(*args, "--json", **({"cwd": cwd} if cwd else {}))
    assert (proc.returncode, proc.stderr) == (0, ""), proc.stderr
    found: dict[str, Any] = json.loads(proc.stdout)
    return found


def last_command(text: str) -> list[str]:
    """The last `command` the output's last line names."""
    return shlex.split(text.splitlines()[-1].split("`")[-2])


class TestRunsPages:
    def test_the_newest_twenty_then_how_many_more_and_the_command_for_all(self) -> None:
        """25 runs: 20 lines newest first, then a line with the 5 others and the literal
        command, which lists all 25."""
        ids = recorded(25)
        out = skillrail("runs").stdout.splitlines()
        assert [line.split()[0] for line in out[:-1]] == ids[::-1][:20]
        assert out[-1].startswith("the newest 20 of 25 runs; 5 more: ")
        command = last_command(skillrail("runs").stdout)
        assert command == ["skillrail", "runs", "--limit", "all"]
        every = skillrail(*command[1:]).stdout.splitlines()
        assert [line.split()[0] for line in every[:-1]] == ids[::-1]
        assert every[-1] == "25 runs, newest first"

    def test_filters_and_limit_page_the_json_with_the_count_of_the_rest(self) -> None:
        """--skill and --status narrow the count as well as the page; --limit sizes it."""
        mine = recorded(4, skill="mine")
        recorded(2, skill="mine", status="completed")
        recorded(3, skill="other")
        found = listed("runs", "--skill", "mine", "--status", "active", "--limit", "3")
        assert [r["run"] for r in found["runs"]] == mine[::-1][:3]
        assert (found["matching"], found["more"]) == (4, 1)
        line = skillrail("runs", "--skill", "mine", "--status", "active", "--limit", "3").stdout
        assert last_command(line) == ["skillrail", "runs", "--skill", "mine", "--status",
                                      "active", "--limit", "all"]

    def test_mine_is_what_this_user_started_on_this_machine(self) -> None:
        """--mine leaves out the runs of another login or machine, and those recorded before
        either was kept; with --skill and --status it narrows the page and the count, and the
        command for the rest keeps it."""
        here = who()
        mine = recorded(3, skill="app", by=here)
        recorded(1, skill="app", by=(here[0], here[1] + "-not"))
        recorded(1, skill="app", by=("not-" + here[0], here[1]))
        recorded(1, skill="app")
        done = recorded(1, skill="app", status="completed", by=here)
        other = recorded(1, skill="other", by=here)
        found = listed("runs", "--mine", "--skill", "app", "--status", "active", "--limit", "2")
        assert [r["run"] for r in found["runs"]] == mine[::-1][:2]
        assert (found["matching"], found["more"]) == (3, 1)
        line = skillrail("runs", "--mine", "--skill", "app", "--status", "active", "--limit",
                         "2").stdout
        assert "of 3 active 'app' runs of yours; 1 more" in line
        assert last_command(line) == ["skillrail", "runs", "--skill", "app", "--status",
                                      "active", "--mine", "--limit", "all"]
        assert [r["run"] for r in listed("runs", "--mine")["runs"]] == (mine + done + other)[::-1]

    def test_an_empty_ledger_says_so(self) -> None:
        assert skillrail("runs").stdout == "no runs\n"
        assert listed("runs") == {"runs": [], "matching": 0, "more": 0}

    def test_a_limit_that_is_neither_a_number_nor_all_is_a_usage_error(self) -> None:
        proc = skillrail("runs", "--limit", "some")
        assert (proc.returncode, proc.stdout) == (2, "")
        assert proc.stderr.count("\n") == 1 and "'all'" in proc.stderr

    def test_a_run_of_one_step_says_1_step(self, tmp_path: Path) -> None:
        """'1 step' for a run of one, '2 steps' for one of two, in `runs` and `trace`."""
        script = write_script(tmp_path / "chain" / "scripts" / "chain.py")
        one = (run_of(start(script)) or "")
        two = (run_of(follow(start(script), TOPIC="caching")) or "")
        lines = {line.split()[0]: line for line in skillrail("runs").stdout.splitlines()[:-1]}
        assert "  1 step   started " in lines[one] and "  2 steps  started " in lines[two]
        assert skillrail("trace", one).stdout.splitlines()[0].endswith("', 1 step")
        assert skillrail("trace", two).stdout.splitlines()[0].endswith("', 2 steps")


class TestStatusScope:
    def test_runs_started_here_or_below_are_shown_the_others_counted(
            self, tmp_path: Path) -> None:
        """Runs started in the directory and in one inside it are shown, newest first; one
        started in a sibling whose name extends this one's is only counted, and --all shows
        it too."""
        here, inside, sibling = tmp_path / "app", tmp_path / "app" / "web", tmp_path / "app-2"
        ids = [started(here), started(inside), started(sibling)]
        found = listed("status", cwd=here)
        assert [r["run"] for r in found["runs"]] == ids[1::-1]
        assert (found["workspace"], found["more"], found["elsewhere"]) == (str(here), 0, 1)
        text = skillrail("status", cwd=here).stdout
        assert text.splitlines()[-1] == ("1 active run started elsewhere: `skillrail status "
                                         "--all` shows them")
        every = listed("status", "--all", cwd=here)
        assert [r["run"] for r in every["runs"]] == ids[::-1]
        assert (every["more"], every["elsewhere"]) == (0, 0)

    def test_the_newest_five_then_the_count_and_the_command_for_the_rest(
            self, tmp_path: Path) -> None:
        """Seven active runs here: five shown, and a last line with the two others and the
        command that shows all seven."""
        ids = recorded(7, workspace=str(tmp_path))
        text = skillrail("status", cwd=tmp_path).stdout
        assert text.splitlines()[-1] == ("2 more active runs here, older: `skillrail status "
                                         "--limit all` shows them")
        found = listed(*last_command(text)[1:], cwd=tmp_path)
        assert [r["run"] for r in found["runs"]] == ids[::-1]

    def test_none_here_says_where_it_looked(self, tmp_path: Path) -> None:
        recorded(2)
        out = skillrail("status", cwd=tmp_path).stdout.splitlines()
        assert out == [f"no active runs started in {tmp_path} or below it",
                       "2 active runs started elsewhere: `skillrail status --all` shows them"]

    def test_a_step_its_script_decides_is_not_decided_by_status(self, tmp_path: Path) -> None:
        """A run at a script-decided step whose decision is not recorded yet: status shows
        only its resume command, and records nothing (no handler runs)."""
        (workflow,) = load_script(SKILLS_ROOT / "doc-sync" / "scripts" / "doc-sync.py")
        step = next(s for s in workflow.steps if s.decided_by == "script")
        with Ledger() as ledger, ledger.transaction():
            ledger.create(Run(id="do-000001", skill=workflow.skill, workflow=workflow.name,
                              script=script_path(workflow), fingerprint=fingerprint(workflow),
                              workspace=str(tmp_path), session=None, params={},
                              status="active", parent=None, step=step.id, decided=None,
                              hops=1, started=0.0, updated=0.0, counts={}, memory={}))
        (row,) = listed("status", cwd=tmp_path)["runs"]
        assert (row["step"], row["next"]) == (step.id, [])
        assert row["resume"].endswith("--run do-000001 --resume")
        with Ledger() as ledger:
            now = ledger.run("do-000001")
            assert now is not None and now.decided is None
            assert [kind for _, kind, _ in ledger.events("do-000001")] == ["start"]
