"""The neutral model of one printed step: everything resolved, nothing left to decide.

The step runner fills it in; the XML builder turns it into elements. Keeping the two apart lets
each renderer be tested on hand-built views and keeps decisions out of formatting.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class BannerView:
    kind: str
    iteration: int
    limit: int
    text: str
    checkpoint: str | None = None
    mode: str | None = None
    audience: str | None = None


@dataclass(frozen=True)
class ActionView:
    text: str
    out: str | None = None


@dataclass(frozen=True)
class ForbiddenView:
    items: tuple[str, ...]


@dataclass(frozen=True)
class ResourceView:
    name: str
    path: str
    when: str
    content: str | None = None  # set when the resource is inlined


@dataclass(frozen=True)
class AskUserView:
    id: str
    question: str
    options: tuple[tuple[str, str], ...]  # (outcome, label)


DoItem = ActionView | ForbiddenView | ResourceView | AskUserView


@dataclass(frozen=True)
class ArgView:
    key: str
    describe: str
    required: bool
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class InvokeView:
    cmd: str
    args: tuple[ArgView, ...] = ()
    outcome: str | None = None
    when: str | None = None


@dataclass(frozen=True)
class StepView:
    skill: str
    id: str
    n: int
    total: int
    title: str
    mandate: str
    do: tuple[DoItem, ...]
    invokes: tuple[InvokeView, ...] = ()
    complete: str | None = None  # set instead of invokes when the run ends here
    workflow: str | None = None  # set only when it differs from skill
    run: str | None = None
    banners: tuple[BannerView, ...] = ()
    memory: tuple[tuple[str, str], ...] = field(default=())
