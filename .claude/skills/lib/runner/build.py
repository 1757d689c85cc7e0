"""An approved plan becomes a workflow, built at run time from data and validated like any
other. Per plan step S:

    S (do: the one action)  ->  S-verify (its check, when the plan gives one: script-decided)
      ->  S-eval (the evaluator's instruction: pass, with the key outputs; or fail)
    a failed check or evaluation -> S-retry (what to change) -> S again, at most max_retries
    passes; then S-escalate asks the user: retry with guidance, skip, or abort.

After the last step the user is asked for feedback, and `learn` records what the run taught.
Every text taken from the plan is data the agent wrote, so it is shown as written (never
expanded for variables or commands).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from skills.lib.workflow import Action, Arg, AskUser, Param, Rework, StepDef, Workflow
from skills.lib.workflow.graph.model import StepContext
from skills.lib.workflow.graph.types import VERIFY_OUTPUT

NAME = "skill-runner-plan"
#: Extra attempts the user may grant a step after its retries are used up.
USER_RETRIES = 2


def counter(n: int, total: int) -> str:
    """Where a step stands in the plan, the one count a person can follow: 'Plan step 3 of 10'.
    (A step document's `n` is its position among the workflow's steps, four or five per plan
    step, and says nothing a person needs.)"""
    return f"Plan step {n} of {total}"


def key(step_id: str, what: str) -> str:
    """The memory key of a step's own value: RESULT_WRITE_NOTES for ('write-notes', 'RESULT')."""
    return f"{what}_{step_id.upper().replace('-', '_')}"


def plan_workflow(plan: dict[str, Any], learn: Callable[[StepContext], str],
                  plan_param: Param) -> Workflow:
    """The workflow of `plan` (already validated and sealed)."""
    steps: list[StepDef] = []
    spec = plan["steps"]
    for n, item in enumerate(spec):
        after = spec[n + 1]["id"] if n + 1 < len(spec) else "feedback"
        earlier = tuple(k for s in spec[:n] for k in s.get("key_outputs", []))
        steps += _plan_step(item, n + 1, len(spec), after, earlier, plan)
    outputs = tuple(k for s in spec for k in s.get("key_outputs", []))
    steps += [_feedback(), StepDef(
        "learn", "Record what this run taught", handler=learn,
        optional_reads=outputs + ("FEEDBACK",),
        actions=[Action("The script recorded the run's passed steps, failures and the user's "
                        "feedback for the next time this skill is planned. Give the user the "
                        "result: each step that passed with its key outputs (shown above), "
                        "each step that was skipped, and where the run stopped if it was "
                        "aborted.",
                        out="reply")],
        next={"ok": None}, complete="The run is finished. Give the user your summary.")]
    return Workflow(NAME, steps, skill="skill-runner", params=(plan_param,), generated=True,
                    approved_commands=tuple(plan.get("approved_commands", ())),
                    description=f"Runs the approved plan for the skill "
                                f"'{plan.get('skill', '?')}': {plan['directive'].rstrip('.')}.")


def _plan_step(item: dict[str, Any], n: int, total: int, after: str,
               earlier: tuple[str, ...], plan: dict[str, Any]) -> list[StepDef]:
    sid, title, verify = item["id"], item["title"], item.get("verify")
    retries = int(plan.get("max_retries", 3))
    directive = f"Directive of the whole run: {plan['directive']}"
    action = (f"Do exactly this one tool call, nothing more: {item['tool_call']}"
              if item.get("tool_call") else
              f"Do exactly this one text task, with no tool call: {item['text_task']}")
    do = StepDef(
        sid, f"{counter(n, total)}: {title}",
        optional_reads=earlier + (key(sid, "FINDINGS"), key(sid, "CHANGE"),
                                  key(sid, "GUIDANCE")),
        actions=[_literal(directive), _literal(action), _literal(f"How: {item['optimizer']}"),
                 Action(_retry_note(sid)),
                 Action("Record what the action produced or changed, briefly.",
                        out=key(sid, "RESULT"))],
        args=[Arg(key(sid, "RESULT"), "what the action produced or changed, in short")],
        forbidden=["Do not start the next step's work here.",
                   "Do not run other tools than the one action names."],
        next={"ok": f"{sid}-verify" if verify else f"{sid}-eval"})
    evaluate = StepDef(
        f"{sid}-eval", f"{counter(n, total)}: {title} (evaluate)", reads=(key(sid, "RESULT"),),
        optional_reads=earlier + ((VERIFY_OUTPUT,) if verify else ()),
        actions=[_literal(directive), _literal(f"Evaluate: {item['evaluator']}"),
                 Action("Judge only what the evaluator asks; a partial result is a fail.")],
        args=[*(Arg(k, f"the value of {k} the step produced", outcomes=("pass",))
                for k in item.get("key_outputs", [])),
              Arg(key(sid, "FINDINGS"), "what failed, with the evidence", outcomes=("fail",))],
        next={"pass": after, "fail": f"{sid}-retry"},
        when={"pass": "every check of the evaluator instruction holds",
              "fail": "any check fails, or you could not check it"})
    retry = StepDef(
        f"{sid}-retry", f"{counter(n, total)}: {title} (before another attempt)",
        optional_reads=(key(sid, "FINDINGS"),) + ((VERIFY_OUTPUT,) if verify else ()),
        actions=[Action(_retry_question(sid, retries), out=key(sid, "CHANGE"))],
        args=[Arg(key(sid, "CHANGE"), "what the next attempt does differently")],
        next={"again": Rework(sid, retries, f"{sid}-escalate")})
    escalate = StepDef(
        f"{sid}-escalate", f"{counter(n, total)}: {title} (ask the user)",
        optional_reads=(key(sid, "FINDINGS"), key(sid, "CHANGE"))
        + ((VERIFY_OUTPUT,) if verify else ()),
        ask_user=AskUser(_fixed(f"The step '{title}' failed {retries} times (its last "
                                "findings are above). How should the run go on?"),
                         {"retry": "Try again, with my guidance",
                          "skip": "Skip this step and go on",
                          "abort": "Stop the run here"}),
        args=[Arg(key(sid, "GUIDANCE"), "the user's guidance, in their words",
                  outcomes=("retry",)),
              *(Arg(k, f"{k}, only if the user gave it (later steps use it)", required=False,
                    outcomes=("skip",)) for k in item.get("key_outputs", []))],
        next={"retry": Rework(sid, USER_RETRIES, "feedback"), "skip": after,
              "abort": "feedback"})
    steps = [do, evaluate, retry, escalate]
    if verify:
        steps.insert(1, _verify_step(sid, n, total, title, verify,
                                     bool(item.get("expect_failure"))))
    return steps


def _verify_step(sid: str, n: int, total: int, title: str, command: str,
                 expect_failure: bool) -> StepDef:
    """The step's check, decided by the command's exit status: it must pass, or, for the red
    phase of a test-first step (expect_failure), fail."""
    good, bad = (("fail", "ok") if expect_failure else ("ok", "fail"))
    return StepDef(f"{sid}-verify", f"{counter(n, total)}: {title} (its check"
                   + (", which must fail)" if expect_failure else ")"),
                   verify=_fixed(command),  # data: a function, so never expanded
                   next={good: f"{sid}-eval", bad: f"{sid}-retry"},
                   prepare=_file_check_world(command))


def _feedback() -> StepDef:
    return StepDef(
        "feedback", "Ask for feedback", ask_user=AskUser(
            "The plan's run is over. Is there anything the next run of this skill should do "
            "differently? (Optional.)",
            {"feedback": "Yes, this (say it)", "none": "No feedback"}),
        args=[Arg("FEEDBACK", "the user's feedback, in their words", outcomes=("feedback",))],
        next={"feedback": "learn", "none": "learn"})


def _fixed(text: str) -> Callable[[StepContext], str]:
    """`text` as a text computed at run time: the plan's words are data, shown as written."""
    def said(ctx: StepContext) -> str:
        return text
    return said


def _literal(text: str) -> Action:
    return Action(_fixed(text))


def _retry_note(sid: str) -> Callable[[StepContext], str]:
    def note(ctx: StepContext) -> str:
        passes = ctx.passes(f"{sid}-retry:again") + ctx.passes(f"{sid}-escalate:retry")
        if not passes:
            return ""
        guidance = ctx.values.get(key(sid, "GUIDANCE"))
        check = ctx.values.get(VERIFY_OUTPUT, "")
        said = f" The last check said: {check.splitlines()[-1][:200]}" if check else ""
        return (f"This is attempt {passes + 1}: change what {key(sid, 'CHANGE')} says"
                + (f", and follow the user's guidance in {key(sid, 'GUIDANCE')}." if guidance
                   else ".") + said)
    return note


def _retry_question(sid: str, retries: int) -> Callable[[StepContext], str]:
    def question(ctx: StepContext) -> str:
        if ctx.passes(f"{sid}-retry:again") + 1 >= retries:
            return ("That was the last attempt: the user decides next. Say in one line what "
                    "keeps failing (the check's output or your findings say why), for the user.")
        return ("The last attempt failed (the check's output or your findings say why). Say "
                "in one line what the next attempt will do differently.")
    return question


def _file_check_world(command: str) -> Callable[[StepContext, str], None] | None:
    """For simulation: a check by the runner's own file-check script passes when its file
    exists, so the world for each outcome is that file made or removed."""
    words = command.split()
    if len(words) < 3 or not words[1].endswith("/_file_check.py"):
        return None
    path = words[2]

    def prepare(ctx: StepContext, wanted: str) -> None:
        if wanted == "ok":
            with open(path, "w", encoding="utf-8") as handle:
                handle.write("made for the simulation\n")
        elif os.path.exists(path):
            os.remove(path)

    return prepare
