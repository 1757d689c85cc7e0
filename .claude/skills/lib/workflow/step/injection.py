"""Running one `` !`cmd` `` of a step: through the gateway, once per run (the result is cached
in the run's ledger, and every execution is an audit event), output redacted and capped. A
refusal or a failure is shown in the `<context>` itself: the step still prints."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..base.errors import LedgerError
from ..graph.model import StepContext
from ..protocol.view import ContextView

if TYPE_CHECKING:
    from ..ledger.store import Ledger

#: The ledger event kinds: the cached result of a command, and the audit of an execution.
CACHED, EXECUTED = "context", "exec"
#: What a failed command shows of its output: the error, not the usage text that follows it.
FAILURE_CHARS = 1_000


def context_name(template: str, taken: set[str]) -> str:
    """A readable, unique name: the command's first two words ('git-status', 'git-log-2'), or
    a script's name for an interpreter running one ('python3 .../count.py' is 'count')."""
    first = template.split()[:2]
    if len(first) == 2 and first[0].startswith("python"):
        first = [first[1].rsplit("/", 1)[-1].removesuffix(".py")]
    words = [w for w in re.split(r"[^A-Za-z0-9]+", " ".join(first)) if w]
    base = "-".join(words).lower()[:40] or "command"
    name, n = base, 2
    while name in taken:
        name, n = f"{base}-{n}", n + 1
    return name


def injected(ctx: StepContext, template: str, name: str, skill_dir: str,
             substitute: Callable[[str], str]) -> ContextView:
    """The `<context>` for `template`: from the run's cache, or run now and cached."""
    if ctx.run is None:
        status, text = _execute(template, skill_dir, substitute)
        return ContextView(name, status, text)
    from ..ledger.store import Ledger

    try:
        with Ledger() as ledger:
            cached = _cached(ledger, ctx.run, template)
            if cached is not None:
                return ContextView(name, *cached)
            status, text = _execute(template, skill_dir, substitute)
            if status == "untrusted":  # not cached: once the user trusts it, it runs
                return ContextView(name, status, text)
            with ledger.transaction():
                ledger.event(ctx.run, CACHED, json.dumps(
                    {"command": template, "status": status, "text": text}))
                ledger.event(ctx.run, EXECUTED, f"{template} -> {status}")
    except LedgerError as exc:  # the step still prints; the command is not cached
        return ContextView(name, "error", f"not run: {exc.summary()}")
    return ContextView(name, status, text)


def _cached(ledger: Ledger, run: str, template: str) -> tuple[str, str] | None:
    for _, kind, detail in ledger.events(run):
        if kind == CACHED:
            entry = json.loads(detail)
            if entry.get("command") == template:
                return str(entry["status"]), str(entry["text"])
    return None


def _execute(template: str, skill_dir: str, substitute: Callable[[str], str]) -> tuple[str, str]:
    """(status, text) of one run of `template`; never raises."""
    from ..guard.gateway import attempt
    from ..guard.redact import redact

    done = attempt(template, skill_dir, substitute)
    text = redact(done.head).rstrip() or "(no output)"
    if done.status in ("refused", "error", "untrusted"):
        return done.status, text
    if done.status != "ok":  # the cause leads; a usage dump after it only crowds the step
        cut = len(text) > FAILURE_CHARS
        text = f"[{done.summary()}]\n{text[:FAILURE_CHARS]}".rstrip()
        return done.status, text + ("\n[output cut]" if cut or done.truncated else "")
    if done.truncated:
        text += f"\n[output cut at {len(done.head)} characters]"
    return done.status, text
