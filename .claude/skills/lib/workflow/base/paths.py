"""Where things are: the installed `skills` package and the framework inside it, and the
folder skillrail keeps its state in (the run ledger, and the evidence store beside it).

Everything that needs a path outside its own folder asks here, so no module counts parent
folders from its own location (and moving a module moves no path).
"""

from __future__ import annotations

import os

#: The folder holding the `skills` package: `.claude` in a checkout, `site-packages` when
#: installed. Resolved, so a skills folder that links the framework in shares its place.
PACKAGE_PARENT = os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0]
#: The `skills` package: skillrail's own skills beside `lib/`.
SKILLS_DIR = os.path.join(PACKAGE_PARENT, "skills")


def state_dir() -> str:
    """`$SKILLRAIL_HOME`, else `$XDG_STATE_HOME/skillrail`, else `~/.local/state/skillrail`."""
    home = os.environ.get("SKILLRAIL_HOME")
    if home:
        return home
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local",
                                                             "state")
    return os.path.join(state, "skillrail")


def ledger_path() -> str:
    """The run ledger's file."""
    return os.path.join(state_dir(), "runs.sqlite3")


def evidence_dir() -> str:
    """The evidence store's folder (evidence.py), beside the ledger."""
    return os.path.join(state_dir(), "evidence")


#: Where the framework's modules went when it was split into layers: old path (below
#: skills.lib.workflow) -> new path. moved.py keeps the old paths importable for one release.
MOVED = {
    "annotations": "tools.annotations",
    "argvgrammar": "guard.argvgrammar",
    "askgate": "guard.askgate",
    "claudesettings": "guard.claudesettings",
    "cleanenv": "guard.cleanenv",
    "cli": "run.cli",
    "commandtext": "authoring.commandtext",
    "confine": "guard.confine",
    "context": "run.expand",
    "conventions": "authoring.conventions",
    "diagram": "graph.diagram",
    "discovery": "run.discovery",
    "dispatch": "run.dispatch",
    "documents": "authoring.documents",
    "errors": "base.errors",
    "evidence": "guard.evidence",
    "execute": "guard.execute",
    "formatters": "protocol",
    "formatters.document": "protocol.document",
    "formatters.text": "protocol.text",
    "formatters.view": "protocol.view",
    "formatters.xml": "protocol.xml",
    "gatemodel": "guard.gatemodel",
    "gatepolicy": "guard.gatepolicy",
    "gateway": "guard.gateway",
    "generated": "tools.generated",
    "history": "tools.history",
    "hooks.guard": "hooks.refusals",
    "hooks.rules": "guard.rules",
    "hooks.shell": "guard.shell",
    "htmlpage": "tools.htmlpage",
    "injection": "run.injection",
    "invocation": "run.invocation",
    "learned": "run.learned",
    "ledger": "run.ledger",
    "ledger_schema": "run.ledger_schema",
    "memory": "run.memory",
    "paths": "base.paths",
    "qr": "authoring.qr",
    "qrflags": "run.qrflags",
    "qrpass": "authoring.qrpass",
    "qrreport": "authoring.qrreport",
    "redact": "guard.redact",
    "references": "authoring.references",
    "registry": "authoring.registry",
    "render": "run.render",
    "reportpage": "tools.reportpage",
    "reviewer": "authoring.reviewer",
    "routing": "run.routing",
    "runs": "run.runs",
    "samples": "tools.samples",
    "sandbox": "guard.sandbox",
    "scaffold": "tools.scaffold",
    "schema": "protocol.schema",
    "sessions": "run.sessions",
    "simulate": "tools.simulate",
    "skilllint": "tools.skilllint",
    "skillmd": "authoring.skillmd",
    "substitution": "authoring.substitution",
    "templates": "authoring.templates",
    "trust": "guard.trust",
    "usage": "tools.usage",
    "validate": "graph.validate",
    "verify": "run.verify",
}
