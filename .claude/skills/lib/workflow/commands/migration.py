"""`skillrail migration-status`: which skills are written in the workflow API and which in the
legacy one, with the size of each graph. `--write` keeps MIGRATION_STATUS.md (beside `.claude/`)
in step with the code; `--check` fails when the committed file is stale (CI runs it)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from ..base.errors import SkillrailError
from ..base.relocations import MOVED
from ..graph.model import Workflow
from ..step.discovery import default_root, project_root
from .common import add_json, add_root, loaded_workflows

HELP = "report which skills use the workflow API and which the legacy one (MIGRATION_STATUS.md)"
FILE = "MIGRATION_STATUS.md"


def add_parser(parser: argparse.ArgumentParser) -> None:
    add_root(parser)
    add_json(parser)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true",
                      help=f"write {FILE} beside the .claude folder")
    mode.add_argument("--check", action="store_true",
                      help=f"exit 1 when the committed {FILE} differs from the code")


def run(ns: argparse.Namespace) -> tuple[int, str]:
    root = (ns.root or default_root()).resolve()
    project = project_root(root)
    rows = [_row(wf, project) for wf in sorted(loaded_workflows(root),
                                               key=lambda w: (w.skill, w.name))]
    if ns.json:
        return 0, json.dumps(rows, indent=2) + "\n"
    text = render(rows)
    target = project / FILE
    if ns.write:
        target.write_text(text, encoding="utf-8")
        return 0, f"wrote {target}\n"
    if ns.check:
        current = target.read_text(encoding="utf-8") if target.is_file() else ""
        if current != text:
            raise SkillrailError(f"{target} is stale", fix="Run `skillrail migration-status "
                                 "--write` and commit the file")
        return 0, f"{target} is up to date\n"
    return 0, text


def _row(wf: Workflow, project: Path) -> dict[str, Any]:
    roles = [s.qr.role for s in wf.steps if s.qr is not None]
    source = Path(wf.source)
    return {
        "skill": wf.skill, "workflow": wf.name, "api": "legacy" if wf.legacy else "workflow",
        "script": source.relative_to(project).as_posix()
        if source.is_relative_to(project) else source.as_posix(),
        "steps": len(wf.steps), "loops": len(wf.reworks), "review_gates": roles.count("gate"),
        "dispatches": sum(1 for s in wf.steps if s.dispatch is not None),
        "asks_user": sum(1 for s in wf.steps if s.ask_user is not None)}


def render(rows: list[dict[str, Any]]) -> str:
    legacy = [r for r in rows if r["api"] == "legacy"]
    lines = [
        "# Migration status", "",
        "Generated from the code by `skillrail migration-status --write`; do not edit by hand. "
        "CI fails when it is stale.", "",
        f"{len(rows) - len(legacy)} of {len(rows)} workflows use the workflow API; "
        f"{len(legacy)} {'is' if len(legacy) == 1 else 'are'} written in the legacy API "
        "(adapted when loaded, validated like the rest).", "",
        "| skill | workflow | API | steps | loops | review gates | dispatches | asks the user "
        "| script |",
        "|---|---|---|---:|---:|---:|---:|---:|---|",
    ]
    lines += [f"| {r['skill']} | {r['workflow']} | {r['api']} | {r['steps']} | {r['loops']} | "
              f"{r['review_gates']} | {r['dispatches']} | {r['asks_user']} | `{r['script']}` |"
              for r in rows]
    if legacy:
        lines += ["", "A legacy script moves to the workflow API by writing its steps as "
                  "`StepDef`s: the README of `commit-message` maps each legacy name to its "
                  "workflow-API counterpart."]
    return "\n".join(lines + _moved()) + "\n"


def _moved() -> list[str]:
    """The module paths that moved into the framework's layers (base/relocations.py)."""
    prefix = "skills.lib.workflow."
    return ["", "## Moved module paths", "",
            "The framework was split into layers (docs/DESIGN.md). These old paths still import, "
            "with a DeprecationWarning naming the new one, until the next release; the "
            "documented `skills.lib.workflow`, `.core`, `.types`, `.formatters` and "
            "`.formatters.text` stay as they are (the last two hold the original system's "
            "formatters, and still answer for the protocol names they held before).", "",
            "| old path | new path |", "|---|---|"] + [
        f"| `{prefix}{old}` | `{prefix}{new}` |" for old, new in sorted(MOVED.items())]
