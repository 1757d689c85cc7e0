"""The original format_* functions, with their signatures, producing protocol v1.

The originals glued XML together from strings, so a stray `<` or `&` in a title broke the
document. These build the same elements the runner builds, through the one serializer: every
piece is well-formed, and a whole step comes out exactly as the runner prints it, because it is
rendered by the runner's own code from a Workflow adapted on the fly.

Pieces (forbidden lists, banners, dispatches, ...) return a `Fragment`: a str, as before, that
also remembers what it stands for, so a Step's actions can hold them (see adapt.py).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence

from ..authoring.qr import VERDICT
from ..base.errors import SkillrailError
from ..graph.model import StepContext, StepDef, Workflow, skill_folder
from ..graph.types import Dispatch
from ..protocol.view import ActionView, BannerView, DoItem, ExpectedView, ForbiddenView, StepView
from ..protocol.xml import piece, to_xml
from .adapt import ITERATION_LIMIT, adapt, kebab
from .model import Fragment, GateConfig, LinearRouting, QRState, Routing, Step, TerminalRouting

_FRESH = "fresh-review"
_LINEAR = LinearRouting()  # NamedTuples are immutable: one shared default is safe


def _fragment(item: DoItem | BannerView, kind: str, value: object) -> Fragment:
    return Fragment(to_xml(piece(item)).rstrip("\n"), kind, value)


def format_forbidden(items: Sequence[str]) -> Fragment:
    """`<forbidden>`: what the agent must not do in this step."""
    return _fragment(ForbiddenView(tuple(items)), "forbidden", tuple(items))


def format_expected_output(items: Sequence[str] | str) -> Fragment:
    """`<expected_output>`: the shape of what the step must produce, one line per item."""
    text = items if isinstance(items, str) else "\n".join(f"- {item}" for item in items)
    return _fragment(ExpectedView(text), "expect", text)


def format_resource(name: str, content: str) -> Fragment:
    """A text the step needs verbatim. With no file behind it, it is the material of an
    instruction, so it prints as an `<action>`; list real files with the new API's Resource."""
    text = f"{name}:\n{content}"
    return _fragment(ActionView(text), "action", text)


def format_state_banner(checkpoint: str, iteration: int, mode: str,
                        limit: int = ITERATION_LIMIT) -> Fragment:
    """A review loop's `<banner>`. Mode 'fix' is the work step's fix pass; every other mode of
    the original (initial review, re-verification) is a fresh review: PROTOCOL.md has no
    'verify the previous fixes' framing, which biases a reviewer toward confirming them."""
    from ..run.render import qr_banner

    role = "work" if mode == "fix" else "review"
    return _fragment(qr_banner(checkpoint, role, iteration, limit), "banner", None)


def format_qr_banner(qr: QRState, qr_name: str, fresh_review: bool = True,
                     limit: int = ITERATION_LIMIT) -> Fragment:
    """The review banner for `qr`'s iteration: always a fresh review (see format_state_banner);
    `fresh_review` is accepted for compatibility."""
    return format_state_banner(qr_name, qr.iteration, _FRESH, limit)


def format_subagent_dispatch(agent: str, script_path: str, step: int = 1,
                             total_steps: int | None = None,
                             context_vars: Mapping[str, str] | None = None,
                             free_form: bool = False, *, prompt: str | None = None,
                             expect: str | None = None) -> Fragment:
    """`<dispatch>`: start one `agent` sub-agent, on `script_path` (its steps, from the first)
    or, with `free_form`, on its brief and variables alone. `prompt` and `expect` (additions to
    the original signature) give the brief and the reply wanted; a free-form dispatch needs
    them to be useful. `total_steps` is accepted for compatibility."""
    if step != 1:
        raise SkillrailError(f"format_subagent_dispatch(step={step}): a sub-agent starts at the "
                             "first step of its script", f"agent '{agent}'",
                             "Drop step, or make that step the entry of the sub-agent's script")
    what = ("Do the task the variables below describe." if free_form else
            "Follow the steps of the script below, in order, to the end.")
    dispatch = Dispatch(
        str(agent), prompt or f"You are the {agent} sub-agent. {what}",
        expect=expect or ("a short report of what you did and found, with file paths"
                          if free_form else "the reply the script's last step asks for"),
        script=None if free_form else script_path, vars=dict(context_vars or {}))
    from ..run.dispatch import build_dispatch

    home = Workflow("legacy", (StepDef("dispatch", "dispatch"),))
    view = build_dispatch(StepContext(home, home.steps[0]), dispatch,
                          skill_folder(sys.argv[0] or "."))
    return _fragment(view, "dispatch", dispatch)


def format_step_output(script: str, step: int, total: int, title: str,
                       actions: Sequence[str], routing: Routing = _LINEAR,
                       is_step_one: bool = False, fmt: str = "xml") -> str:
    """The whole `<step>` document of step `step` of `total`, as the runner prints it in
    stateless mode. The entry step is step 1 whatever `is_step_one` says."""
    return _render(script, total, step, {step: Step(title, tuple(actions), routing)}, fmt)


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
    on to the pass step, back to the work step in fix mode, or to the user once the passes are
    used up. The review must be step `step - 1`, right after the work step."""
    if qr.status not in ("pass", "fail"):
        raise SkillrailError(f"QRState.status is {qr.status!r}", f"gate '{gate.qr_name}'",
                             "Give the review's verdict: status='pass' or 'fail'")
    work = {gate.work_step: Step(f"Step {gate.work_step}", ("Do the work.",))}
    given = {**work, step - 1: Step(f"Step {step - 1}", ("Review the work.",)),
             step: Step(title, (), gate=gate)}
    counter = f"{kebab(gate.qr_name)}-gate:fail"
    return _render(script, total, step, given, "xml", {VERDICT: qr.status},
                   {counter: qr.iteration - 1} if qr.iteration > 1 else {}, iteration_limit)


def _render(script: str, total: int, at: int, given: Mapping[int, Step], fmt: str,
            values: Mapping[str, str] | None = None, counts: Mapping[str, int] | None = None,
            limit: int = ITERATION_LIMIT) -> str:
    """Adapt `given` (the rest of the `total` steps stand in as placeholders) and render step
    `at` with the runner's own view builder."""
    from ..protocol import render
    from ..run.render import build_view
    from ..run.routing import decide

    source = os.path.realpath(script)
    steps = {n: given.get(n, Step(f"Step {n}", (), TerminalRouting()))
             for n in range(1, total + 1)}
    wf: Workflow = adapt(kebab(os.path.basename(skill_folder(source))), steps, total,
                         source=source, limit=limit)
    ctx = StepContext(wf, wf.steps[at - 1], values=values or {}, counts=counts or {})
    view: StepView = build_view(ctx, decide(ctx), fmt)
    return render(view, fmt)
