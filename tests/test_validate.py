"""Registration is validation: each finding code on a minimal bad workflow, all findings at once,
did-you-mean, and the registry's refusal of a duplicate workflow name."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from skills.lib.workflow import (
    Action,
    Arg,
    AskUser,
    Param,
    Resource,
    Rework,
    StepContext,
    StepDef,
    Workflow,
    decides,
)
from skills.lib.workflow.graph.model import marked

from .validate_support import Register, always_ok, ask, end, refused, where


class TestFindingCodes:
    """Each check's finding names the step, the outcome where there is one, and the fix."""

    def test_duplicate_step_id_is_w001(self, register: Register) -> None:
        """Two steps with one id are refused."""
        wf = Workflow("w001-steps", [StepDef("a", "A", next={"ok": None}),
                                     StepDef("a", "A again", next={"ok": None})])
        found = refused(register, wf, r"W001 workflow 'w001-steps', step 'a': duplicate step "
                                      r"id\. Give each step its own id")
        assert where(found, "W001") == {("a", None)}

    def test_missing_entry_is_w002(self, register: Register) -> None:
        """An entry that names no step is refused, with the closest step suggested."""
        wf = Workflow("w002-entry", [end("start")], entry="strat")
        found = refused(register, wf, r"W002 workflow 'w002-entry': entry step 'strat' is not a "
                                      r"step\. Name an existing step as entry\. Did you mean "
                                      r"'start'\?")
        assert [f.code for f in found] == ["W002"]

    def test_empty_workflow_is_w002(self, register: Register) -> None:
        """A workflow without steps is refused."""
        found = refused(register, Workflow("w002-empty", []),
                        r"W002 workflow 'w002-empty': the workflow has no steps\. Add at least "
                        r"one StepDef")
        assert [f.code for f in found] == ["W002"]

    def test_unknown_target_is_w003(self, register: Register) -> None:
        """An outcome routed to no step names the step, the outcome and the fix."""
        wf = Workflow("w003-target", [StepDef("start", "S", next={"ok": "fnish"}), end("finish")])
        found = refused(register, wf, r"W003 workflow 'w003-target', step 'start', outcome 'ok': "
                                      r"routes to 'fnish', which is not a step\. Name an "
                                      r"existing step, or None to end the run\.")
        assert where(found, "W003") == {("start", "ok")}

    def test_unknown_exhaustion_step_is_w003(self, register: Register) -> None:
        """A rework edge whose on_exhausted names no step is refused."""
        wf = Workflow("w003-exhausted", [
            StepDef("look", "L", next={"iterate": Rework("look", 3, "nowhere"), "ok": "end"},
                    when={"iterate": "again", "ok": "done"}), end()])
        found = refused(register, wf, r"W003 workflow 'w003-exhausted', step 'look', outcome "
                                      r"'iterate': on exhaustion goes to 'nowhere', which is not "
                                      r"a step")
        assert where(found, "W003") == {("look", "iterate")}

    def test_unreachable_step_is_w004(self, register: Register) -> None:
        """A step no path from the entry reaches is refused."""
        wf = Workflow("w004-orphan", [end("start"), end("orphan")])
        found = refused(register, wf, r"W004 workflow 'w004-orphan', step 'orphan': unreachable "
                                      r"from the entry step\. Route an outcome of an earlier "
                                      r"step to it, or remove it")
        assert [f.code for f in found] == ["W004"]

    def test_step_without_outcomes_is_w005(self, register: Register) -> None:
        """A step with no outcome at all is a dead end."""
        wf = Workflow("w005-dead-end", [StepDef("start", "S", next={"ok": "stuck"}),
                                        StepDef("stuck", "Stuck")])
        found = refused(register, wf, r"W005 workflow 'w005-dead-end', step 'stuck': dead end: "
                                      r"the step has no outcomes\. Add next=")
        assert where(found, "W005") == {("stuck", None)}

    def test_trap_cycle_is_w006(self, register: Register) -> None:
        """Steps from which no path ends the run are refused, each named."""
        wf = Workflow("w006-trap", [
            StepDef("start", "S", next={"in": "spin", "out": "end"},
                    when={"in": "spin", "out": "leave"}),
            StepDef("spin", "Spin", next={"ok": "turn"}), StepDef("turn", "Turn",
                                                                 next={"ok": "spin"}), end()])
        found = refused(register, wf, r"W006 workflow 'w006-trap', step 'spin': no path from "
                                      r"this step ever ends the run\. Route some outcome of the "
                                      r"loop out")
        assert where(found, "W006") == {("spin", None), ("turn", None)}

    def test_cycle_without_rework_edge_is_w007(self, register: Register) -> None:
        """A loop no counted rework edge bounds is refused, with the fix."""
        wf = Workflow("w007-cycle", [
            StepDef("draft", "D", next={"ok": "check"}),
            StepDef("check", "C", next={"redo": "draft", "ok": "end"},
                    when={"redo": "not good", "ok": "good"}), end()])
        found = refused(register, wf, r"W007 workflow 'w007-cycle', step '(draft|check)': "
                                      r"unbounded cycle .*\. Make one edge of the cycle a "
                                      r"Rework\(target, max_iterations, on_exhausted\)")
        assert [f.code for f in found] == ["W007"]

    def test_rework_cap_below_two_is_w008(self, register: Register) -> None:
        """A rework edge with max_iterations=1 could never be taken."""
        wf = Workflow("w008-cap", [
            StepDef("look", "L", next={"iterate": Rework("look", 1, "end"), "ok": "end"},
                    when={"iterate": "again", "ok": "done"}), end()])
        found = refused(register, wf, r"W008 workflow 'w008-cap', step 'look', outcome "
                                      r"'iterate': max_iterations=1: the rework edge could never "
                                      r"be taken\. Use max_iterations >= 2")
        assert where(found, "W008") == {("look", "iterate")}

    def test_exhausted_loop_leading_back_into_itself_is_w008(self, register: Register) -> None:
        """An exhausted loop must lead out to an ask_user or terminal step."""
        wf = Workflow("w008-back", [
            StepDef("draft", "D", next={"ok": "check"}),
            StepDef("check", "C", next={"redo": Rework("draft", 3, "draft"), "ok": "end"},
                    when={"redo": "not good", "ok": "good"}), end()])
        found = refused(register, wf, r"W008 workflow 'w008-back', step 'check', outcome "
                                      r"'redo': when the loop is exhausted, 'draft' leads back "
                                      r"into the loop.*\. Set on_exhausted to a step outside")
        assert where(found, "W008") == {("check", "redo")}

    @pytest.mark.parametrize(("handler", "ask_user", "pattern", "outcome"), [
        (decides("ok", "fail")(lambda ctx: "ok"), None, r"step 'gate', outcome 'fail': the "
         r"handler may return this outcome, but next does not map it\. Map it in next", "fail"),
        (decides()(lambda ctx: "ok"), None, r"step 'gate', outcome 'ok': next maps this "
         r"outcome, but the handler never returns it\. Add it to @decides", "ok"),
        (always_ok, ask({"ok": "yes"}), r"step 'gate': a step is decided by a handler or by the "
                                        r"user, not both\. Drop the handler or the ask_user",
         None),
    ], ids=["unmapped", "never-returned", "handler-and-ask-user"])
    def test_handler_outcomes_differing_from_next_are_w009(
            self, register: Register, handler: Callable[[StepContext], str],
            ask_user: AskUser | None, pattern: str, outcome: str | None) -> None:
        """A handler's declared outcomes must be exactly the outcomes next maps."""
        wf = Workflow("w009-handler", [
            StepDef("gate", "G", next={"ok": "end"}, handler=handler, ask_user=ask_user), end()])
        found = refused(register, wf, r"W009 workflow 'w009-handler', " + pattern)
        assert ("gate", outcome) in where(found, "W009")

    def test_an_undeclared_handler_may_return_any_outcome_next_maps(
            self, register: Register) -> None:
        """The original system's handlers declare nothing: W009 compares only what @decides
        declares (the runner refuses an unmapped outcome when the handler returns one)."""
        wf = Workflow("w009-undeclared", [
            StepDef("gate", "G", next={"ok": "end", "skip": "end"}, handler=lambda ctx: "ok"),
            end()])
        assert register(wf).steps == wf.steps

    @pytest.mark.parametrize(("when", "ask_user", "pattern", "outcome"), [
        ({"go": "ready"}, None, r"outcome 'stop': no when condition for this outcome\. Add one, "
                                r"so the agent knows when to choose 'stop'", "stop"),
        ({"go": "ready", "stop": "not", "stp": "?"}, None, r"outcome 'stp': when condition for "
         r"an outcome next does not map\. Map it in next, or remove it\. Did you mean 'stop'\?",
         "stp"),
        ({}, ask({"go": "yes"}), r"outcome 'stop': no ask_user option for this outcome", "stop"),
    ], ids=["missing-when", "stray-when", "missing-option"])
    def test_branch_without_condition_for_every_outcome_is_w010(
            self, register: Register, when: dict[str, str], ask_user: AskUser | None,
            pattern: str, outcome: str) -> None:
        """Every outcome of an agent- or user-decided branch has its condition, and no more."""
        wf = Workflow("w010-when", [
            StepDef("pick", "P", next={"go": "end", "stop": "end"}, when=when,
                    ask_user=ask_user), end()])
        found = refused(register, wf, r"W010 workflow 'w010-when', step 'pick', " + pattern)
        assert ("pick", outcome) in where(found, "W010")

    def test_read_left_unwritten_on_one_path_is_w011(self, register: Register) -> None:
        """A key written on one branch only cannot be read where the branches meet."""
        wf = Workflow("w011-path", [
            StepDef("pick", "P", next={"long": "note", "short": "use"},
                    when={"long": "a", "short": "b"}),
            StepDef("note", "N", args=[Arg("NOTE", "the note")], next={"ok": "use"}),
            StepDef("use", "U", reads=("NOTE",), next={"ok": None})])
        found = refused(register, wf, r"W011 workflow 'w011-path', step 'use': reads NOTE, "
                                      r"which some path to this step has not written\. Make it "
                                      r"a required arg on every path here, or move it to "
                                      r"optional_reads")
        assert where(found, "W011") == {("use", None)}

    @pytest.mark.parametrize(("cap", "warned"), [(4, False), (1, True)])
    def test_a_value_every_pass_writes_is_there_when_the_loop_runs_out(
            self, register: Register, cap: int, warned: bool) -> None:
        """A check that fails leads to a fix (which writes FIX) at most cap - 1 times, then to
        'stuck', which reads FIX: with a cap of 4 the fix ran before the loop ran out, so FIX
        is written; with a cap of 1 the loop runs out at once, and W011 says so."""
        wf = Workflow(f"w011-exhausted-{cap}", [
            StepDef("tests", "T", when={"ok": "they pass", "fail": "they fail"},
                    next={"ok": "done", "fail": Rework("fix", cap, on_exhausted="stuck")}),
            StepDef("fix", "F", args=[Arg("FIX", "what changed")], next={"ok": "tests"}),
            StepDef("stuck", "S", reads=("FIX",), next={"ok": None}),
            StepDef("done", "D", next={"ok": None})])
        if warned:
            found = refused(register, wf, r"W011 .*step 'stuck': reads FIX")
            assert where(found, "W011") == {("stuck", None)}
        else:
            register(wf)

    def test_optional_read_may_be_unwritten_but_must_exist(self, register: Register) -> None:
        """optional_reads tolerate a missing value, not a key no step asks for."""
        wf = Workflow("w011-optional", [
            StepDef("loop", "L", args=[Arg("NOTE", "the note")], optional_reads=("NOTE", "NOTS"),
                    next={"again": Rework("loop", 3, "end"), "ok": "end"},
                    when={"again": "a", "ok": "b"}), end()])
        found = refused(register, wf, r"W011 workflow 'w011-optional', step 'loop': "
                                      r"optional_reads names NOTS, which no step asks for\. Fix "
                                      r"the key\. Did you mean 'NOTE'\?")
        assert where(found, "W011") == {("loop", None)}

    def test_action_output_landing_nowhere_is_w013(self, register: Register) -> None:
        """An action's out= must name an arg of the step, with the closest key suggested."""
        wf = Workflow("w013-out", [
            StepDef("find", "F", actions=[Action("Find the cause.", out="CAUSES")],
                    args=[Arg("CAUSE", "the cause")], next={"ok": "end"}), end()])
        found = refused(register, wf, r"W013 workflow 'w013-out', step 'find': an action's "
                                      r"out='CAUSES' names no arg of the step\. Declare "
                                      r"Arg\('CAUSES', \.\.\.\) on the step, or use out='reply'\. "
                                      r"Did you mean 'CAUSE'\?")
        assert where(found, "W013") == {("find", None)}

    def test_arg_asked_on_unknown_outcome_is_w013(self, register: Register) -> None:
        """An arg limited to an outcome next does not map is refused."""
        wf = Workflow("w013-arg", [
            StepDef("find", "F", args=[Arg("CAUSE", "the cause", outcomes=("okk",))],
                    next={"ok": "end"}), end()])
        found = refused(register, wf, r"W013 workflow 'w013-arg', step 'find', outcome 'okk': "
                                      r"arg CAUSE is asked on an outcome next does not map\. "
                                      r"Fix the outcome name\. Did you mean 'ok'\?")
        assert where(found, "W013") == {("find", "okk")}

    def test_arg_described_by_nothing_is_w013(self, register: Register) -> None:
        """An arg may leave its description to the action whose out names it; with no such
        action, nothing would tell the agent what to report, and it is refused."""
        said = Workflow("w013-said", [
            StepDef("find", "F", actions=[Action("Name the cause, with file:line.", out="CAUSE")],
                    args=[Arg("CAUSE")], next={"ok": "end"}), end()])
        register(said)  # the action says it: accepted
        wf = Workflow("w013-bare", [
            StepDef("find", "F", actions=["Find the cause."], args=[Arg("CAUSE")],
                    next={"ok": "end"}), end()])
        found = refused(register, wf, r"W013 workflow 'w013-bare', step 'find': arg CAUSE has "
                                      r"no description\. Give Arg\('CAUSE', 'what it holds'\), "
                                      r"or an action with out='CAUSE' that says it\.")
        assert where(found, "W013") == {("find", None)}

    def test_arg_asked_twice_on_one_command_is_w013(self, register: Register) -> None:
        """Two declarations of one key on the same outcome's command are refused."""
        wf = Workflow("w013-twice", [
            StepDef("find", "F", args=[Arg("CAUSE", "the cause"), Arg("CAUSE", "again")],
                    next={"ok": "end"}), end()])
        found = refused(register, wf, r"W013 workflow 'w013-twice', step 'find', outcome 'ok': "
                                      r"arg CAUSE is asked twice on one command\. Limit each "
                                      r"declaration to other outcomes")
        assert where(found, "W013") == {("find", "ok")}

    def test_agent_step_both_ending_and_continuing_is_w014(self, register: Register) -> None:
        """An agent-decided step cannot both end the run and continue."""
        wf = Workflow("w014-mixed", [
            StepDef("pick", "P", next={"go": "end", "stop": None},
                    when={"go": "more", "stop": "enough"}), end()])
        found = refused(register, wf, r"W014 workflow 'w014-mixed', step 'pick': an agent- or "
                                      r"user-decided step cannot both end the run and continue\. "
                                      r"Route the ending outcome to a final step")
        assert where(found, "W014") == {("pick", None)}

    def test_script_step_may_both_end_the_run_and_continue(self, register: Register) -> None:
        """A handler picks one outcome, so it may mix ending and continuing (no W014)."""
        wf = Workflow("w014-script", [
            StepDef("pick", "P", next={"ok": "end", "skip": None},
                    handler=decides("ok", "skip")(lambda ctx: "ok")), end()])
        assert register(wf) is not None

    @pytest.mark.parametrize(("wf", "pattern"), [
        (Workflow("Bad_Name", [end()]), r"W015 workflow 'Bad_Name': workflow name 'Bad_Name' is "
                                        r"not lowercase-kebab"),
        (Workflow("w015-step", [end("Start")]), r"W015 workflow 'w015-step', step 'Start': step "
                                                r"id 'Start' is not lowercase-kebab"),
        (Workflow("w015-outcome", [StepDef("start", "S", next={"OK": None})]),
         r"W015 workflow 'w015-outcome', step 'start': outcome 'OK' is not lowercase-kebab"),
        (Workflow("w015-arg", [StepDef("start", "S", args=[Arg("cause", "c")],
                                       next={"ok": None})]),
         r"W015 workflow 'w015-arg', step 'start': arg key 'cause' is not UPPER_SNAKE\. Use "
         r"capitals"),
        (Workflow("w015-param", [end()], params=[Param("step", "clashes with --step")]),
         r"W015 workflow 'w015-param': param name 'step' is not lowercase-kebab or is a flag "
         r"the step runner owns\. Rename the param"),
    ], ids=["workflow", "step", "outcome", "arg", "reserved-param"])
    def test_name_that_would_not_survive_a_command_line_is_w015(
            self, register: Register, wf: Workflow, pattern: str) -> None:
        """Names must be kebab (arg keys UPPER_SNAKE), and params must not shadow runner flags."""
        found = refused(register, wf, pattern)
        assert "W015" in {f.code for f in found}

    def test_missing_resource_file_is_w016(self, register: Register, tmp_path: Path) -> None:
        """A listed resource must exist in the skill folder."""
        script = tmp_path / "skill" / "scripts" / "flow.py"
        wf = marked(Workflow("w016-resource", [StepDef("start", "S", next={"ok": None}, resources=[
            Resource("guide", "resources/guide.md", "before you start")])]), source=str(script))
        found = refused(register, wf, r"W016 workflow 'w016-resource', step 'start': resource "
                                      r"'guide' names resources/guide\.md, which does not exist "
                                      r".*\. Create the file or fix the path")
        assert where(found, "W016") == {("start", None)}

    def test_present_resource_file_passes(self, register: Register, tmp_path: Path) -> None:
        """The same workflow registers once the resource file exists."""
        (tmp_path / "skill" / "resources").mkdir(parents=True)
        (tmp_path / "skill" / "resources" / "guide.md").write_text("# Guide\n")
        wf = marked(Workflow("w016-present", [StepDef("start", "S", next={"ok": None}, resources=[
            Resource("guide", "resources/guide.md", "before you start")])]),
                source=str(tmp_path / "skill" / "scripts" / "flow.py"))
        assert register(wf) is not None
