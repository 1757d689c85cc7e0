"""Resolve one step of a workflow into a StepView: texts, loop banners, memory, the commands of
<NEXT>. Everything the agent sees is decided here and in `routing`; the formatters only draw."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..base.errors import SkillrailError
from ..base.paths import project_root
from ..graph.analysis import adjacency, components
from ..graph.model import (
    FIX_FINDINGS,
    RUN_BY,
    SELF_DONE,
    VERIFY_OUTPUT,
    Action,
    ConventionRef,
    Edge,
    Resource,
    StepContext,
    Workflow,
    render_text,
    skill_dir,
)
from ..protocol.constants import (
    DISPATCH_RULES,
    MANDATE,
    MEMORY_HEAD_CHARS,
    MEMORY_SHOWN_CHARS,
)
from ..protocol.view import (
    ActionView,
    ArgView,
    AskUserView,
    BannerView,
    ConventionView,
    DoItem,
    ExpectedView,
    ForbiddenView,
    MemoryView,
    ResourceView,
    StepView,
)
from .expand import expand_view
from .routing import invokes, resume_command, skillrail_command

if TYPE_CHECKING:
    from ..guard.standing import Approval

#: After every <ask_user>: how to ask, and whether anything checks it (PROTOCOL.md section 5),
#: which depends on whether skillrail's hooks are installed for this project (askgate.py).
ASK_USER_NOTE = ("Put the question to the user, end your turn and wait; then run the command of "
                 "the option they chose. Never choose for them. ")
ASK_ENFORCED = "Hooks here refuse an answer given before the user spoke."
ASK_ADVISORY = "No hook here checks that the user answered: this rests on you."


def approved_on_condition(view: StepView, outcome: str, ahead: Approval) -> StepView:
    """The view of a question the user approved in advance on a condition: the agent checks
    it and, where it holds, takes the approved option saying how (standing.py)."""
    from ..guard.standing import CONDITION_MET, condition_note

    return _asking_differently(
        view, lambda _: ActionView(condition_note(ahead, outcome), CONDITION_MET),
        outcome, (ArgView(CONDITION_MET, "", False),))


def relayed(view: StepView, outcome: str) -> StepView:
    """The view of a question that may be approved in advance, where no hook sees the user's
    prompt: the agent may relay the user's words with the approved option."""
    from ..guard.standing import CONDITION_MET, USER_SAID, relay_note

    return _asking_differently(
        view, lambda note: ActionView(relay_note(outcome) + " " + note, USER_SAID), outcome,
        (ArgView(USER_SAID, "", False),
         ArgView(CONDITION_MET, "how the user's --if condition holds, if they set one", False)))


def asked_anyway(view: StepView) -> StepView:
    """The view of a question the skill lets be approved in advance, but not at this visit."""
    return _asking_differently(view, lambda note: ActionView(
        note + " No approval given in advance answers this question this time: the skill "
        "wants the user to see it."))


def needs_user(view: StepView, run: str, step: str, resume: str) -> StepView:
    """The view of a question in a run nobody attends (CI): it ends the agent's work there, and
    says how the user answers it later."""
    stop = ActionView("Nobody is here to answer this question (an unattended run: CI or "
                      "SKILLRAIL_UNATTENDED). Do not answer it: stop, and report needs-user "
                      "with the question.")
    return _asking_differently(view, lambda _: stop)._replace(invokes=(), complete=(
        f"needs-user: run {run} waits for the user's answer at step '{step}'. They answer it "
        f"in a session of their own, starting from: {resume}"))


def _asking_differently(view: StepView, note: Callable[[str], ActionView],
                        outcome: str | None = None, args: tuple[ArgView, ...] = ()
                        ) -> StepView:
    """`view` with the note after its `<ask_user>` replaced by `note(the note's text)`, and
    `args` added to the command of `outcome`."""
    do = tuple(note(item.text) if isinstance(item, ActionView)
               and item.text.startswith(ASK_USER_NOTE) else item for item in view.do)
    invokes = tuple(i._replace(args=(*i.args, *args)) if args and i.outcome in (outcome, None)
                    else i for i in view.invokes)
    return view._replace(do=do, invokes=invokes)


def _gate_state() -> str:
    from ..guard.askgate import verdict

    return ASK_ENFORCED if verdict(project_root()).binding else ASK_ADVISORY


def build_view(ctx: StepContext, decided: str | None, fmt: str) -> StepView:
    """The view of `ctx.step`; `decided` is the handler's outcome for script-decided steps."""
    wf, step = ctx.workflow, ctx.step
    ends = (step.next[decided] is None) if decided is not None else (
        len(step.next) == 1 and step.is_terminal)
    view = StepView(
        skill=wf.skill, workflow=wf.name if wf.name != wf.skill else None, id=step.id,
        n=wf.position(step.id), title=step.title,
        mandate=_mandate(ctx), do=tuple(_do_items(ctx)),
        invokes=() if ends else tuple(invokes(wf, ctx, fmt, decided)),
        complete=_complete(ctx) if ends else None, banners=tuple(_banners(ctx)), run=ctx.run,
        params=_params(ctx), memory=tuple(_memory(ctx)))
    if step.verify:
        from .verify import verify_view

        view = view._replace(do=(*verify_view(ctx, decided), *view.do))
    if ends and ctx.values.get(SELF_DONE):
        view = view._replace(do=(*view.do, _self_done(ctx.values[SELF_DONE])))
    return expand_view(ctx, view, skill_dir(wf))


#: The end of a sub-run the orchestrator did itself (`--self`): it has no one to reply to.
SELF_REPLY = ("Done with --self: there is no one to reply to. At the step that dispatched it, "
              "give this reply where its DO records replies ('- KEY: Record ... reply'); "
              "otherwise just run its NEXT command.")


def _complete(ctx: StepContext) -> str | None:
    """The run's closing text; for a `--self` sub-run, where its reply goes instead (its own
    closing text speaks to a sub-agent replying to an orchestrator that is not there)."""
    return SELF_REPLY if ctx.values.get(RUN_BY) == "self" else ctx.step.complete


def _self_done(listed: str) -> ActionView:
    """On a run's last step: the sub-agent work the orchestrator did itself, for the user."""
    runs = "; ".join(line for line in listed.splitlines() if line)
    return ActionView("Also tell the user that you did this sub-agent work yourself, having no "
                      f"tool to start sub-agents, so it is not an independent review: {runs}.",
                      out="reply", literal=True)


def _mandate(ctx: StepContext) -> str | None:
    """The rules in full where the agent may not have them in mind (the first step it is shown,
    a reprint after a lost context); elsewhere none (PROTOCOL.md section 2)."""
    if not ctx.full:
        return None
    wf = ctx.workflow
    # A skill's own workflow was described by its SKILL.md, which the agent has read; another
    # (a sub-agent's, a skill's second one) says here what it is for.
    about = wf.description if wf.description and wf.name != wf.skill else ""
    text = MANDATE + (f" {about}" if about else "")
    if any(step.dispatch is not None for step in wf.steps):
        text += DISPATCH_RULES
    if ctx.run:
        text += f" Lost your place? This reprints your step: {resume_command(wf, ctx.run)}"
    return text


def _params(ctx: StepContext) -> tuple[tuple[str, str], ...]:
    """The workflow's required params with their values: what the run was started for, on its
    entry step (a loop back to it included) and wherever the full mandate is shown, so an
    agent that lost its context has it again."""
    if not ctx.params_shown:
        return ()
    return tuple((p.name, ctx.params[p.name]) for p in ctx.workflow.params
                 if p.required and p.name in ctx.params)


#: Values shown whole however long (see _memory).
_WHOLE = frozenset({VERIFY_OUTPUT, FIX_FINDINGS})


def _memory(ctx: StepContext) -> list[MemoryView]:
    """The committed values the step reads, and those its own text names (REFACTOR_NOTE in
    "check the REFACTOR_NOTE against ..."), but not those the agent reported with the command
    that led here (it has just written them) unless the text names them or the step is a
    reprint. A long value shows its head and the command that prints it whole."""
    shown = []
    named = _named(ctx)
    for key in dict.fromkeys([*ctx.step.reads, *ctx.step.optional_reads, *sorted(named)]):
        value = ctx.values.get(key)
        if value is None or (key in ctx.fresh and not ctx.full and key not in named):
            continue
        # A check's output is capped already, and its end (the failure) is what matters; a
        # fix pass's findings are its work, each to the last word.
        if len(value) <= MEMORY_SHOWN_CHARS or ctx.run is None or key in _WHOLE:
            shown.append(MemoryView(key, value))
        else:
            shown.append(MemoryView(key, _head(value), len(value),
                                    skillrail_command("show", ctx.run, key)))
    return shown


def _named(ctx: StepContext) -> set[str]:
    """The run's values the step's written text names as words (its title, its fixed
    instructions and question), other than those the step itself writes."""
    import re

    step = ctx.step
    texts = [step.title, *(a if isinstance(a, str) else getattr(a, "text", None)
                           for a in step.actions)]
    if step.ask_user is not None:
        texts.append(step.ask_user.question)
    words = set(re.findall(r"\b[A-Z][A-Z0-9_]*[A-Z0-9]\b",
                           " ".join(t for t in texts if isinstance(t, str))))
    written = {a.out for a in step.actions if isinstance(a, Action) and a.out}
    return {w for w in words if w in ctx.values and w not in written}


def _head(value: str) -> str:
    """The start of a long value, cut at a word's end when one is near."""
    head = value[:MEMORY_HEAD_CHARS]
    space = max(head.rfind(" "), head.rfind("\n"))
    return (head[:space] if space > MEMORY_HEAD_CHARS - 80 else head).rstrip() + " ..."


def _do_items(ctx: StepContext) -> list[DoItem]:
    step = ctx.step
    items: list[DoItem] = [_resource(ctx.workflow, r) for r in step.resources]
    items += [_convention(c) for c in step.conventions]
    # A dispatch comes before the actions: starting the sub-agents is the step's first job,
    # and its actions say what to do with their replies.
    if step.dispatch is not None:
        from .dispatch import build_dispatch

        items.append(build_dispatch(ctx, step.dispatch, skill_dir(ctx.workflow)))
    for action in step.actions:
        act = action if isinstance(action, Action) else Action(action)
        text = render_text(act.text, ctx)
        # A dynamic instruction may have nothing to say on this pass; it is then left out.
        if text or act.out or not callable(act.text):
            items.append(ActionView(text, act.out, literal=callable(act.text)))
    if step.ask_user is not None:
        items.append(AskUserView(step.id, render_text(step.ask_user.question, ctx),
                                 tuple(step.ask_user.options.items()),
                                 literal=callable(step.ask_user.question)))
        items.append(ActionView(ASK_USER_NOTE + _gate_state()))
    if step.forbidden:
        items.append(ForbiddenView(step.forbidden))
    if step.expect:
        items.append(ExpectedView(step.expect))
    return items


def _resource(wf: Workflow, res: Resource) -> ResourceView:
    path = os.path.join(skill_dir(wf), res.path)
    if not res.inline:
        return ResourceView(res.name, path, res.when)
    try:
        with open(path, encoding="utf-8") as handle:
            return ResourceView(res.name, path, res.when, handle.read())
    except (OSError, UnicodeDecodeError) as exc:
        raise SkillrailError(f"cannot read resource '{res.name}' at {path}: {exc}",
                             f"skill '{wf.skill}'", "Reinstall the skill") from None


def _convention(ref: ConventionRef) -> ConventionView:
    from ..authoring.conventions import convention_path, get_convention

    if not ref.inline:
        return ConventionView(ref.name, convention_path(ref.name), ref.when)
    found = get_convention(ref.name)
    return ConventionView(ref.name, found.path, ref.when, found.text)


def _banners(ctx: StepContext) -> list[BannerView]:
    """A QR loop's step shows its QR banner; another loop's rework edge shows its banner on the
    steps it leaves and returns to (not on every step of a larger loop, where it is noise)."""
    wf = ctx.workflow
    review = [_qr_banner(ctx)] if ctx.step.qr is not None else []
    if ctx.step.decided_by == "script":  # the agent decides nothing here: a plain loop's
        return review                    # banner is noise (a review's gate shows its pass)
    comp_of = {n: c for c in components(adjacency(wf)) for n in c}
    here = comp_of.get(ctx.step.id, [])
    # On the loop's first step the banner shows when the run came back by that loop's edge
    # (the step that decides shows it from pass 1); not before the loop was entered, nor when
    # another edge led here. A review loop's own edges have the QR banner instead.
    plain = [_banner(wf, edge, ctx.passes(edge.key) + 1, ctx.step.id == edge.source)
             for edge in wf.reworks.values()
             if ((ctx.step.id == edge.source and ctx.step.qr is None)
                 or (ctx.step.id == edge.target and _came_back(ctx, edge.key)))
             and edge.target in here and wf.by_id[edge.source].qr is None
             and edge.rework is not None and not edge.rework.counter]
    return review + plain + _budget(ctx)


def _budget(ctx: StepContext) -> list[BannerView]:
    """A step the run entered by an edge of a shared counter (a budget of the whole run, not
    one loop's) shows how much of it this entry took."""
    for edge in ctx.workflow.rework_edges:
        rework = edge.rework
        if (rework is None or not rework.counter or edge.target != ctx.step.id
                or not _came_back(ctx, edge.key, f"{edge.source}:{edge.outcome}")):
            continue
        n, limit = ctx.passes(edge.key) + 1, rework.max_iterations
        after = ctx.workflow.by_id[rework.on_exhausted].title
        return [BannerView("iterate", n, limit, f"Attempt {n} of at most {limit} in this run "
                           f"('{rework.counter}'); once they are used up, the run goes to "
                           f"'{after}'.", checkpoint=edge.key)]
    return []


def _came_back(ctx: StepContext, edge_key: str, move: str = "") -> bool:
    """Whether the run arrived by the rework edge counted as `edge_key`, the move `move`
    (`step:outcome`, by default the key itself; a step with one outcome may be recorded as
    `step:-`). When the arriving edge is unknown (a step rendered outside a run), whether the
    loop was entered at all."""
    if ctx.passes(edge_key) == 0:
        return False
    if ctx.arrived is None:
        return True
    move = move or edge_key
    return ctx.arrived in (move, f"{move.partition(':')[0]}:-")


def _qr_banner(ctx: StepContext) -> BannerView:
    from ..authoring.qr import review_pass

    role = ctx.step.qr
    assert role is not None
    return qr_banner(role.checkpoint, role.role, review_pass(ctx), role.limit)


def qr_banner(checkpoint: str, role: str, n: int, limit: int) -> BannerView:
    """The banner of a review loop's step in role `role` ('work', 'review', 'gate' or
    'escalate') on pass `n`."""
    where = (f"pass {n} of at most {limit}" if n <= limit
             else f"pass {n}, an extra round the user granted after {limit}")
    mode, text = {
        "work": (None if n == 1 else "fix",
                 f"Review loop '{checkpoint}', {where}. "
                 + ("Do the work; a review follows." if n == 1 else
                    "Fix the blocking findings of the last review, nothing else; a fresh "
                    "review follows.")),
        "review": ("fresh-review", f"Review loop '{checkpoint}', {where}: the review."),
        "gate": (None, f"Review loop '{checkpoint}', {where}: the gate."),
        "escalate": (None, f"Review loop '{checkpoint}': the {limit} passes are used up; "
                           "the user decides how to go on."),
    }[role]
    return BannerView("qr", n, limit, text, checkpoint=checkpoint, mode=mode, audience="you")


def _banner(wf: Workflow, edge: Edge, iteration: int, on_source: bool) -> BannerView:
    """On the step that decides, what its outcome means at this pass; on the step the loop
    returns to, which pass this is and what ends it (this step has no such outcome)."""
    rework = edge.rework
    assert rework is not None
    limit = rework.max_iterations
    after = wf.by_id[rework.on_exhausted]
    then = ("a question to the user" if after.ask_user is not None
            else f"'{after.title}'")
    ends = (f"outcome '{edge.outcome}'" if on_source else
            f"'{wf.by_id[edge.source].title}' ending with '{edge.outcome}'")
    if iteration < limit:
        text = f"Pass {iteration} of at most {limit}; after that, {ends} leads to {then}."
    else:
        text = f"Pass {limit} of {limit}, the last: {ends} now leads to {then}."
    return BannerView("iterate", iteration, limit, text, checkpoint=edge.key)
