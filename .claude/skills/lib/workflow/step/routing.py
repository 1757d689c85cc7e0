"""Transitions in stateless mode (PROTOCOL.md section 7): checking the edge an invocation
arrived by, and building the commands that leave a step. State travels in the printed commands:
`--from` and `--outcome` name the edge, `--loop step:outcome=N` the rework counters.

The run ledger replaces the flags with recorded state; the decisions (which edge, which counter,
which args) stay here.
"""


import contextlib
import os
import shlex
import sys
from collections.abc import Iterator, Mapping
from typing import NamedTuple

from ..base.errors import ProtocolViolation, UsageError, did_you_mean
from ..graph.model import Arg, Rework, StepContext, StepDef, Workflow, target_id
from ..protocol.view import ArgView, InvokeView
from .invocation import Invocation


class Leg(NamedTuple):
    """Where one outcome of a step leads now, given the loop counters."""

    outcome: str
    target: str | None
    counts: dict[str, int]
    exhausted: Rework | None = None


def leg(step: StepDef, outcome: str, counts: dict[str, int]) -> Leg:
    """Follow `outcome` from `step`: a rework edge adds one pass, or, when its passes are used
    up, leads to its on_exhausted step instead."""
    target = step.next[outcome]
    if not isinstance(target, Rework):
        return Leg(outcome, target, counts)
    key = target.counter or f"{step.id}:{outcome}"
    taken = counts.get(key, 0)
    if taken + 1 >= target.max_iterations:
        return Leg(outcome, target.on_exhausted, counts, exhausted=target)
    return Leg(outcome, target.target, {**counts, key: taken + 1})


def edges(workflow: Workflow) -> set[tuple[str, str, str]]:
    """Every move a run of `workflow` can make, as (source, outcome, target): a rework edge
    leads to its target or, once its passes are used up, to its on_exhausted step."""
    found = set()
    for step in workflow.steps:
        for outcome, target in step.next.items():
            ends = ((target.target, target.on_exhausted) if isinstance(target, Rework)
                    else (target,))
            found |= {(step.id, str(outcome), end) for end in ends if end is not None}
    return found


def check_counts(workflow: Workflow, counts: Mapping[str, int]) -> None:
    """Each --loop names a rework edge and a count it can have reached."""
    for key, taken in counts.items():
        edge = workflow.reworks.get(key)
        if edge is None or edge.rework is None:
            raise UsageError(f"--loop {key} names no rework edge", f"workflow '{workflow.name}'",
                             "Run the printed command unchanged."
                             + did_you_mean(key, workflow.reworks))
        if taken >= edge.rework.max_iterations:
            raise UsageError(f"--loop {key}={taken} is past the loop's cap of "
                             f"{edge.rework.max_iterations} passes",
                             fix="Run the printed command unchanged")


def check_arrival(workflow: Workflow, inv: Invocation, step: StepDef) -> None:
    """An invocation that names the edge it followed (--from) must follow a real edge and bring
    every value that edge asks for; without --from it is a free (unchecked) start."""
    if inv.source is None:
        if inv.outcome is not None or inv.values:
            flag = "--outcome" if inv.outcome is not None else "--set"
            raise UsageError(f"{flag} is given without --from", f"step '{step.id}'",
                             "Run a printed command unchanged, adding only its --set flags")
        return
    source = workflow.step(inv.source)
    outcome = inv.outcome if inv.outcome is not None else _only_outcome(source)
    if outcome not in source.next:
        raise UsageError(f"step '{source.id}' has no outcome '{outcome}'",
                         f"workflow '{workflow.name}'", f"Use one of: {', '.join(source.next)}."
                         + did_you_mean(outcome, source.next))
    after = dict(inv.counts)
    before = _before(source, outcome, after)
    # The command carries the counters as they are after the edge: one more pass for a rework
    # edge taken, unchanged for a plain edge or an exhausted rework edge.
    if not any(_leads(source, outcome, b, step.id, after) for b in (after, before)):
        _refuse_arrival(workflow, inv, source, outcome, step, before)
    check_values(source, outcome, inv.values, inv.params)


def _refuse_arrival(workflow: Workflow, inv: Invocation, source: StepDef, outcome: str,
                    step: StepDef, before: dict[str, int]) -> None:
    where = f"workflow '{workflow.name}'"
    target = source.next[outcome]
    if target is None:
        raise ProtocolViolation(
            f"step '{source.id}' ends the run; no step follows it", where,
            "To start over, run:", [entry_command(workflow, inv.params, inv.format)])
    legal = [i.cmd for i in invokes(workflow, StepContext(
        workflow, source, inv.params, {}, before), inv.format)]
    if isinstance(target, Rework) and step.id in (target.target, target.on_exhausted):
        what = "the --loop counts do not match the run so far"
    else:
        what = f"step '{source.id}' with outcome '{outcome}' leads to '{target_id(target)}', " \
               f"not to '{step.id}'"
    raise ProtocolViolation(what, where, "Run one of these commands, unchanged:", legal)


def _leads(source: StepDef, outcome: str, before: dict[str, int], target: str,
           after: dict[str, int]) -> bool:
    went = leg(source, outcome, before)
    return went.target == target and went.counts == after


def _before(source: StepDef, outcome: str, counts: dict[str, int]) -> dict[str, int]:
    """The counters as they were before a rework edge added its pass."""
    target = source.next[outcome]
    key = (target.counter if isinstance(target, Rework) else "") or f"{source.id}:{outcome}"
    if counts.get(key, 0) > 0:
        return {**counts, key: counts[key] - 1}
    return counts


def _only_outcome(step: StepDef) -> str:
    if len(step.next) == 1:
        return next(iter(step.next))
    raise UsageError(f"--outcome is missing: step '{step.id}' has several outcomes",
                     fix=f"Add --outcome with one of: {', '.join(step.next)}")


def check_values(source: StepDef, outcome: str, values: Mapping[str, str],
                 params: Mapping[str, str]) -> None:
    """Every required arg of the edge is given, choices and checks hold, and nothing else is
    given."""
    asked = {a.key: a for a in source.args_for(outcome)}
    where = f"step '{source.id}'" + (f", outcome '{outcome}'" if len(source.next) > 1 else "")
    for key in values:
        if key not in asked:
            upper = key.upper() if key.upper() in asked else None
            raise UsageError(f"--set {key} was not asked for", where,
                             "Set only the keys the command's arg elements name."
                             + (f" Did you mean '{upper}'?" if upper else did_you_mean(key, asked)))
    missing = [a for a in asked.values() if a.required and a.key not in values]
    if missing:
        keys = ", ".join(a.key for a in missing)
        raise UsageError(f"--set {keys} {'is' if len(missing) == 1 else 'are'} required", where,
                         "Add " + "; ".join(f"--set {a.key}='...' ({_what(a)})"
                                            for a in missing))
    for arg in asked.values():
        value = values.get(arg.key)
        if value is not None and arg.required and not value.strip():
            raise UsageError(f"--set {arg.key} is empty", where,
                             f"Give a value: {_what(arg)}")
        if value is not None and arg.choices and value.strip() not in arg.choices:
            raise UsageError(f"--set {arg.key}='{value[:40]}' is not one of the choices", where,
                             f"With outcome '{outcome}', use one of: {' '.join(arg.choices)}"
                             + _other_outcome(source, outcome, arg.key, value.strip()))
        problem = arg.check(value, params) if value is not None and arg.check else None
        if problem:
            raise UsageError(f"--set {arg.key} is refused: {problem}", where,
                             "Fix that and run the same command again; the run has not moved")


def _other_outcome(source: StepDef, outcome: str, key: str, value: str) -> str:
    """A hint when the value belongs to another outcome's command (per-outcome choices)."""
    for other in source.next:
        if other != outcome and any(a.key == key and value in a.choices
                                    for a in source.args_for(other)):
            return (f". {key}={value} belongs to outcome '{other}': run the command with "
                    f"outcome '{other}' instead")
    return ""


def invokes(workflow: Workflow, ctx: StepContext, fmt: str,
            only: str | None = None) -> list[InvokeView]:
    """The commands that leave `ctx.step`: one per outcome, or just `only` when decided."""
    step = ctx.step
    outcomes = [only] if only is not None else list(step.next)
    views = []
    for outcome in outcomes:
        went = leg(step, outcome, dict(ctx.counts))
        if went.target is None:
            continue
        cmd = command(workflow, ctx, went, fmt)
        # A value the outcome allows only one of is in its command: the agent chose it by
        # choosing the command.
        fixed = [a for a in step.args_for(outcome) if a.required and len(a.choices) == 1]
        cmd += "".join(" " + shlex.join(["--set", f"{a.key}={a.choices[0]}"]) for a in fixed)
        args = tuple(ArgView(a.key, a.describe, a.required, a.choices)
                     for a in step.args_for(outcome) if a not in fixed)
        branch = only is None and len(outcomes) > 1
        views.append(InvokeView(cmd, args, outcome if branch else None,
                                _when(step, outcome, went) if branch else None))
    return views


def _what(arg: Arg) -> str:
    """What an arg holds, for an error: its description, or where the step says it."""
    return arg.describe or f"what the step's action out='{arg.key}' asks for"


def _when(step: StepDef, outcome: str, went: Leg) -> str:
    # An option's label is in <ask_user>, beside its outcome: the condition names the outcome.
    text = f"the user chose {outcome}" if step.ask_user is not None else step.when[outcome]
    if went.exhausted is not None:
        text += " (the loop's passes are used up, so this leads on instead of back)"
    return text


def command(workflow: Workflow, ctx: StepContext, went: Leg, fmt: str) -> str:
    """The literal, shell-quoted command for one edge: interpreter, absolute script, flags.
    In a run the ledger holds the state; stateless, the command carries it."""
    source = ctx.step
    argv = [interpreter(), script_path(workflow), "--step", str(went.target)]
    # In a run, --at says where in the run the command was printed, so running it a second time
    # is recognised as a repeat rather than taken for the next pass of a loop.
    argv += ["--run", ctx.run, "--at", str(ctx.hops)] if ctx.run else ["--from", source.id]
    if len(source.next) > 1 or isinstance(source.next[went.outcome], Rework):
        argv += ["--outcome", went.outcome]
    if not ctx.run:
        counts = went.counts
        target = workflow.by_id[went.target] if went.target is not None else None
        if target is not None and target.qr is not None:
            from .qrflags import iteration_flags

            flags, counts = iteration_flags(target, counts)
            argv += flags
        argv += [f"--loop={k}={n}" for k, n in sorted(counts.items()) if n]
        argv += [f"--{name}={value}" for name, value in ctx.params.items()]
    if fmt != "xml":
        argv.append(f"--format={fmt}")
    return shlex.join(argv)


def entry_command(workflow: Workflow, params: Mapping[str, str], fmt: str) -> str:
    """The command that starts the workflow afresh."""
    argv = [interpreter(), script_path(workflow), "--step", workflow.entry]
    argv += [f"--{name}={value}" for name, value in params.items()]
    return shlex.join(argv + ([f"--format={fmt}"] if fmt != "xml" else []))


def resume_command(workflow: Workflow, run_id: str) -> str:
    """The command that reprints a run's current step."""
    return shlex.join([interpreter(), script_path(workflow), "--run", run_id,
                       "--resume"])


def skillrail_command(*args: str) -> str:
    """A runnable `skillrail ...` command line: the console script beside this interpreter when
    installed there (a venv's bin/ is often not on PATH), else this package run as a module."""
    installed = os.path.join(os.path.dirname(sys.executable), "skillrail")
    if os.path.isfile(installed):
        return shlex.join([installed, *args])
    from ..base.paths import PACKAGE_PARENT

    return shlex.join(["env", f"PYTHONPATH={PACKAGE_PARENT}", interpreter(), "-m",
                       "skills.lib.workflow.commands", *args])


def script_path(workflow: Workflow) -> str:
    return os.path.realpath(workflow.source or sys.argv[0])


def interpreter() -> str:
    """The interpreter that printed the step: commands start with it, so dependencies resolve
    the same way and no version-manager shim adds its start-up cost. Under `speaking_for`, the
    run's own (`skillrail status` and `resume` print a run's commands from another one)."""
    return _SPEAKING_FOR[-1] if _SPEAKING_FOR else (sys.executable or "python3")


#: The interpreters whose runs' commands are being printed (speaking_for), innermost last.
_SPEAKING_FOR: list[str] = []
#: The ledger event that records the interpreter a run was started with.
PYTHON_EVENT = "python"


@contextlib.contextmanager
def speaking_for(python: str | None) -> Iterator[None]:
    """Commands printed inside start with `python` (a run's interpreter) instead of this one;
    None, or an interpreter no longer there, changes nothing."""
    use = False
    if python is not None and os.path.isfile(python):
        _SPEAKING_FOR.append(python)
        use = True
    try:
        yield
    finally:
        if use:
            _SPEAKING_FOR.pop()
