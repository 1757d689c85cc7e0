"""Verification gates: a step with `verify=` is decided by a command's exit status, run through
the gateway: 0 is 'ok', anything else (a refusal and a timeout included) is 'fail'. The agent
runs nothing and reports nothing, so it cannot claim a pass the check did not give.

The tail of the command's output is kept in the run's memory as VERIFY_OUTPUT, for the fix step
to read, and shown as `<context name="verify">` when the step itself is printed; a step passed
through is named in `<decided>` with how its check ended (settle.note).
"""

from __future__ import annotations

from ..graph.model import VERIFY_OUTPUT, StepContext, Text, render_text, skill_dir
from ..protocol.view import ActionView, ContextView, DoItem

#: The statuses of a check that did not run at all (gateway.attempt).
NOT_RUN = ("refused", "error", "untrusted")
#: Keeps the fix step's memory readable; the end of a failing check's output holds the error.
TAIL_CHARS = 4_000

# The check's result between the decision (routing.decide) and the view of the same
# invocation: one process prints one step, so the key never meets another run's result.
_RESULTS: dict[tuple[str | None, str, int], tuple[str, str]] = {}


def check(ctx: StepContext) -> str:
    """Decide a `verify=` step (routing.decide): run its check, remember the result for the
    step's view, and return 'ok' or 'fail'."""
    status, text = run_verify(ctx, ctx.step.verify)
    _RESULTS[_key(ctx)] = (status, text)
    return "ok" if status == "ok" else "fail"


def run_verify(ctx: StepContext, command: Text) -> tuple[str, str]:
    """(status, output tail) of the step's check; never raises."""
    from ..authoring.substitution import Substituter, variables
    from ..guard.gateway import attempt
    from ..guard.redact import redact

    folder = skill_dir(ctx.workflow)
    # A check may name the run's params and memory values; each becomes one argument.
    values = {**ctx.params, **ctx.values, **variables(folder, ctx.run,
                                                      ctx.params.get("arguments", ""))}
    where = f"skill '{ctx.workflow.skill}', step '{ctx.step.id}'"
    approved = ctx.workflow.approved_commands
    done = attempt(render_text(command, ctx), folder, Substituter(values, where),
                   approved(ctx) if callable(approved) else approved, ctx.workflow.timeout)
    if done.status in NOT_RUN:
        return done.status, f"the check was {done.head}"
    tail = redact(done.tail)[-TAIL_CHARS:]
    cut = "[... earlier output cut]\n" if done.truncated or len(done.tail) > TAIL_CHARS else ""
    return done.status, f"[{done.summary()}]\n{cut}{tail}".rstrip()


def verify_view(ctx: StepContext, decided: str | None) -> tuple[DoItem, ...]:
    """The check's result for the step's view (from this invocation's run of it or, when the
    step is shown again, from the run's memory), and what it means for the agent when the
    author wrote no actions of their own."""
    found = _RESULTS.get(_key(ctx))
    if found is None and VERIFY_OUTPUT in ctx.values and decided is not None:
        found = ("ok" if decided == "ok" else "failed", ctx.values[VERIFY_OUTPUT])
    if found is None:
        return ()
    items: list[DoItem] = [ContextView("verify", *found)]
    if not ctx.step.actions:
        verdict = "passed" if decided == "ok" else "did not pass"
        items.append(ActionView(f"The script ran this step's check and it {verdict} (its "
                                "output is in the context 'verify' above). There is nothing "
                                "to do here: run the command in NEXT."))
    return tuple(items)


def ended(ctx: StepContext) -> tuple[bool, str]:
    """Whether the check this invocation decided `ctx` with ran, and its first line: how it
    ended (`[exit 1]`), or why it did not run."""
    status, text = _RESULTS.get(_key(ctx), ("error", ""))
    return status not in NOT_RUN, text.partition("\n")[0]


def output_to_remember(ctx: StepContext) -> str | None:
    """The output of the check this invocation ran for `ctx`, if it ran one."""
    found = _RESULTS.get(_key(ctx))
    return found[1] if found is not None else None


def _key(ctx: StepContext) -> tuple[str | None, str, int]:
    return ctx.run, ctx.step.id, ctx.hops
