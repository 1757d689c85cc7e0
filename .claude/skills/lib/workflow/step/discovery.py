"""Find every skill script under `.claude/skills/*/scripts/` and load it by path without running
its `main` (the `if __name__ == "__main__"` guard keeps it from running). Each file's failure is
reported on its own; one broken skill does not hide the others."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..authoring.registry import forget_source, from_source
from ..base.errors import Finding, InvalidWorkflow, SkillrailError
from ..base.paths import SKILL_PLACES, SKILLS_DIR, find_skill
from ..base.paths import project_root as project_root_of_cwd
from ..graph.model import Workflow

__all__ = ["SKILL_PLACES", "Discovery", "LoadError", "default_root", "discover_workflows",
           "find_skill", "load_script", "project_root", "skill_scripts"]


@dataclass(frozen=True)
class LoadError:
    """A script that could not be loaded, or that registered nothing."""

    path: str
    message: str
    findings: tuple[Finding, ...] = ()

    def lines(self) -> list[str]:
        return [f"{self.path}: {self.message}"] + [f"  {f}" for f in self.findings]


@dataclass
class Discovery:
    workflows: list[Workflow] = field(default_factory=list)
    errors: list[LoadError] = field(default_factory=list)
    # Scripts of the original shape: they parse their own argv and print the format_*
    # documents, registering no workflow; they run as they are, with no graph to check.
    originals: list[str] = field(default_factory=list)



def default_root() -> Path:
    """The project's skills folder (default_roots: `.claude/skills` first), else this
    package's skills."""
    return default_roots()[0]


def default_roots() -> list[Path]:
    """The project's skills folders (base/paths.project_root: the nearest project from the
    working directory up, as git finds `.git`): `.claude/skills` for Claude Code and
    `.agents/skills` for the other Agent Skills clients, those that exist; else this package's
    skills."""
    project = Path(project_root_of_cwd())
    local = [project / place / "skills" for place in (".claude", ".agents")]
    return [p for p in local if p.is_dir()] or [Path(SKILLS_DIR)]


def project_root(root: Path) -> Path:
    """The project a skills root belongs to: the folder holding its `.claude/` or `.agents/`
    (where tests/ and CI live), or the root's parent when the root is in neither."""
    root = root.resolve()
    return root.parent.parent if root.parent.name in (".claude", ".agents") else root.parent


def skill_scripts(root: Path) -> list[Path]:
    """Every step script: `<root>/<skill>/scripts/**/*.py`, skipping `_private.py` modules."""
    return sorted(p for p in root.glob("*/scripts/**/*.py")
                  if not p.name.startswith("_") and p.parent.parent.name != "lib")


def discover_workflows(root: Path | None = None) -> Discovery:
    """Load every skill script under `root`; collect its workflows, or the reason it failed.
    Duplicate workflow names across files are refused by the registry (W001)."""
    found = Discovery()
    for path in skill_scripts(root or default_root()):
        if original_shape(path):  # not imported: such a script may parse argv as it loads
            found.originals.append(str(path))
            continue
        try:
            workflows = load_script(path)
        except InvalidWorkflow as exc:
            found.errors.append(LoadError(str(path), exc.summary(), tuple(exc.findings)))
            continue
        except SkillrailError as exc:
            found.errors.append(LoadError(str(path), exc.summary()))
            continue
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - one file's failure is its own
            found.errors.append(LoadError(str(path), f"import failed: {type(exc).__name__}: "
                                                      f"{exc}"))
            continue
        if not workflows:
            found.errors.append(LoadError(str(path), "registers no workflow: call "
                                                     "register_workflow(Workflow(...))"))
        found.workflows.extend(workflows)
    return found


def registers_workflow(text: str) -> bool:
    """Whether a script's source registers a workflow (or a legacy `@skill`)."""
    return "register_workflow(" in text or "@skill(" in text


def original_shape(path: Path) -> bool:
    """Whether a script is of the original shape: it prints the step documents the format_*
    functions make and registers no workflow (README, "Scripts written against the original
    API")."""
    import re

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return not registers_workflow(text) and re.search(
        r"\bformat_(step_output|text_output|gate_step)\(", text) is not None


def load_script(path: Path) -> list[Workflow]:
    """Import one script by path under a private module name; return what it registered."""
    real = os.path.realpath(path)
    name = "_skillrail_script_" + hashlib.sha1(real.encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(name, real)
    if spec is None or spec.loader is None:
        raise SkillrailError(f"cannot load {path} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    forget_source(real)
    spec.loader.exec_module(module)
    return from_source(real)

