"""The original format_* functions, with their signatures, producing the step protocol.

The originals glued XML together from strings, so a stray `<` or `&` in a title broke the
document. These build the same elements the runner builds, through the one serializer: every
piece is well-formed, and a whole step is rendered by the runner's own code from a Workflow
adapted on the fly. Its commands are in the original shape (oldshape.py): the script that prints
these documents parses its own `--step N --total-steps T` and review-loop flags.

Pieces (forbidden lists, banners, dispatches, ...) return a `Fragment`: a str, as before, that
also remembers what it stands for, so a Step's actions can hold them (see adapt.py).
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Mapping, Sequence

from ..authoring.qr import VERDICT
from ..base.errors import SkillrailError, raise_at_author
from ..graph.model import Dispatch, StepContext, StepDef, Workflow, skill_folder
from ..protocol.view import ActionView, BannerView, DoItem, ExpectedView, ForbiddenView, StepView
from ..protocol.xml import piece, to_xml
from ..step.routing import interpreter
from .adapt import ITERATION_LIMIT, adapt, kebab, step_id
from .model import Fragment, GateConfig, LinearRouting, QRState, Routing, Step, TerminalRouting
from .oldshape import in_old_shape, invoked_iteration, old_command, verdict_missing

_FRESH = "fresh-review"
_LINEAR = LinearRouting()  # NamedTuples are immutable: one shared default is safe


def _fragment(item: DoItem | BannerView, kind: str, value: object) -> Fragment:
    return Fragment(to_xml(piece(item)).rstrip("\n"), kind, value)


def format_forbidden(items: Sequence[str]) -> Fragment:
    """What the agent must not do in this step (its `Forbidden:` lines)."""
    return _fragment(ForbiddenView(tuple(items)), "forbidden", tuple(items))


def format_expected_output(items: Sequence[str] | str) -> Fragment:
    """The shape of what the step must produce (its `Expected output:`), one line per item."""
    text = items if isinstance(items, str) else "\n".join(f"- {item}" for item in items)
    return _fragment(ExpectedView(text), "expect", text)


def format_resource(name: str, content: str) -> Fragment:
    """A text the step needs verbatim. With no file behind it, it is the material of an
    instruction, so it prints as an action line; list real files with the new API's Resource."""
    text = f"{name}:\n{content}"
    return _fragment(ActionView(text), "action", text)


def format_state_banner(checkpoint: str, iteration: int, mode: str,
                        limit: int = ITERATION_LIMIT) -> Fragment:
    """A review loop's `<banner>`. Mode 'fix' is the work step's fix pass; every other mode of
    the original (initial review, re-verification) is a fresh review: PROTOCOL.md has no
    'verify the previous fixes' framing, which biases a reviewer toward confirming them."""
    from ..step.render import qr_banner

    role = "work" if mode == "fix" else "review"
    # The loop's name as the gate's documents spell it ('Plan Review' -> 'plan-review').
    banner = qr_banner(kebab(checkpoint), role, iteration, limit)
    return _fragment(banner, "banner", banner)


def format_qr_banner(qr: QRState, qr_name: str, fresh_review: bool = True,
                     limit: int = ITERATION_LIMIT) -> Fragment:
    """The banner of a review named `qr_name` on `qr`'s iteration: the first review, or a
    fresh review of the fixed work. Every review is a fresh one (see format_state_banner);
    `fresh_review` is accepted for compatibility."""
    name = qr_name.upper()
    text = (f"{name}: Review the work for issues." if qr.iteration <= 1 else
            f"{name}, iteration {qr.iteration} of at most {limit}: a fresh review. Review the "
            "fixed work as if for the first time; a finding of the last review counts as fixed "
            "only when you find it fixed.")
    banner = BannerView("qr", qr.iteration, limit, text, checkpoint=kebab(qr_name), mode=_FRESH,
                        audience="you")
    return _fragment(banner, "banner", banner)


def format_factored_verification_rationale() -> Fragment:
    """Why a verification's questions are answered apart from the claim they check (factored
    verification), as an instruction to mix into a step's actions."""
    text = ("Answer each verification question on its own, from the code and the documents, "
            "without rereading the claim it checks: an answer written beside the claim tends to "
            "agree with it. Compare the answers with the claim only after all are written, and "
            "count every disagreement as a finding.")
    return _fragment(ActionView(text), "action", text)


def format_subagent_dispatch(agent: str, script_path: str, step: int = 1,
                             total_steps: int | None = None,
                             context_vars: Mapping[str, str] | None = None,
                             free_form: bool = False, *, prompt: str | None = None,
                             expect: str | None = None) -> Fragment:
    """`<dispatch>`: start one `agent` sub-agent, on `script_path` (its steps, from `step`)
    or, with `free_form`, on its brief and variables alone. `prompt` and `expect` (additions to
    the original signature) give the brief and the reply wanted; a free-form dispatch needs
    them to be useful. A sub-script of the original shape (it registers no workflow) starts as
    its own parser wants: `--step N --total-steps T`; a workflow script starts at its entry."""
    original = not free_form and _original_shape(script_path, total_steps)
    if step != 1 and not free_form and not original:
        raise_at_author(SkillrailError, f"format_subagent_dispatch(step={step}): "
                        f"{script_path} is a workflow script, and a sub-agent starts at its "
                        "entry step", "Drop step=, or make that step the entry of the "
                        "sub-agent's workflow")
    what = ("Do the task the variables below describe." if free_form else
            "Follow the steps of the script below, in order, to the end.")
    dispatch = Dispatch(
        str(agent), prompt or f"You are the {agent} sub-agent. {what}",
        expect=expect or ("a short report of what you did and found, with file paths"
                          if free_form else "the reply the script's last step asks for"),
        script=None if free_form else script_path, vars=dict(context_vars or {}))
    from ..step.dispatch import build_dispatch

    home = Workflow("legacy", (StepDef("dispatch", "dispatch"),))
    command = None
    if original:
        command = (old_command(script_path, step, total_steps) if total_steps is not None
                   else shlex.join([interpreter(), script_path, "--step", str(step)]))
    view = build_dispatch(StepContext(home, home.steps[0]), dispatch,
                          skill_folder(sys.argv[0] or "."), command)
    return _fragment(view, "dispatch", dispatch)


def _original_shape(script: str, total_steps: int | None) -> bool:
    """Whether a sub-agent's script is of the original shape: it registers no workflow (or,
    when it cannot be read from here, the dispatch gives the original's total_steps)."""
    from ..step.discovery import registers_workflow

    try:
        with open(script, encoding="utf-8") as handle:
            return not registers_workflow(handle.read())
    except (OSError, UnicodeDecodeError):
        return total_steps is not None


def format_step_output(script: str, step: int, total: int, title: str,
                       actions: Sequence[str], routing: Routing = _LINEAR,
                       is_step_one: bool = False, fmt: str = "xml", *,
                       qr: QRState | None = None) -> str:
    """The whole `<step>` document of step `step` of `total`, its commands in the original
    shape. Inside a review loop they carry its `--qr-iteration`: the one `qr` gives (an
    addition to the original signature), else the one this script was invoked with, so the
    loop's count survives its work and review steps and the loop ends. The entry step is step 1
    whatever `is_step_one` says."""
    iteration = qr.iteration if qr is not None else invoked_iteration(sys.argv[1:])
    carry = [f"--qr-iteration={iteration}"] if iteration is not None else []
    # Banners among the actions head the document, where the original printed them.
    banners = tuple(a.part[1] for a in actions if isinstance(a, Fragment) and a.part[0] == "banner")
    return _render(script, total, step, {step: Step(title, tuple(actions), routing)}, fmt,
                   carry=carry, banners=banners)


def format_text_output(script: str, step: int, total: int, title: str,
                       actions: Sequence[str], routing: Routing = _LINEAR,
                       is_step_one: bool = False) -> str:
    """The same step as format_step_output, in the plain-text rendering (`--format text`)."""
    return format_step_output(script, step, total, title, actions, routing, is_step_one, "text")


def format_routing(routing: Routing, script: str, step: int, total: int) -> str:
    """The `<NEXT>` element that `routing` gives step `step` of `total`."""
    import xml.etree.ElementTree as ET

    doc = ET.fromstring(format_step_output(script, step, total, f"Step {step}", (), routing))
    nxt = doc.find("NEXT")
    assert nxt is not None
    return to_xml(nxt).rstrip("\n")


def format_gate_step(script: str, step: int, total: int, title: str, qr: QRState,
                     gate: GateConfig, iteration_limit: int = ITERATION_LIMIT) -> str:
    """The gate's `<step>` document for the review's reported `qr.status` on `qr.iteration`:
    on to the pass step, back to the work step in fix mode, or, once the passes are used up, an
    end that hands the findings to the user. Without a status (the review's command lacked
    `--qr-status`) it asks for the verdict. The review must be step `step - 1`, right after the
    work step."""
    if qr.status not in ("pass", "fail", None):
        raise_at_author(SkillrailError, f"gate '{gate.qr_name}': QRState.status is "
                        f"{qr.status!r}", "Give the review's verdict: status='pass' or 'fail'")
    work = {gate.work_step: Step(f"Step {gate.work_step}", ("Do the work.",))}
    given = {**work, step - 1: Step(f"Step {step - 1}", ("Review the work.",)),
             step: Step(title, (), gate=gate)}
    counter = f"{kebab(gate.qr_name)}-gate:fail"
    return _render(script, total, step, given, "xml", {VERDICT: qr.status or "pass"},
                   {counter: qr.iteration - 1} if qr.iteration > 1 else {}, iteration_limit,
                   missing_verdict=qr.status is None, iteration=qr.iteration)


def _render(script: str, total: int, at: int, given: Mapping[int, Step], fmt: str,
            values: Mapping[str, str] | None = None, counts: Mapping[str, int] | None = None,
            limit: int = ITERATION_LIMIT, *, carry: Sequence[str] = (),
            banners: tuple[BannerView, ...] = (), missing_verdict: bool = False,
            iteration: int = 1) -> str:
    """Adapt `given` (the rest of the `total` steps stand in as placeholders) and render step
    `at` with the runner's own view builder, its commands in the original shape."""
    from ..protocol import render
    from ..step.decision import decide
    from ..step.render import build_view

    source = os.path.realpath(script)
    steps = {n: given.get(n, Step(f"Step {n}", (), TerminalRouting()))
             for n in range(1, total + 1)}
    wf: Workflow = adapt(kebab(os.path.basename(skill_folder(source))), steps, total,
                         source=source, limit=limit)
    ctx = StepContext(wf, wf.steps[at - 1], values=values or {}, counts=counts or {})
    decided = decide(ctx)
    view: StepView = build_view(ctx, decided, fmt)
    view = view._replace(banners=banners + view.banners)
    if missing_verdict:
        view = verdict_missing(view, source, at, total, iteration)
    else:
        numbers = {step_id(steps, n): n for n in steps}
        view = in_old_shape(view, ctx, decided, numbers, total, carry)
    return render(view, fmt)
