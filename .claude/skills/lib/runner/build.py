"""An approved plan becomes a workflow, built at run time from data and validated like any
other. Per plan step S:

    S (do: the one action)  ->  S-verify (its check, when the plan gives one: script-decided)
      ->  S-eval (the evaluator's instruction: pass, with the key outputs; or fail)
      ->  S-accept (with early termination: the plan's acceptance check; its pass ends the run)
    a failed check or evaluation -> S-retry (what the next attempt changes: never an approach
    the run already tried) -> S-again (the script: another attempt while the step has retries
    left, else S-escalate asks the user: retry with guidance, skip, or abort).

Every attempt after the run's first goes through one step, `next` (the script: the same plan
step again, or the one after), whose edges share one counter (`attempts`) capped by the plan's
budget (the skill's max_iterations): the static bound follows from it, and a run that uses it
up goes to the end with what it met and what not (progress.py), recorded as partial. After the
last step the user is asked for feedback, and `learn` records what the run taught. Every text
taken from the plan is data the agent wrote, so it is shown as written (never expanded).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from skills.lib.runner.progress import ATTEMPTS, progress
from skills.lib.runner.target import times
from skills.lib.workflow import Action, Arg, AskUser, Param, Rework, StepDef, Workflow, decides
from skills.lib.workflow.authoring.execution import DEFAULT_ITERATIONS
from skills.lib.workflow.graph.model import VERIFY_OUTPUT, StepContext, marked

NAME = "skill-runner-plan"


def counter(n: int, total: int) -> str:
    """Where a step stands in the plan, the one count a person can follow: 'Plan step 3 of 10'.
    (A step document's `n` is its position among the workflow's steps, several per plan step,
    and says nothing a person needs.)"""
    return f"Plan step {n} of {total}"


def key(step_id: str, what: str) -> str:
    """The memory key of a step's own value: RESULT_WRITE_NOTES for ('write-notes', 'RESULT')."""
    return f"{what}_{step_id.upper().replace('-', '_')}"


def plan_workflow(plan: dict[str, Any], learn: Callable[[StepContext], str],
                  plan_param: Param) -> Workflow:
    """The workflow of `plan` (already validated and sealed)."""
    spec = plan["steps"]
    accept = plan.get("acceptance") if plan.get("early_termination") else None
    steps: list[StepDef] = []
    for n, item in enumerate(spec):
        earlier = tuple(k for s in spec[:n] for k in s.get("key_outputs", []))
        steps += _plan_step(item, (n + 1, len(spec)), earlier, plan,
                            accept if n + 1 < len(spec) else None)
    outputs = tuple(k for s in spec for k in s.get("key_outputs", []))
    steps += [_next(plan), _feedback(plan), StepDef(
        "learn", "Record what this run taught", handler=learn,
        optional_reads=outputs + ("FEEDBACK",),
        actions=[Action(lambda ctx: "The script recorded the run's passed steps, failures and "
                        "the user's feedback for the next time this skill is planned. "
                        f"{progress(ctx, plan).summary(len(spec))} Give the user the result: "
                        "what was met, each step that passed with its key outputs (shown "
                        "above), and what was not met and why.", out="reply")],
        next={"ok": None}, complete="The run is finished. Give the user your summary.")]
    return marked(Workflow(
        NAME, steps, skill="skill-runner", params=(plan_param,),
        approved_commands=tuple(plan.get("approved_commands", ())),
        result=lambda ctx: "partial" if progress(ctx, plan).partial else "success",
        timeout=plan.get("timeout"),
        description=f"Runs the approved plan for the skill '{plan.get('skill', '?')}': "
                    f"{plan['directive'].rstrip('.')}."), generated=True)


def _next(plan: dict[str, Any]) -> StepDef:
    """The one way into every attempt after the run's first: the same plan step again after a
    retry, else the step after the one the run comes from (after the last, the end). Its
    edges share the run's counter of attempts."""
    ids = [s["id"] for s in plan["steps"]]
    budget = int(plan.get("budget", DEFAULT_ITERATIONS))

    @decides(*ids, "feedback")
    def route(ctx: StepContext) -> str:
        source, _, outcome = (ctx.arrived or "").partition(":")
        sid = next((source.removesuffix(p) for p in PARTS if source.endswith(p)), source)
        if (source, outcome) in ((f"{sid}-again", "go"), (f"{sid}-escalate", "retry")):
            return sid
        following = ids.index(sid) + 1 if sid in ids else len(ids)
        return ids[following] if following < len(ids) else "feedback"

    def said(ctx: StepContext) -> str:
        went, taken = route(ctx), ctx.passes(ATTEMPTS)
        if went == "feedback":
            return "Every plan step is done."
        if taken + 1 >= budget:
            return f"No attempt is left: the run has made all {budget}."
        return f"Attempt {taken + 2} of at most {budget}: {went}."

    return StepDef(
        "next", "Go on to the next attempt", handler=route, actions=[Action(said)],
        next={**{sid: Rework(sid, budget, "feedback", ATTEMPTS) for sid in ids},
              "feedback": "feedback"})


#: The suffixes of the steps a plan step S becomes (and no plan step's id may end with).
PARTS = ("-verify", "-eval", "-accept", "-retry", "-again", "-escalate")
#: The ids of the steps every plan's workflow has besides its plan steps'.
OWN_STEPS = ("next", "feedback", "learn")


def _plan_step(item: dict[str, Any], place: tuple[int, int], earlier: tuple[str, ...],
               plan: dict[str, Any], accept: str | None) -> list[StepDef]:
    sid, verify = item["id"], item.get("verify")
    title = f"{counter(*place)}: {item['title']}"
    directive = _literal(f"Directive of the whole run: {plan['directive']}")
    action = (f"Do exactly this one tool call, nothing more: {item['tool_call']}"
              if item.get("tool_call") else
              f"Do exactly this one text task (it needs no tool call): {item['text_task']}")
    found = (key(sid, "FINDINGS"),) + ((VERIFY_OUTPUT,) if verify else ())
    do = StepDef(
        sid, title, optional_reads=earlier + (key(sid, "FINDINGS"), key(sid, "CHANGE"),
                                              key(sid, "GUIDANCE")),
        actions=[directive, _literal(action), _literal(f"How: {item['optimizer']}"),
                 Action(_retry_note(sid)),
                 Action("Record what the action produced or changed, briefly.",
                        out=key(sid, "RESULT"))],
        args=[Arg(key(sid, "RESULT"), "what the action produced or changed, in short")],
        forbidden=["Do not start the next step's work here.",
                   "Do not run other tools than the one action names."],
        next={"ok": f"{sid}-verify" if verify else f"{sid}-eval"})
    evaluate = StepDef(
        f"{sid}-eval", f"{title} (evaluate)", reads=(key(sid, "RESULT"),),
        optional_reads=earlier + (found[1:]),
        actions=[directive, _literal(f"Evaluate: {item['evaluator']}"),
                 Action("Judge only what the evaluator asks; a partial result is a fail.")],
        args=[*(Arg(k, f"the value of {k} the step produced", outcomes=("pass",))
                for k in item.get("key_outputs", [])),
              Arg(key(sid, "FINDINGS"), "what failed, with the evidence", outcomes=("fail",))],
        next={"pass": f"{sid}-accept" if accept else "next", "fail": f"{sid}-retry"},
        when={"pass": "every check of the evaluator instruction holds",
              "fail": "any check fails, or you could not check it"})
    retry = StepDef(
        f"{sid}-retry", f"{title} (before another attempt)", optional_reads=found,
        actions=[Action(_retry_question(sid), out=key(sid, "CHANGE"))],
        args=[Arg(key(sid, "CHANGE"), "what the next attempt does differently", distinct=True)],
        next={"again": f"{sid}-again"})
    retries = int(plan.get("max_retries", 3))
    decide = StepDef(
        f"{sid}-again", f"{title} (another attempt?)", handler=_tries(retries),
        actions=[Action(lambda ctx: (
            f"Retry {ctx.step_state.get('retries', 0) + 1} of at most {retries} of this step."
            if ctx.step_state.get("retries", 0) < retries else
            f"This step's {times(retries, 'retry', 'retries')} "
            f"{'is' if retries == 1 else 'are'} used up: the user decides."))],
        next={"go": "next", "escalate": f"{sid}-escalate"})
    escalate = StepDef(
        f"{sid}-escalate", f"{title} (ask the user)",
        optional_reads=(*found, key(sid, "CHANGE")),
        ask_user=AskUser(literal_text(
            f"The step '{item['title']}' failed {times(retries + 1, 'time')} (its last "
            "findings are above). How should the run go on?"),
            {"retry": "Try again, with my guidance", "skip": "Skip this step and go on",
             "abort": "Stop the run here"}),
        args=[Arg(key(sid, "GUIDANCE"), "the user's guidance, in their words",
                  outcomes=("retry",)),
              *(Arg(k, f"{k}, only if the user gave it (later steps use it)", required=False,
                    outcomes=("skip",)) for k in item.get("key_outputs", []))],
        next={"retry": "next", "skip": "next", "abort": "feedback"})
    steps = [do, evaluate, retry, decide, escalate]
    if verify:
        steps.insert(1, _verify_step(sid, title, verify, bool(item.get("expect_failure"))))
    if accept:
        steps.append(StepDef(f"{sid}-accept", f"{title} (is the whole plan's goal met?)",
                             verify=literal_text(accept), next={"ok": "feedback",
                                                                 "fail": "next"}))
    return steps


def _tries(retries: int) -> Callable[[StepContext], tuple[str, dict[str, int]]]:
    """S-again's decision: another attempt while the step has retries left (its count kept
    in the step's state), else the user is asked."""
    @decides("go", "escalate")
    def tries(ctx: StepContext) -> tuple[str, dict[str, int]]:
        used = int(ctx.step_state.get("retries", 0))
        return ("go", {"retries": used + 1}) if used < retries else ("escalate",
                                                                     {"retries": used})
    return tries


def _verify_step(sid: str, title: str, command: str, expect_failure: bool) -> StepDef:
    """The step's check, decided by the command's exit status: it must pass, or, for the red
    phase of a test-first step (expect_failure), fail."""
    good, bad = (("fail", "ok") if expect_failure else ("ok", "fail"))
    return StepDef(f"{sid}-verify", f"{title} (its check"
                   + (", which must fail)" if expect_failure else ")"),
                   verify=literal_text(command),  # data: a function, so never expanded
                   actions=["A red test was expected here: the test comes before the code, so "
                            "this check must fail."] if expect_failure else [],
                   next={good: f"{sid}-eval", bad: f"{sid}-retry"},
                   prepare=_file_check_world(command))


def _feedback(plan: dict[str, Any]) -> StepDef:
    total = len(plan["steps"])
    return StepDef(
        "feedback", "Ask for feedback", ask_user=AskUser(
            lambda ctx: f"The plan's run is over. {progress(ctx, plan).summary(total)} Is there "
                        "anything the next run of this skill should do differently? (Optional.)",
            {"feedback": "Yes, this (say it)", "none": "No feedback"}),
        args=[Arg("FEEDBACK", "the user's feedback, in their words", outcomes=("feedback",))],
        next={"feedback": "learn", "none": "learn"})


def literal_text(text: str) -> Callable[[StepContext], str]:
    """`text` as a text computed at run time: the plan's (or the skill's) words are data,
    shown as written, never expanded for variables."""
    def said(ctx: StepContext) -> str:
        return text
    return said


def _literal(text: str) -> Action:
    return Action(literal_text(text))


def _retry_note(sid: str) -> Callable[[StepContext], str]:
    def note(ctx: StepContext) -> str:
        change = ctx.values.get(key(sid, "CHANGE"))
        if change is None:
            return ""
        guidance = ctx.values.get(key(sid, "GUIDANCE"))
        check = ctx.values.get(VERIFY_OUTPUT, "")
        said = f" The last check said: {check.splitlines()[-1][:200]}" if check else ""
        return (f"This is another attempt. Change what you said you would: {change[:300]}"
                + (f" Follow the user's guidance ({key(sid, 'GUIDANCE')})." if guidance
                   else "") + said)
    return note


def _retry_question(sid: str) -> Callable[[StepContext], str]:
    def question(ctx: StepContext) -> str:
        from skills.lib.workflow.ledger.memory import written

        tried = written(ctx, key(sid, "CHANGE"))
        listed = "".join(f"\n- {t}" for t in tried)
        return ("The last attempt failed (the check's output or your findings say why). Say in "
                "one line what the next attempt will do differently"
                + (f"; not an approach already tried, which were:{listed}" if tried else ".")
                + "\nThe script decides whether another attempt is left, or the user decides.")
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
