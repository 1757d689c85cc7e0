"""The neutral model of one printed step: everything resolved, nothing left to decide.

The step runner fills it in; the XML builder turns it into elements. Keeping the two apart lets
each renderer be tested on hand-built views and keeps decisions out of formatting. NamedTuples, not
dataclasses: they are as immutable and several times cheaper to define on the `--step` path.
"""


from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from ..graph.model import StepContext


class BannerView(NamedTuple):
    kind: str
    iteration: int
    limit: int
    text: str
    checkpoint: str | None = None
    mode: str | None = None
    audience: str | None = None


class ActionView(NamedTuple):
    text: str
    out: str | None = None
    # Text computed at run time (it may hold reported values): shown as it is, never expanded
    # for variables or `!`cmd`` (step/expand.py), so a value can never turn into a command.
    literal: bool = False


class ForbiddenView(NamedTuple):
    items: tuple[str, ...]


class ResourceView(NamedTuple):
    name: str
    path: str
    when: str
    content: str | None = None  # set when the resource is inlined


class ConventionView(NamedTuple):
    name: str
    path: str
    when: str
    content: str | None = None  # set when the convention is inlined


class DispatchView(NamedTuple):
    agent: str
    mode: str  # "script" or "free-form"
    context: str
    # (item id or None, verbatim prompt); each holds the brief, the variables, the sub-agent's
    # command and the reply format (step/dispatch.py), so the view carries them nowhere else.
    prompts: tuple[tuple[str | None, str], ...]
    model: str | None = None
    instances: int = 1  # `count` in the protocol; a NamedTuple field may not be named so
    required: bool = True
    fix: str | None = None  # what a script sub-run started with --fix holds as FIX_FINDINGS


class ExpectedView(NamedTuple):
    text: str


class ContextView(NamedTuple):
    """A command's output put into the step before it was printed (or a check's result)."""

    name: str
    status: str  # ok | failed | timeout | refused | error
    text: str


class AskUserView(NamedTuple):
    id: str
    question: str
    options: tuple[tuple[str, str], ...]  # (outcome, label)
    literal: bool = False  # a question computed at run time: never expanded (see ActionView)


DoItem = (ActionView | ForbiddenView | ResourceView | ConventionView | DispatchView
          | AskUserView | ExpectedView | ContextView)


class ArgView(NamedTuple):
    key: str
    describe: str
    required: bool
    choices: tuple[str, ...] = ()


class InvokeView(NamedTuple):
    cmd: str
    args: tuple[ArgView, ...] = ()
    outcome: str | None = None
    when: str | None = None


class MemoryView(NamedTuple):
    """One committed value a step reads: whole, or its head when `show` is set (the command
    that prints it whole) and `length` says how long it is."""

    key: str
    text: str
    length: int | None = None
    show: str | None = None


class StepView(NamedTuple):
    skill: str
    id: str
    n: int
    title: str
    mandate: str | None  # None where the command's step is not the first shown nor a reprint
    do: tuple[DoItem, ...]
    invokes: tuple[InvokeView, ...] = ()
    complete: str | None = None  # set instead of invokes when the run ends here
    workflow: str | None = None  # set only when it differs from skill
    run: str | None = None
    banners: tuple[BannerView, ...] = ()
    memory: tuple[MemoryView, ...] = ()
    # The workflow's required params and their values, (name, value), on the entry step and
    # wherever the full mandate is shown.
    params: tuple[tuple[str, str], ...] = ()
    # The script-decided steps this invocation passed through on its way here, in order:
    # (step id, the outcome the script chose, the step's note on it).
    decided: tuple[tuple[str, str, str], ...] = ()


#: Builds the view of a step once its state is settled: (context, decided outcome) -> view.
Viewer = Callable[["StepContext", "str | None"], StepView]
