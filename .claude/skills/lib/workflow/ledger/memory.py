"""A run's memory over time. A step sees the latest value of each key; a step that gathers
values across passes (samples the user added round by round) needs every one it recorded."""

from __future__ import annotations

from ..base.errors import SkillrailError
from ..graph.model import StepContext


def written(ctx: StepContext, key: str) -> list[str]:
    """Every value the run recorded for `key`, oldest first. Without a run (stateless, or a
    simulation's hook), or when the ledger cannot be read, the latest value alone."""
    latest = [ctx.values[key]] if key in ctx.values else []
    if ctx.run is None:
        return latest
    from .store import Ledger

    try:
        with Ledger() as ledger:
            found = [value for _, name, _, value in ledger.memory_writes(ctx.run)
                     if name == key]
    except SkillrailError:
        return latest
    return found or latest
