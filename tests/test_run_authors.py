"""Who started a run on which machine (the `host` and `who` schema 9 records), as `skillrail
runs`, `trace` (and its follower) and the `report` page show it, on either backend; runs
recorded before schema 9, which kept neither, show as they did."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from skills.lib.workflow.ledger.workspace import who

from .conftest import REPO
from .harness import run_of, shell
from .ledger.support import start, write_script
from .test_listings import recorded
from .test_report import parse, rows

#: A teammate's run: (machine, login).
ALICE = ("laptop", "alice")


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test on the SQLite file, then on a fresh PostgreSQL database."""
    if request.param == "postgresql":
        monkeypatch.setenv("SKILLRAIL_LEDGER", request.getfixturevalue("pg_url"))
    return str(request.param)


def skillrail(*args: str) -> subprocess.CompletedProcess[str]:
    proc = shell([sys.executable, "-m", "skills.lib.workflow.commands", *args],
                 env={**os.environ, "PYTHONPATH": str(REPO / ".claude")})
    assert (proc.returncode, proc.stderr) == (0, ""), proc.stderr
    return proc


def as_json(*args: str) -> Any:
    return json.loads(skillrail(*args, "--json").stdout)


@pytest.fixture
def runs(tmp_path: Path, backend: str) -> dict[str, str]:
    """Three runs: one this user started here (a real step), one a teammate started on
    another machine, and one recorded before schema 9 (no machine, no login); their ids."""
    here = (run_of(start(write_script(tmp_path / "chain" / "scripts" / "chain.py"))) or "")
    (alice,) = recorded(1, skill="alices", status="abandoned", by=ALICE)
    (old,) = recorded(1, skill="olds", status="abandoned")
    return {"here": here, "alice": alice, "old": old}


def test_runs_says_who_started_each_run(runs: dict[str, str]) -> None:
    """Text: 'by LOGIN@MACHINE' after when it started, nothing for a run without; JSON: `host`
    and `who`, null for a run without."""
    host, login = who()
    lines = {line.split()[0]: line for line in skillrail("runs").stdout.splitlines()[:-1]}
    assert lines[runs["here"]].endswith(f" by {login}@{host}")
    assert lines[runs["alice"]].endswith(" by alice@laptop")
    assert re.search(r"  started [-0-9]+ [:0-9]+$", lines[runs["old"]]), lines[runs["old"]]
    found = {r["run"]: (r["host"], r["who"]) for r in as_json("runs")["runs"]}
    assert found == {runs["here"]: (host, login), runs["alice"]: ALICE,
                     runs["old"]: (None, None)}


def test_trace_says_who_started_the_run_where(runs: dict[str, str]) -> None:
    """The line under the outcome says it (a run without: as before), at every level that
    shows more than the outcome; the JSON has `host` and `who`, and so has a follower's first
    line."""
    host, login = who()
    for level in ("full", "summary"):
        second = skillrail("trace", runs["alice"], "--level", level).stdout.splitlines()[1]
        assert second.startswith("skill alices, started ") and ", last change " in second
        assert second.split(",")[1].endswith(" by alice@laptop"), second
        doc = as_json("trace", runs["alice"], "--level", level)
        assert (doc["host"], doc["who"]) == ALICE
    here = skillrail("trace", runs["here"]).stdout.splitlines()[1]
    assert here.split(",")[1].endswith(f" by {login}@{host}"), here
    old = skillrail("trace", runs["old"]).stdout.splitlines()[1]
    assert re.match(r"skill olds, started [-0-9]+ [:0-9]+, last change ", old), old
    doc = as_json("trace", runs["old"])
    assert (doc["host"], doc["who"]) == (None, None)
    assert "host" not in as_json("trace", runs["alice"], "--level", "hidden")
    followed = skillrail("trace", runs["alice"], "--follow", "--json").stdout.splitlines()
    first = json.loads(followed[0])
    assert (first["kind"], first["host"], first["who"]) == ("run", *ALICE)
    text = skillrail("trace", runs["alice"], "--follow").stdout.splitlines()
    assert text[1].split(",")[1].endswith(" by alice@laptop"), text


def test_the_report_lists_who_started_each_run(runs: dict[str, str], tmp_path: Path) -> None:
    """The run list's 'by' column (a run without: '-'), and each run's summary says it."""
    out = tmp_path / "report.html"
    skillrail("report", "--html", str(out), "--root", str(tmp_path))
    page = parse(out.read_text(encoding="utf-8"))
    (timeline,) = page.find("table", class_="timeline")
    head = [th.text() for th in timeline.iter("th")]
    by = {row[0]: row[head.index("by")] for row in rows(timeline)}
    host, login = who()
    assert by == {runs["here"]: f"{login}@{host}", runs["alice"]: "alice@laptop",
                  runs["old"]: "-"}
    facts = {section.attrs["id"]: section.find("p")[0].text()
             for section in page.find("section", class_="trace")}
    assert " by alice@laptop, last change " in facts[f"run-{runs['alice']}"]
    assert " by " not in facts[f"run-{runs['old']}"]

