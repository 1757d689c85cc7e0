"""How runs ended and how their checks recovered, as `skillrail stats` counts them, and partial
runs as `runs`, `trace` and `report` show them: four runs of a skill whose script checks each
build and whose retries say what changes, walked as an agent walks them."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from skills.lib.workflow import Workflow

from .harness import command_argv, run, run_of
from .history_support import loaded
from .test_commands import make_skills, skillrail
from .test_skills import BOOTSTRAP

#: build -> build-verify (the script decides: ok for a good or partly good build, else fail)
#: -> done; a failure retries through build-retry, which says what changes, under the shared
#: counter 'attempts'. A run that ends with a partly good build is partial.
RUNNER = BOOTSTRAP + '''
from skills.lib.workflow import (Action, Arg, Rework, StepDef, Workflow, decides, main,
                                 register_workflow)


@decides("ok", "fail")
def check(ctx):
    return "ok" if ctx.values.get("BUILD") in ("good", "partly") else "fail"


def result(ctx):
    return "partial" if ctx.values.get("BUILD") == "partly" else "success"


WORKFLOW = register_workflow(Workflow(name="runner", result=result, steps=[
    StepDef("build", "Build", actions=[Action("Build it.", out="BUILD")],
            args=[Arg("BUILD", "how the build went", choices=("good", "partly", "bad"))],
            next={"ok": "build-verify"}),
    StepDef("build-verify", "Check", handler=check, reads=("BUILD",),
            next={"ok": "done", "fail": Rework("build-retry", 3, "done", counter="attempts")}),
    StepDef("build-retry", "Retry", actions=[Action("Say what changes.", out="CHANGE_BUILD")],
            args=[Arg("CHANGE_BUILD", "what the next attempt does differently")],
            next={"ok": "build"}),
    StepDef("done", "Done", actions=["Report."], next={"ok": None}),
]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
'''


def printed(workflow: Workflow, argv: list[str]) -> ET.Element:
    result = run(workflow, argv)
    assert (result.code, result.stderr) == (0, ""), result.stderr
    return result.document()


def walked(workflow: Workflow, *reports: str) -> ET.Element:
    """A new run fed `reports` in turn: each build's BUILD, each retry's CHANGE_BUILD; the
    step it stops at."""
    doc = printed(workflow, ["--step", "1"])
    for report in reports:
        key = "BUILD" if doc.get("id") == "build" else "CHANGE_BUILD"
        doc = printed(workflow, command_argv(doc) + ["--set", f"{key}={report}"])
        if doc.get("id") == "build-verify":  # decided by the script: its one command
            doc = printed(workflow, command_argv(doc))
    return doc


@pytest.fixture
def four_runs(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """The skills root and four runs: 'retried' failed its check once and passed after a
    retry; 'straight' passed at once; 'left' failed, retried and was abandoned; 'partly'
    failed, retried and passed with part of the build done. Three failed checks, two of which
    later passed, both after the change 'pin the version'."""
    root = make_skills(tmp_path, {"runner": RUNNER})
    runner = loaded(root, "runner")
    ids = {}
    for name, reports in (("retried", ["bad", "pin the version", "good"]),
                          ("straight", ["good"]),
                          ("left", ["bad", "clear the cache"]),
                          ("partly", ["bad", "pin the version", "partly"])):
        doc = walked(runner, *reports)
        assert (doc.get("id"), doc.find("NEXT/complete") is not None) == (
            ("build", False) if name == "left" else ("done", True)), name
        ids[name] = (run_of(doc) or "")
    assert skillrail("abandon", ids["left"]).returncode == 0
    return root, ids


def stats_row(root: Path) -> dict[str, Any]:
    proc = skillrail("stats", "--root", str(root), "--skill", "runner", "--json")
    assert (proc.returncode, proc.stderr) == (0, ""), proc.stderr
    (row,) = json.loads(proc.stdout)
    return dict(row)


def test_success_and_partial_rates_and_iterations_per_successful_run(
        four_runs: tuple[Path, dict[str, str]]) -> None:
    """Of four ended runs, two succeeded (50%) and one was partial (25%); the successful ones
    took 2 and 1 iterations (1 + their attempts): 1.5 on average, the partial run's 2 aside."""
    row = stats_row(four_runs[0])
    assert {k: row[k] for k in ("runs", "completed", "partial", "abandoned", "active")} == {
        "runs": 4, "completed": 3, "partial": 1, "abandoned": 1, "active": 0}
    assert (row["success_rate"], row["partial_rate"]) == (0.5, 0.25)
    assert row["average_iterations"] == 1.5


def test_two_of_three_failed_checks_recovered_after_the_same_change(
        four_runs: tuple[Path, dict[str, str]]) -> None:
    """3 failed checks, 2 later passed in their run: 67%, most often at 'build-verify', after
    CHANGE_BUILD 'pin the version' (the abandoned run's change led to no pass)."""
    row = stats_row(four_runs[0])
    assert row["recovery"] == {
        "failed": 3, "recovered": 2, "rate": pytest.approx(2 / 3, abs=0.001),
        "most_common": {"workflow": "runner", "step": "build-verify", "recovered": 2,
                        "change": {"key": "CHANGE_BUILD", "value": "pin the version",
                                   "times": 2}}}
    text = skillrail("stats", "--root", str(four_runs[0])).stdout.splitlines()
    assert text[1].split() == ["runner", "4", "3", "1", "0", "50%", "25%", "0", "0"]
    assert "  runner  1.5" in text
    assert ("  runner  67% (2 of 3); most often at 'build-verify' (2), after CHANGE_BUILD = "
            "'pin the version' (2)") in text


def test_listings_show_a_partial_run_as_partial(
        four_runs: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    """`runs` shows the partial run as partial and `--status partial` lists it alone, while
    `--status completed` lists the runs done in full; its trace (every level) and the report
    say partial too."""
    ids = four_runs[1]
    listed = json.loads(skillrail("runs", "--json").stdout)["runs"]
    assert {r["run"]: r["status"] for r in listed} == {
        ids["retried"]: "completed", ids["straight"]: "completed", ids["left"]: "abandoned",
        ids["partly"]: "partial"}
    for status, names in (("partial", ["partly"]), ("completed", ["straight", "retried"])):
        found = json.loads(skillrail("runs", "--status", status, "--json").stdout)
        assert [r["run"] for r in found["runs"]] == [ids[n] for n in names], status
    assert skillrail("runs", "--status", "partial").stdout.split()[1] == "partial"
    for level in ("full", "summary", "hidden"):
        doc = json.loads(skillrail("trace", ids["partly"], "--level", level, "--json").stdout)
        assert doc["status"] == "partial", level
    summary = json.loads(skillrail("trace", ids["partly"], "--level", "summary",
                                   "--json").stdout)
    assert summary["timeline"][-1]["event"] == "partial"
    page = tmp_path / "report.html"
    assert skillrail("report", "--html", str(page), "--root", str(four_runs[0])).returncode == 0
    assert '<td class="status-partial">partial</td>' in page.read_text(encoding="utf-8")
