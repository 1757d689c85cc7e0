"""Quality-review loops built by qr_loop, followed through the printed commands of a run:
fresh-review and fix banners, the script-decided gate, passes 1..limit, severity narrowing, and
the escalation to the user with its four answers."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from skills.lib.workflow import (
    Action,
    StepContext,
    StepDef,
    Workflow,
    decides,
    qr_loop,
    register_workflow,
)
from skills.lib.workflow.authoring.registry import unregister
from skills.lib.workflow.graph.analysis import worst_case_steps
from skills.lib.workflow.protocol.reading import decided as read_decided
from skills.lib.workflow.protocol.schema import schema_errors

from .harness import actions, banner, command_argv, decided, first_action, run

LIMIT = 3


@pytest.fixture(scope="module")
def flow() -> Iterator[Workflow]:
    """draft -> review -> gate in a loop of 3 passes, then done; registered (validated)."""
    wf = register_workflow(Workflow("qr-demo", [
        *qr_loop("plan-review",
                 work=StepDef("draft", "Draft the plan", actions=["Write the plan."]),
                 review=StepDef("review", "Review the plan", actions=["Read the plan."]),
                 on_pass="done", limit=LIMIT),
        StepDef("done", "Done", actions=[Action("Report the plan.", out="reply")],
                next={"ok": None}),
    ]))
    yield wf
    unregister(wf.name)


def step(wf: Workflow, argv: list[str]) -> ET.Element:
    result = run(wf, argv)
    assert result.code == 0, result.stderr
    assert schema_errors(result.out) == []
    return ET.fromstring(result.out)


def follow(wf: Workflow, doc: ET.Element, outcome: str | None = None,
           **values: str) -> ET.Element:
    argv = command_argv(doc, outcome)
    for key, value in values.items():
        argv += ["--set", f"{key}={value}"]
    return step(wf, argv)


def failing_round(wf: Workflow, draft: ET.Element) -> tuple[ET.Element, ET.Element]:
    """draft -> review (fail) -> the step the gate leads to (the gate passed through)."""
    review = follow(wf, draft)
    after = follow(wf, review, QR_VERDICT="fail", QR_FINDINGS="F1 MUST plan.md:3 no tests")
    assert decided(after) == [("plan-review-gate", "fail")]
    return review, after


def qr_banner(doc: ET.Element) -> tuple[str | None, str | None, str | None]:
    said = banner(doc.find("banner"))
    assert said is not None and said.loop is not None
    return str(said.n), str(said.limit), said.mode


class TestQRLoop:
    def test_the_loop_is_bounded_and_validated(self, flow: Workflow) -> None:
        """The expanded steps register without findings and have a finite worst case."""
        assert [s.id for s in flow.steps][:5] == ["draft", "review", "plan-review-gate",
                                                   "plan-review-escalate", "plan-review-abort"]
        assert worst_case_steps(flow) is not None

    def test_failing_reviews_count_passes_then_escalate(self, flow: Workflow) -> None:
        """Each failed gate adds one pass: the review shows fresh-review 1, 2, 3; the work
        step shows fix mode from pass 2; after pass 3 the gate leads to the user."""
        draft = step(flow, ["--step", "draft"])
        assert qr_banner(draft) == ("1", "3", None)
        seen = []
        for _ in range(LIMIT):
            review, draft = failing_round(flow, draft)
            seen.append(qr_banner(review))
        assert seen == [("1", "3", "fresh-review"), ("2", "3", "fresh-review"),
                        ("3", "3", "fresh-review")]
        assert draft.get("id") == "plan-review-escalate"
        options = [o.get("outcome") for o in draft.findall("DO/ask_user/option")]
        assert options == ["continue", "fix-blocking", "accept", "abort"]

    def test_fix_mode_shows_what_the_review_found(self, flow: Workflow) -> None:
        """The work step after a failed gate is in fix mode and points at QR_FINDINGS, which
        the agent reported with the verdict (so it is not echoed back)."""
        _, draft = failing_round(flow, step(flow, ["--step", "draft"]))
        assert qr_banner(draft) == ("2", "3", "fix")
        assert draft.find("memory/QR_FINDINGS") is None
        assert "fix the blocking findings of the last review (QR_FINDINGS" in first_action(draft)

    def test_blocking_severities_narrow_from_the_third_pass(self, flow: Workflow) -> None:
        """Passes 1 and 2 block on MUST and SHOULD; pass 3 on MUST alone."""
        draft = step(flow, ["--step", "draft"])
        texts = []
        for _ in range(LIMIT):
            review, draft = failing_round(flow, draft)
            texts.append(first_action(review))
        assert [": MUST and SHOULD block;" in t for t in texts] == [True, True, False]
        assert ": MUST block;" in texts[2]

    def test_a_passing_review_goes_on(self, flow: Workflow) -> None:
        """A pass verdict: the gate, passed through, leads to the step after the loop."""
        review = follow(flow, step(flow, ["--step", "draft"]))
        done = follow(flow, review, QR_VERDICT="pass", QR_FINDINGS="none")
        assert (done.get("id"), decided(done)) == ("done", [("plan-review-gate", "pass")])

    @pytest.mark.parametrize(("answer", "then"), [
        ("continue", "draft"), ("fix-blocking", "draft"), ("accept", "done"),
        ("abort", "plan-review-abort")])
    def test_each_answer_of_the_user_routes_the_run(self, flow: Workflow, answer: str,
                                                    then: str) -> None:
        """After escalation the user's answer is recorded and decides where the run goes; an
        extra round is pass 4, past the limit, blocking on MUST only."""
        draft = step(flow, ["--step", "draft"])
        for _ in range(LIMIT):
            _, draft = failing_round(flow, draft)
        after = follow(flow, draft, answer, QR_USER_DECISION=f"the user said {answer}")
        assert after.get("id") == then
        if then == "draft":
            assert qr_banner(after)[0] == "4"
            review = follow(flow, after)
            assert ": MUST block;" in first_action(review)


def write_report(path: Path, *items: tuple[str, str]) -> None:
    """A report with one finding per (severity, status)."""
    path.write_text(json.dumps({"items": [
        {"id": f"F{n}", "severity": sev, "status": status, "location": f"plan.md:{n}",
         "problem": f"problem {n}", "fix": "fix it"}
        for n, (sev, status) in enumerate(items, 1)]}))


@pytest.fixture(scope="module")
def reported(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Workflow, Path]]:
    """draft -> shape check -> review -> gate, the gate deciding from a report file."""
    report = tmp_path_factory.mktemp("qr") / "report.json"

    @decides("ok")
    def shape(ctx: StepContext) -> str:
        return "ok"

    wf = register_workflow(Workflow("qr-report-demo", [
        *qr_loop("plan-review",
                 work=StepDef("draft", "Draft the plan", actions=["Write the plan."]),
                 check=StepDef("shape", "Check the plan's shape", handler=shape,
                               actions=["The script checked the plan."], next={"ok": "review"}),
                 review=StepDef("review", "Review the plan", actions=["Read the plan."]),
                 on_pass="done", limit=LIMIT, report=str(report)),
        StepDef("done", "Done", actions=[Action("Report the plan.", out="reply")],
                next={"ok": None}),
    ]))
    yield wf, report
    unregister(wf.name)


class TestReportGate:
    """With `report=`, the reviewer's report file decides the gate, not the orchestrator."""

    def past_gate(self, wf: Workflow) -> tuple[ET.Element, ET.Element]:
        """The step after the gate, and the gate's `<decided>` note (the shape check and the
        gate are passed through)."""
        review = follow(wf, step(wf, ["--step", "draft"]))
        assert (review.get("id"), decided(review)) == ("review", [("shape", "ok")])
        assert review.find("NEXT/invoke/arg") is None  # no verdict is asked of the agent
        after = follow(wf, review)
        [gate] = read_decided(after)
        assert gate.step == "plan-review-gate"
        return after, gate

    def test_an_open_blocking_finding_fails_and_the_fix_pass_points_at_the_report(
            self, reported: tuple[Workflow, Path]) -> None:
        wf, report = reported
        write_report(report, ("MUST", "open"), ("COULD", "open"))
        draft, gate = self.past_gate(wf)
        assert "1 open blocking finding: F1 (MUST, plan.md:1)" in gate.note
        assert draft.get("id") == "draft" and qr_banner(draft)[2] == "fix"
        assert f"(in the report at {report})" in first_action(draft)

    def test_only_non_blocking_or_resolved_findings_pass(
            self, reported: tuple[Workflow, Path]) -> None:
        wf, report = reported
        write_report(report, ("MUST", "resolved"), ("COULD", "open"))
        done, gate = self.past_gate(wf)
        assert (done.get("id"), gate.outcome) == ("done", "pass")

    def test_a_malformed_report_redoes_the_review(self, reported: tuple[Workflow, Path]) -> None:
        wf, report = reported
        report.write_text('{"items": [{"id": "F1", "severity": "HIGH"}]}')
        review, gate = self.past_gate(wf)
        assert "does not follow the report format: items.0.severity" in gate.note
        assert (review.get("id"), gate.outcome) == ("review", "redo")

    def test_the_reviewer_prompt_says_where_the_report_goes(
            self, reported: tuple[Workflow, Path]) -> None:
        wf, report = reported
        review = follow(wf, step(wf, ["--step", "draft"]))
        texts = " ".join(a.text or "" for a in actions(review))
        assert f"as JSON to {report}" in texts and "qr-report.md" in texts
