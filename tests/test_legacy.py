"""The legacy API: STEPS dicts adapted into validated Workflows, the original format_* functions
producing protocol v1 (element for element what the new API prints), and the original
`--qr-status` / `--qr-iteration` / `--qr-fail` flags driving a review gate."""

from __future__ import annotations

import shlex
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from skills.lib.workflow import (
    Action,
    Dispatch,
    InvalidWorkflow,
    SkillrailError,
    StepDef,
    Workflow,
    register_workflow,
)
from skills.lib.workflow.authoring.registry import unregister
from skills.lib.workflow.graph.model import marked
from skills.lib.workflow.legacy import (
    BranchRouting,
    GateConfig,
    LinearRouting,
    QRState,
    Step,
    TerminalRouting,
    adapt,
    format_expected_output,
    format_forbidden,
    format_gate_step,
    format_qr_banner,
    format_resource,
    format_routing,
    format_state_banner,
    format_step_output,
    format_subagent_dispatch,
    format_text_output,
)
from skills.lib.workflow.protocol.reading import lines
from skills.lib.workflow.protocol.schema import schema_errors

from .conftest import SKILLS_ROOT
from .harness import (
    banner,
    cmd_text,
    decided,
    first_action,
    next_cmd_text,
    notes,
    offered,
    outcome_of,
    run,
    subagent_cmd,
)
from .oracles import loop_id, xml_chars
from .strategies import texts

STEPS = {
    1: Step("Draft", ["Write the draft."]),
    2: Step("Review", ["Read the draft <as is> & judge it.",
                       format_forbidden(["Do not edit the draft."]),
                       format_expected_output(["findings", "or none"])], LinearRouting()),
    3: Step("Gate", [], gate=GateConfig("Draft-Review", work_step=1, pass_step=4,
                                        pass_message="The draft passed.")),
    4: Step("Decide", ["Decide."], BranchRouting(if_pass=5, if_fail=6)),
    5: Step("Ship", ["Ship it."], TerminalRouting()),
    6: Step("Shelve", ["Shelve it."], TerminalRouting()),
}


@pytest.fixture(scope="module")
def legacy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workflow]:
    """STEPS, adapted and registered from a script path in a skill folder named 'legacy-demo'."""
    script = tmp_path_factory.mktemp("skills") / "legacy-demo" / "scripts" / "legacy-demo.py"
    script.parent.mkdir(parents=True)
    script.write_text("# stands in for the legacy script\n")
    wf = register_workflow(adapt("legacy-demo", STEPS, 6, source=str(script), limit=3))
    yield wf
    unregister(wf.name)


def canonical(xml: str) -> str:
    return ET.canonicalize(xml, strip_text=True)


def commands_apart(xml: str) -> tuple[str, list[list[str]]]:
    """A document with its commands blanked, and each command's flags (interpreter and script
    dropped): the runner's commands and the original shape's differ, the rest must not."""
    import shlex

    doc = ET.fromstring(xml)
    flags = []
    for held in offered(doc):  # a command is a <cmd>, or the text of its <NEXT> or <invoke>
        node = held.find("cmd")
        node = held if node is None else node
        flags.append(shlex.split(node.text or "")[2:])
        node.text = "CMD"
    return canonical(ET.tostring(doc, encoding="unicode")), flags


def step(wf: Workflow, argv: list[str]) -> ET.Element:
    result = run(wf, argv)
    assert result.code == 0, result.stderr
    assert schema_errors(result.out) == []
    return result.document()


def banner_iteration(doc: ET.Element) -> str | None:
    said = banner(doc.find("banner"))
    return None if said is None else str(said.n)


def banner_mode(doc: ET.Element) -> str | None:
    said = banner(doc.find("banner"))
    return None if said is None else said.mode


def cmd_of(doc: ET.Element, outcome: str | None = None) -> list[str]:
    import shlex

    found = [i for i in offered(doc) if outcome in (None, outcome_of(i))]
    assert len(found) == 1
    return shlex.split(cmd_text(found[0]))[2:]  # drop interpreter and script


class TestAdaptation:
    def test_numbered_steps_become_a_validated_graph(self, legacy: Workflow) -> None:
        """Steps keep their numbers as positions; the gate's loop adds escalation and abort."""
        assert [s.id for s in legacy.steps] == [
            "step-1", "step-2", "draft-review-gate", "step-4", "step-5", "step-6",
            "draft-review-escalate", "draft-review-abort"]
        assert legacy.legacy
        assert dict(legacy.by_id["step-4"].next) == {"pass": "step-5", "fail": "step-6"}
        assert legacy.by_id["draft-review-gate"].decided_by == "script"

    def test_shape_problems_are_reported_together(self) -> None:
        """Wrong total, a route past the end and a gate with no review: three W017 findings."""
        bad = {1: Step("A", ["a"]), 2: Step("B", ["b"], LinearRouting()),
               3: Step("G", [], gate=GateConfig("q", work_step=2, pass_step=9))}
        with pytest.raises(InvalidWorkflow) as caught:
            adapt("bad", bad, 4)
        messages = [f.message for f in caught.value.findings]
        assert all(f.code == "W017" for f in caught.value.findings)
        assert any("total_steps=4" in m for m in messages)
        assert any("pass_step 9" in m for m in messages)
        assert any("does not lead straight to the review" in m for m in messages)

    def test_numbering_with_a_gap_is_refused(self) -> None:
        with pytest.raises(InvalidWorkflow, match="problem") as caught:
            adapt("gap", {1: Step("A", ["a"], TerminalRouting()), 3: Step("C", ["c"])}, 2)
        assert "are not 1..2" in caught.value.findings[0].message

    def test_an_unbounded_legacy_loop_fails_graph_validation(self) -> None:
        """A BranchRouting back to an earlier step is a loop without a cap: W007 on register."""
        looping = {1: Step("A", ["a"]), 2: Step("B", ["b"], BranchRouting(if_pass=3, if_fail=1)),
                   3: Step("C", ["c"], TerminalRouting())}
        with pytest.raises(InvalidWorkflow) as caught:
            register_workflow(adapt("looping", looping, 3, source=__file__))
        assert {f.code for f in caught.value.findings} == {"W007"}


class TestSameProtocol:
    def test_format_step_output_prints_what_the_runner_prints(self, tmp_path: Path) -> None:
        """format_step_output for each step of a gate-less STEPS equals the adapted workflow's
        step as the runner prints it, but for its commands, which are in the original shape
        for the script's own argv. (With a gate the runner's workflow has the loop's extra
        steps, which a stand-alone call cannot know, so `total` differs.)"""
        plain = {1: Step("Decide", ["Decide <now> & here."], BranchRouting(if_pass=2, if_fail=3)),
                 2: Step("Ship", ["Ship it.", format_forbidden(["No Friday deploys."])],
                         TerminalRouting()),
                 3: Step("Shelve", ["Shelve it."], TerminalRouting())}
        script = tmp_path / "legacy-plain" / "scripts" / "legacy-plain.py"
        wf = register_workflow(adapt("legacy-plain", plain, 3, source=str(script)))
        try:
            for n, s in plain.items():
                printed = run(wf, ["--step", str(n), "--stateless"])
                assert printed.code == 0, printed.stderr
                made = format_step_output(str(script), n, 3, s.title, s.actions, s.routing)
                assert schema_errors(made) == []
                made_doc, made_flags = commands_apart(made)
                printed_doc, printed_flags = commands_apart(printed.stdout)
                assert made_doc == printed_doc
                assert made_flags == [["--step", f[1].removeprefix("step-"), "--total-steps",
                                       "3"] for f in printed_flags]
        finally:
            unregister(wf.name)

    def test_the_legacy_step_equals_the_new_api_step(self, legacy: Workflow) -> None:
        """The same step written with the new API renders the same document."""
        new = register_workflow(marked(Workflow("legacy-demo-new", [
            StepDef("step-1", "Start", actions=["Start."], next={"ok": "step-2"}),
            StepDef("step-2", "Ship", actions=[Action("Ship it.")],
                    forbidden=["Do not edit the draft."], expect="- findings\n- or none",
                    next={"ok": None}),
        ], skill="legacy-demo"), source=legacy.source))
        try:
            printed = run(new, ["--step", "2", "--stateless"]).stdout
        finally:
            unregister(new.name)
        made = format_step_output(legacy.source, 2, 2, "Ship", [
            "Ship it.", format_forbidden(["Do not edit the draft."]),
            format_expected_output(["findings", "or none"])], TerminalRouting())
        # The mandate's orientation names the workflow, whose name differs here.
        strip = ET.fromstring(printed.replace("'legacy-demo-new'", "'legacy-demo'"))
        del strip.attrib["workflow"]
        assert canonical(made) == canonical(ET.tostring(strip, encoding="unicode"))

    def test_pieces_are_the_elements_the_runner_builds(self, legacy: Workflow) -> None:
        doc = step(legacy, ["--step", "2", "--stateless"])
        said = lines(doc.find("DO"))
        forbidden = lines(ET.fromstring(format_forbidden(["Do not edit the draft."])))
        expected = lines(ET.fromstring(format_expected_output(["findings", "or none"])))
        assert forbidden[0] in said and expected[0] in said
        shown = doc.find("banner")
        assert shown is not None
        assert canonical(format_state_banner("draft-review", 1, "fresh-review", limit=3)) == \
            canonical(ET.tostring(shown, encoding="unicode"))

    def test_text_output_renders_the_same_step_as_plain_text(self, legacy: Workflow) -> None:
        text = format_text_output(legacy.source, 5, 6, "Ship", ["Ship it."], TerminalRouting())
        assert text.startswith("STEP [") and "Ship it." in text and "<" not in text


class TestPieces:
    @settings(max_examples=60, deadline=None)
    @given(texts(), texts())
    def test_any_text_makes_well_formed_pieces(self, a: str, b: str) -> None:
        """Whatever the text, every piece parses and carries the text unchanged (but for the
        characters XML cannot hold, and line ends as LF); a banner names its loop as a step
        id would ('QR-Completeness' -> 'qr-completeness')."""
        forbidden = lines(ET.fromstring(format_forbidden([a, b])))
        assert [i.text for i in forbidden] == [xml_chars(a), xml_chars(b)]
        [resource] = lines(ET.fromstring(format_resource(a, b)))
        assert resource.kind == "action" and resource.text == xml_chars(f"{a}:\n{b}")
        fix = banner(ET.fromstring(format_state_banner(a, 2, "fix")))  # named as the gate does
        assert fix is not None and (fix.loop, fix.mode) == (loop_id(a), "fix")
        dispatch = ET.fromstring(format_subagent_dispatch("developer", "", free_form=True,
                                                          context_vars={"NOTE": b}))
        assert f"- NOTE: {xml_chars(b)}" in (dispatch.findtext("prompt") or "")  # the prompt's

    def test_every_review_banner_is_a_fresh_review(self) -> None:
        """The original 're-verify fixes' framing is not reproduced: PROTOCOL.md forbids it."""
        for fresh in (True, False):
            said = banner(ET.fromstring(format_qr_banner(QRState(3, True, "fail"), "plan", fresh)))
            assert said is not None and (said.mode, said.n) == ("fresh-review", 3)

    def test_a_dispatch_equals_the_new_api_dispatch(self, tmp_path: Path) -> None:
        made = ET.fromstring(format_subagent_dispatch("developer", "/abs/fix.py",
                                                      context_vars={"PLAN": "plan.md"}))
        assert made.get("agent") == "developer"
        assert subagent_cmd(made).endswith("/abs/fix.py --step 1 --stateless")
        assert "- PLAN: plan.md" in (made.findtext("prompt") or "")
        assert "First run this command" in (made.findtext("prompt") or "")
        new = marked(Workflow("d", [StepDef("go", "Go", dispatch=Dispatch(
            "developer", "You are the developer sub-agent. Follow the steps of the script "
            "below, in order, to the end.", "the reply the script's last step asks for",
            script="/abs/fix.py", vars={"PLAN": "plan.md"}), next={"ok": None})]),
                source=str(tmp_path / "d" / "scripts" / "d.py"))
        node = step(new, ["--step", "go", "--stateless"]).find("DO/dispatch")
        assert node is not None
        assert canonical(ET.tostring(node, encoding="unicode")) == canonical(
            ET.tostring(made, encoding="unicode"))

    def test_a_dispatch_from_a_later_step_is_refused(self) -> None:
        with pytest.raises(SkillrailError, match="a sub-agent starts at its entry step"):
            format_subagent_dispatch("developer", "/abs/fix.py", step=3)

    def test_routing_gives_the_next_element(self, legacy: Workflow) -> None:
        nxt = ET.fromstring(format_routing(BranchRouting(1, 3), legacy.source, 2, 3))
        whens = [i.get("when") for i in nxt.findall("invoke")]
        assert nxt.tag == "NEXT" and whens == ["the work of this step succeeded",
                                               "the work of this step did not succeed"]
        done = ET.fromstring(format_routing(TerminalRouting(), legacy.source, 3, 3))
        assert done.find("complete") is not None


class TestGateStep:
    GATE = GateConfig("plan", work_step=1, pass_step=4, pass_message="Plan approved.")

    def gate(self, qr: QRState) -> ET.Element:
        xml = format_gate_step("/s/plan/scripts/plan.py", 3, 4, "Gate", qr, self.GATE, 3)
        assert schema_errors(xml) == []
        return ET.fromstring(xml)

    def test_a_pass_goes_on_with_the_pass_message(self) -> None:
        doc = self.gate(QRState(1, False, "pass"))
        assert "Plan approved." in (first_action(doc) or "")
        assert (next_cmd_text(doc) or "").endswith(" --step 4 --total-steps 4")

    def test_a_fail_goes_back_in_fix_mode_with_the_next_iteration(self) -> None:
        cmd = next_cmd_text(self.gate(QRState(2, True, "fail")))
        assert cmd.endswith(" --step 1 --total-steps 4 --qr-iteration=3 --qr-fail")

    def test_a_fail_on_the_last_pass_ends_with_the_findings_for_the_user(self) -> None:
        """The original's scripts have no step for the escalation: the document ends there."""
        doc = self.gate(QRState(3, True, "fail"))
        assert not offered(doc)
        assert "failed on all 3 passes" in (doc.findtext("NEXT/complete") or "")
        assert "ask how to go on" in (doc.findtext("NEXT/complete") or "")

    def test_no_status_asks_for_the_verdict(self) -> None:
        """A review command without --qr-status: one command per verdict, never a guess."""
        doc = self.gate(QRState(2))
        cmds = {outcome_of(i): cmd_text(i) for i in offered(doc)}
        assert set(cmds) == {"pass", "fail"}
        assert all(c.endswith(f" --step 3 --total-steps 4 --qr-iteration=2 --qr-status {v}")
                   for v, c in cmds.items())
        assert doc.find("memory") is None

    def test_an_unknown_status_is_an_error(self) -> None:
        with pytest.raises(SkillrailError, match="status"):
            self.gate(QRState(1, False, "maybe"))


class TestQRFlags:
    """The original flags on the adapted workflow: --qr-status reports the verdict, and
    stateless commands carry --qr-iteration (and --qr-fail on a fix pass)."""

    def test_failing_reviews_count_1_to_limit_then_escalate(self, legacy: Workflow) -> None:
        doc = step(legacy, ["--step", "1", "--stateless"])
        seen = []
        for _ in range(3):
            review = step(legacy, cmd_of(doc))
            seen.append(banner_iteration(review))
            doc = step(legacy, [*cmd_of(review), "--qr-status", "fail",
                                "--set", "QR_FINDINGS=F1 MUST too long"])
            assert decided(doc) == [("draft-review-gate", "fail")]  # passed through
        assert seen == ["1", "2", "3"]
        assert doc.get("id") == "draft-review-escalate"

    def test_the_fix_pass_command_carries_the_original_flags(self, legacy: Workflow) -> None:
        """After a failed gate the work step is on its fix pass, and its command carries the
        review's pass as --qr-iteration, never --loop."""
        review = step(legacy, cmd_of(step(legacy, ["--step", "1", "--stateless"])))
        work = step(legacy, [*cmd_of(review), "--qr-status", "fail", "--set", "QR_FINDINGS=x"])
        assert (work.get("id"), banner_mode(work)) == ("step-1", "fix")
        again = cmd_of(work)
        assert "--qr-iteration=2" in again
        assert not any(a.startswith("--loop") for a in again)

    def test_a_run_takes_qr_status_but_not_the_stateless_flags(self, legacy: Workflow) -> None:
        review = step(legacy, cmd_of(step(legacy, ["--step", "1"])))
        after = step(legacy, [*cmd_of(review), "--qr-status", "pass", "--set", "QR_FINDINGS=none"])
        assert "The draft passed." in " ".join(notes(after))
        first = shlex.split(cmd_text(offered(after)[0]))[2:]
        refused = run(legacy, [*first, "--qr-iteration", "2"])
        assert refused.code == 2 and "--run cannot go with --qr-iteration" in refused.stderr

    @pytest.mark.parametrize(("argv", "message"), [
        (["--step", "5", "--stateless", "--qr-iteration", "2"], "belong to the steps of a review"),
        (["--step", "2", "--stateless", "--qr-fail", "--qr-iteration", "2"], "marks a fix pass"),
        (["--step", "1", "--stateless", "--qr-fail"], "--qr-fail needs --qr-iteration"),
        (["--step", "2", "--stateless", "--qr-iteration", "2",
          "--loop", "draft-review-gate:fail=1"], "both give the loop's pass"),
        (["--step", "3", "--from", "step-2", "--qr-status", "pass",
          "--set", "QR_VERDICT=pass", "--set", "QR_FINDINGS=none"], "both give the verdict"),
    ])
    def test_inconsistent_flags_are_refused(self, legacy: Workflow, argv: list[str],
                                            message: str) -> None:
        result = run(legacy, argv)
        assert result.code == 2 and message in result.stderr and result.out == b""


def test_the_legacy_example_skill_loops_on_the_original_flags(repo: Path) -> None:
    """commit-message, run as subprocesses in stateless mode the way a legacy agent would:
    every review reported with --qr-status fail; the printed commands carry --qr-iteration
    1..5, then the gate hands the run to the user."""
    import shlex
    import subprocess
    import sys

    script = repo / ".claude" / "skills" / "commit-message" / "scripts" / "commit-message.py"

    def call(argv: list[str]) -> ET.Element:
        proc = subprocess.run([sys.executable, str(script), *argv], capture_output=True,
                              text=True, timeout=60)
        assert proc.returncode == 0 and proc.stderr == "", proc.stderr
        return ET.fromstring(proc.stdout)

    doc = call(["--step", "1", "--stateless"])
    iterations = []
    while doc.get("id") != "message-review-escalate":
        cmd = shlex.split(next_cmd_text(doc) or "")[2:]
        if doc.get("id") == "step-2":
            iterations += [a.partition("=")[2] for a in cmd if a.startswith("--qr-iteration=")]
            cmd += ["--qr-status", "fail", "--set", "QR_FINDINGS=F1 MUST wrong subject"]
        doc = call(cmd)
        assert len(iterations) <= 5
    assert iterations == ["1", "2", "3", "4", "5"]


@pytest.mark.parametrize("first", ["format_step_output", "skill", "adapt"])
def test_the_lazy_adapt_is_the_function_whatever_loads_first(first: str) -> None:
    """The package loads adapt.py and formatters.py on first use; loading adapt.py makes the
    package's attribute `adapt` the submodule, which must not hide the function of that name
    (formatters.py imports adapt.py, so a format_* name first used to do just that)."""
    import os
    import subprocess
    import sys

    probe = (f"from skills.lib.workflow.legacy import {first}\n"
             "from skills.lib.workflow.legacy import adapt, format_routing, skill\n"
             "print(callable(adapt), callable(format_routing), callable(skill))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "PYTHONPATH": str(SKILLS_ROOT.parent)})
    assert done.stdout.split() == ["True", "True", "True"], done.stderr
