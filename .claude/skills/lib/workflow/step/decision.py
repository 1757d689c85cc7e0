"""The decision of a script-decided step: its handler's outcome (and the step state it returns
with it, kept in the run as JSON), or its `verify` check's. A handler that breaks its contract
is a bug in the skill, reported as one error naming the step."""

from ..base.errors import SkillrailError, UsageError
from ..graph.model import StepContext
from .invocation import MAX_VALUE_CHARS


def decide(ctx: StepContext) -> str | None:
    """The outcome of a script-decided step (its handler's, or its `verify` check's); None
    when the agent or the user decides."""
    return decision(ctx)[0]


def decision(ctx: StepContext) -> tuple[str | None, str | None]:
    """`decide`, and the state the handler returned with its outcome, as the JSON text the run
    keeps (None when it returned none)."""
    if ctx.step.verify and ctx.step.handler is None:
        from .verify import check

        return check(ctx), None
    if ctx.step.handler is None:
        return None, None
    where = f"skill '{ctx.workflow.skill}', step '{ctx.step.id}'"
    try:
        result = ctx.step.handler(ctx)
    except FileNotFoundError as exc:
        raise _missing_file(ctx, exc, where) from None
    except (SkillrailError, ModuleNotFoundError, KeyboardInterrupt):
        raise
    except Exception as exc:
        import os

        if os.environ.get("SKILLRAIL_DEBUG"):
            raise
        raise _handler_failed(ctx, exc, where) from None
    state = None
    if isinstance(result, tuple):
        if len(result) != 2:
            raise SkillrailError(f"the handler returned a tuple of {len(result)} items", where,
                                 "This is a bug in the skill: return an outcome, or "
                                 "(outcome, state dict)")
        result, state = result[0], None if result[1] is None else state_text(result[1], where)
    outcome = str(result)
    if outcome not in ctx.step.next:
        raise SkillrailError(f"the handler returned outcome '{outcome}', which the step does "
                             "not map", where,
                             "This is a bug in the skill: fix its handler or its next")
    return outcome, state


def _handler_failed(ctx: StepContext, exc: Exception, where: str) -> SkillrailError:
    """A handler that raised: a bug in the skill, said at the skill's line. A key the run does
    not have (`ctx.workflow_params["mode"]` with no such param or reported value) is named, with
    the ways to give the run one."""
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)
    at = f", {frames[-1].filename}, line {frames[-1].lineno}" if frames else ""
    fix = "This is a bug in the skill: fix its handler (SKILLRAIL_DEBUG=1 shows the traceback)"
    key = exc.args[0] if isinstance(exc, KeyError) and exc.args else None
    if isinstance(key, str) and key not in ctx.workflow_params:
        fix = (f"This is a bug in the skill: the run has no value '{key}'. Declare "
               f"Param('{key}') on the workflow (given on the entry step as --{key}), or "
               f"Arg('{key.upper()}') on a step before this one (reported with --set), or read "
               f"it with .get('{key}', default)")
    return SkillrailError(f"the handler raised {type(exc).__name__}: {exc}", where + at, fix)


def _missing_file(ctx: StepContext, exc: FileNotFoundError, where: str) -> SkillrailError:
    """A handler that reads a file an earlier step writes, reached before that step ran (a
    --stateless jump, or the file deleted mid-run): the file and the way to a step that has it.
    """
    from .routing import entry_command

    name = exc.filename if exc.filename is not None else str(exc)
    return UsageError(
        f"the step decides from the file {name}, which does not exist", where,
        "An earlier step of the run writes it: run this step from the folder and with the "
        "flags the run used, or start at the entry step and follow the commands it prints: "
        f"{entry_command(ctx.workflow, ctx.params, 'xml')}")


def state_text(state: object, where: str) -> str:
    """A handler's step state as the JSON the run keeps: a dict of JSON values, of a size a
    value may have."""
    import json

    try:
        if not isinstance(state, dict):
            raise TypeError(f"a {type(state).__name__}, not a dict")
        text = json.dumps(state, ensure_ascii=False, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise SkillrailError(f"the handler's step state cannot be kept: {exc}", where,
                             "This is a bug in the skill: return (outcome, dict) whose values "
                             "are strings, numbers, booleans, None, lists or dicts") from None
    if len(text) > MAX_VALUE_CHARS:
        raise SkillrailError(f"the handler's step state has {len(text)} characters as JSON, "
                             f"more than {MAX_VALUE_CHARS}", where,
                             "This is a bug in the skill: keep counters and short notes in the "
                             "state, and larger data in files")
    return text
