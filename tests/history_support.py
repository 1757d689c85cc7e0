"""Runs with a known history, for the tests of `skillrail trace`, `stats` and `report`: a small
skill with a bounded loop that escalates to the user, walked in-process by following the
printed commands (each test has its own ledger, see conftest)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from skills.lib.workflow import Workflow
from skills.lib.workflow.authoring.registry import unregister
from skills.lib.workflow.step.discovery import load_script

from .harness import command_argv, run, run_of
from .test_commands import make_skills
from .test_skills import BOOTSTRAP

#: Token-shaped test values are assembled, so no credential-looking literal sits in the source.
GITHUB_TOKEN = "ghp_" + "t0kEn9" * 6
PASSWORD = "hunter" + "2-" + "correct-horse"

#: gather -> check; check loops back to gather at most twice, then asks the user ('confirm').
#: The description holds markup, which a page must show as text.
TRIAGE = BOOTSTRAP + '''
from skills.lib.workflow import (Action, Arg, AskUser, Outcome, Param, Rework, StepDef, Workflow,
                                 main, register_workflow)

WORKFLOW = register_workflow(Workflow(
    name="@NAME@", description="Triage </pre><script>alert(1)</script> & \\"friends\\"",
    params=[Param("context", "what the triage is about")], steps=[
    StepDef("gather", "Gather", actions=[Action("Gather evidence.", out="API_TOKEN")],
            args=[Arg("API_TOKEN", "the token you used"), Arg("NOTE", "what you saw")],
            next={"ok": "check"}),
    StepDef("check", "Check", actions=["Check the evidence."],
            next={"iterate": Rework("gather", 2, "confirm"), "ok": "done"},
            when={"iterate": "still unclear", "ok": "clear"}),
    StepDef("confirm", "Confirm", ask_user=AskUser("Go on anyway?",
                                                  {"approve": "yes", "reject": "no"}),
            next={"approve": "done", "reject": "done"}),
    StepDef("done", "Done", actions=["Report."], next={Outcome.OK: None}),
]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
'''

#: A plain edge into a question: draft -> approve (ask_user) -> done. No loop runs out, so the
#: move into 'approve' asks the user without escalating anything.
APPROVAL = BOOTSTRAP + '''
from skills.lib.workflow import AskUser, Outcome, StepDef, Workflow, main, register_workflow

WORKFLOW = register_workflow(Workflow(name="approval", description="Draft, then ask", steps=[
    StepDef("draft", "Draft", actions=["Draft the change."], next={"ok": "approve"}),
    StepDef("approve", "Approve", ask_user=AskUser("Ship it?", {"approve": "yes",
                                                                 "reject": "no"}),
            next={"approve": "done", "reject": "done"}),
    StepDef("done", "Done", actions=["Report."], next={Outcome.OK: None}),
]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
'''


def make_triage(tmp: Path, name: str = "triage",
                others: dict[str, str] | None = None) -> tuple[Path, Workflow]:
    """A skills root under `tmp` holding the triage skill as `name` (and `others`: skill name ->
    script), and the triage workflow, loaded."""
    root = make_skills(tmp, {name: TRIAGE.replace("@NAME@", name), **(others or {})})
    return root, loaded(root, name)


def loaded(root: Path, name: str) -> Workflow:
    """The one workflow of skill `name` under `root`, loaded afresh."""
    unregister(name)  # another test's copy, from another folder, would be a duplicate (W001)
    (workflow,) = load_script(root / name / "scripts" / f"{name}.py")
    return workflow


def approved(workflow: Workflow) -> str:
    """A completed approval run: draft, the user is asked and approves, done."""
    doc = _follow(workflow, _printed(workflow, ["--step", "1"]))
    assert doc.get("id") == "approve"
    done = _follow(workflow, doc, "approve")
    assert done.find("NEXT/complete") is not None
    return (run_of(done) or "")


def _printed(workflow: Workflow, argv: list[str]) -> ET.Element:
    result = run(workflow, argv)
    assert (result.code, result.stderr) == (0, ""), result.stderr
    return result.document()


def _follow(workflow: Workflow, doc: ET.Element, outcome: str | None = None,
            **values: str) -> ET.Element:
    argv = command_argv(doc, outcome)
    for key, value in values.items():
        argv += ["--set", f"{key}={value}"]
    return _printed(workflow, argv)


def start(workflow: Workflow, *flags: str) -> ET.Element:
    """A new run at 'gather', its context param holding a password assignment."""
    return _printed(workflow, ["--step", "1", f"--context=db password={PASSWORD}", *flags])


def _gathered(workflow: Workflow, doc: ET.Element) -> ET.Element:
    return _follow(workflow, doc, API_TOKEN=GITHUB_TOKEN,
                   NOTE=f"login used password={PASSWORD}\nsecond line")


def escalated(workflow: Workflow) -> str:
    """A completed run: gather, check, again, check: the loop runs out, the user approves."""
    doc = _gathered(workflow, start(workflow))
    doc = _gathered(workflow, _follow(workflow, doc, "iterate"))
    doc = _follow(workflow, doc, "iterate")
    assert doc.get("id") == "confirm"
    done = _follow(workflow, doc, "approve")
    assert done.find("NEXT/complete") is not None
    return (run_of(done) or "")


def straight(workflow: Workflow) -> str:
    """A completed run: gather, check, done."""
    done = _follow(workflow, _gathered(workflow, start(workflow)), "ok")
    assert done.find("NEXT/complete") is not None
    return (run_of(done) or "")


def started(workflow: Workflow, *flags: str) -> str:
    """An active run at 'check' (after one gather); `flags` as on the entry step."""
    return (run_of(_gathered(workflow, start(workflow, *flags))) or "")
