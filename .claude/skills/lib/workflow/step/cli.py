"""The step runner: `main(workflow, argv) -> int`. Parse, check the transition, decide, render,
print. The only place a step script prints, and the edge where every error becomes one stderr
line and an exit status (PROTOCOL.md section 6)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence

from ..base.errors import (
    READ_ONLY,
    LedgerError,
    SkillrailError,
    UsageError,
    missing_dependency,
    one_line,
)
from ..graph.model import StepContext, Workflow
from ..protocol import render
from ..protocol.view import StepView, Viewer
from .invocation import Invocation, help_text, parse_invocation
from .routing import skillrail_command


def main(workflow: Workflow, argv: Sequence[str] | None = None) -> int:
    """Print one step of `workflow` for `argv` (default: sys.argv[1:]) and return the exit
    status: a skill script ends with `if __name__ == "__main__": sys.exit(main(WORKFLOW))`.
    `--step N` prints step N, `--help` lists the steps and flags, and the commands each step
    prints lead on. Every error is one line on stderr with an exit status (2 for a bad
    invocation), never a traceback."""
    argv = list(sys.argv[1:] if argv is None else argv)
    return guarded(lambda: _run(workflow, argv), f"skill '{workflow.skill}'")


def guarded(work: Callable[[], str], where: str) -> int:
    """Run `work`; print its text on success, or one error line. Never a traceback."""
    try:
        text = work()
    except SkillrailError as exc:
        return _fail(exc.lines(), exc.exit_code)
    except ModuleNotFoundError as exc:
        return _fail(["error: " + missing_dependency(exc, where)], 1)
    except KeyboardInterrupt:
        return _fail(["error: interrupted"], 130)
    except Exception as exc:
        if os.environ.get("SKILLRAIL_DEBUG"):
            raise
        return _fail([f"error: internal error: {type(exc).__name__}: {exc} ({where}). This is "
                      "a bug; run again with SKILLRAIL_DEBUG=1 for the traceback and report it"],
                     1)
    _write(sys.stdout, text)
    return 0


def _run(workflow: Workflow, argv: list[str]) -> str:
    from .render import build_view

    inv = parse_invocation(workflow, argv)
    if inv.help:
        prog = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else workflow.name
        return help_text(workflow, prog)
    _check_total(workflow, inv)

    def view(ctx: StepContext, decided: str | None) -> StepView:
        return build_view(ctx, decided, inv.format)

    return render(_view(workflow, inv, view), inv.format)


def _view(workflow: Workflow, inv: Invocation, view: Viewer) -> StepView:
    """Pick the mode: a run in the ledger (continued or started), or stateless."""
    if inv.run is not None or inv.resume:
        from ..ledger.store import Ledger
        from .runs import continue_run

        with Ledger() as existing:
            if inv.run is None:  # --resume alone: the run this folder has going
                from .rejoin import rejoin

                return rejoin(existing, workflow, inv, view)
            return continue_run(existing, workflow, inv, view)
    _check_params(workflow, inv)
    if inv.stateless or inv.source is not None:
        return _stateless(workflow, inv, view)  # no sqlite3 to import on this path
    from .runs import open_ledger_or_warn, start_run

    step = workflow.step(inv.step or "")
    if step.id != workflow.entry:
        raise UsageError(
            f"a run starts at the entry step '{workflow.entry}', not at '{step.id}'",
            f"skill '{workflow.skill}'", "To continue a run, run the command its last step "
            f"printed (it carries --run); `{skillrail_command('status')}` lists active runs. "
            "Add --stateless "
            "to print a step without a run")
    ledger = open_ledger_or_warn(for_new_run=True)
    if ledger is None:
        return _stateless(workflow, inv, view)
    with ledger:
        try:
            return start_run(ledger, workflow, inv, view)
        except LedgerError as exc:  # a ledger that opens but cannot be written (read-only)
            if READ_ONLY not in str(exc):
                raise
            sys.stderr.write(f"warning: {exc.summary()}. Running stateless: state travels in "
                             "the printed commands.\n")
    return _stateless(workflow, inv, view)


def _stateless(workflow: Workflow, inv: Invocation, view: Viewer) -> StepView:
    from .routing import check_arrival, check_counts
    from .settle import stateless_settle

    step = workflow.step(inv.step or "")
    if inv.qr_iteration is not None or inv.qr_fail:
        from .qrflags import counts_from_flags

        inv = inv._replace(counts=counts_from_flags(step, inv.counts, inv.qr_iteration,
                                                    inv.qr_fail))
    check_counts(workflow, inv.counts)
    check_arrival(workflow, inv, step)
    if inv.source is not None and workflow.step(inv.source).ask_user is not None:
        from ..base.errors import ProtocolViolation
        from ..base.paths import project_root
        from ..guard.askgate import unanswered_stateless

        held = unanswered_stateless(workflow.name, workflow.step(inv.source).id, project_root())
        if held is not None:
            raise ProtocolViolation(held[0], f"skill '{workflow.skill}'", held[1])
    arrived = f"{inv.source}:{inv.outcome or '-'}" if inv.source else None
    # A free start (no --from) is the first step the agent is shown: the rules in full.
    ctx = StepContext(workflow, step, inv.params, inv.values, inv.counts, arrived=arrived,
                      fresh=frozenset(inv.values), full=inv.source is None)
    return stateless_settle(ctx, view)


def _check_total(workflow: Workflow, inv: Invocation) -> None:
    if inv.total_steps is not None and inv.total_steps != len(workflow.steps):
        raise UsageError(f"--total-steps {inv.total_steps} does not match the workflow's "
                         f"{len(workflow.steps)} steps", f"workflow '{workflow.name}'",
                         "Drop --total-steps, or start again from the entry step")


def _check_params(workflow: Workflow, inv: Invocation) -> None:
    for param in workflow.params:
        if param.required and not inv.params.get(param.name, "").strip():
            raise UsageError(f"--{param.name} is required", f"workflow '{workflow.name}'",
                             f"Add --{param.name}='...': {param.help}")


def _fail(lines: list[str], code: int) -> int:
    """Each line escaped (a control character as `\\x1b`, a line break as `\\n`): what the
    error echoes of its input never splits a line or reaches the terminal raw."""
    _write(sys.stderr, "\n".join(one_line(line) for line in lines) + "\n")
    return code


def _write(stream: object, text: str) -> None:
    """Write UTF-8 whatever the locale; a closed pipe is the reader's choice, not an error."""
    try:
        buffer = getattr(stream, "buffer", None)
        if buffer is not None:
            buffer.write(text.encode("utf-8", "replace"))
            buffer.flush()
        else:
            stream.write(text)  # type: ignore[attr-defined]  # a stream without a buffer
            stream.flush()  # type: ignore[attr-defined]  # (a test's StringIO) is text
    except BrokenPipeError:
        pass
