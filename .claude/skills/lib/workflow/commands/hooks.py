"""`skillrail hooks install|uninstall`: merge skillrail's Claude Code hooks into a settings file,
keeping every other hook; `--dry-run` shows the diff. The hooks run skillrail's own
installation, never a project's copy of the framework (which the agent edits like any file):
where `skillrail-hook` (installed by pip with skillrail) is on PATH, outside the project, they
go to the shared `.claude/settings.json` as `skillrail-hook EVENT`, which every teammate's own
installation answers; otherwise, or with `--local`, to `.claude/settings.local.json` with this
machine's paths. `install --sandbox` also turns on Claude Code's Bash sandbox, hard (no
unsandboxed commands, no session where it cannot run), with the run ledger's folder writable
and the evidence store, the settings files, the policy file and the framework copy neither
writable by Bash nor editable by the file tools, and says loudly when this machine cannot run
it. `uninstall` takes out the hooks and those paths and rules. `--client codex` puts the hooks
in the project's `.codex/hooks.json` instead and records the user's trust of them in Codex's
config.toml (hooks/codex.py)."""

from __future__ import annotations

import argparse
import difflib
import os
import shutil
import sys

from ..base.errors import SkillrailError, UsageError
from ..base.paths import SKILLS_DIR, project_root, state_dir
from ..guard.claudesettings import HOOK_PROGRAM
from ..guard.confine import inside
from ..guard.sandbox import find
from ..hooks import codex, gemini, settings

HELP = "install (or uninstall) the hooks that enforce runs, in Claude Code or Codex"


def add_parser(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    for name, text in (("install", "merge the hooks into the settings file"),
                       ("uninstall", "remove skillrail's hooks from the settings file")):
        sub = actions.add_parser(name, help=text, description=text)
        sub.add_argument("--settings", default=None, metavar="PATH",
                         help="the settings file (default: the project's .claude/settings.json, "
                              "or .claude/settings.local.json; see --local)")
        sub.add_argument("--local", action="store_true",
                         help="this machine only: .claude/settings.local.json (not shared in "
                              "git), with this interpreter's and this framework's paths")
        sub.add_argument("--dry-run", action="store_true",
                         help="print the change as a unified diff; write nothing")
        sub.add_argument("--client", choices=("claude", "codex", "gemini"), default="claude",
                         help="claude: Claude Code's settings (the default); codex: the "
                              "project's .codex/hooks.json, and your trust of them in Codex's "
                              "config.toml; gemini: the project's .gemini/settings.json")
        if name == "install":
            sub.add_argument("--sandbox", action="store_true",
                             help="also turn on Claude Code's Bash sandbox, so the agent "
                                  "cannot write the evidence the ask_user gate trusts")


def target(ns: argparse.Namespace) -> tuple[str, bool, str, str]:
    """(the settings file, whether the hook commands are the shared `skillrail-hook` form, a
    note on the choice, the project's folder)."""

    # A settings file given is a project's `.claude/<file>`: that project counts.
    root = (os.path.dirname(os.path.dirname(os.path.abspath(ns.settings)))
            if ns.settings is not None else project_root())
    found = shutil.which(HOOK_PROGRAM)
    usable = found is not None and not _inside(found, root)
    shared = not ns.local and usable
    if ns.settings is not None:
        return ns.settings, shared, "", root
    if shared:
        return os.path.join(root, ".claude", "settings.json"), True, "", root
    local = os.path.join(root, ".claude", "settings.local.json")
    why = (f"{HOOK_PROGRAM} is not on PATH here (`pip install skillrail` brings it)"
           if found is None else f"{HOOK_PROGRAM} on PATH is inside this project ({found})")
    note = "" if ns.local else (f"note: {why}, so the hooks name this machine's installation "
                                f"and go to {local}, which is not shared\n")
    return local, False, note, root


def _inside(path: str, root: str) -> bool:
    return inside(os.path.realpath(path), os.path.realpath(root))


def run(ns: argparse.Namespace) -> tuple[int, str]:
    if ns.client == "codex":
        return _codex(ns)
    if ns.client == "gemini":
        return _gemini(ns)
    install = ns.action == "install"
    path, shared, note, root = target(ns)
    sandbox = getattr(ns, "sandbox", False) or not install
    old_text, data = settings.read(path)
    new = settings.merged(data, install, shared)
    if sandbox:
        new = settings.with_sandbox(new, install, root, portable=shared)
    # A shared file names the default state folder; this machine's own, when it keeps its
    # state elsewhere, goes to the unshared file beside it.
    personal = os.path.join(os.path.dirname(path), "settings.local.json")
    mine = sandbox and shared and os.path.abspath(personal) != os.path.abspath(path)
    old_mine, data_mine = settings.read(personal) if mine else ("", {})
    new_mine = settings.personal_sandbox(data_mine, install and settings.own_state()) \
        if mine else data_mine
    if new == data and new_mine == data_mine:
        state = "installed" if install else "not installed"
        return 0, f"skillrail's hooks are already {state} in {path}: nothing to change\n"
    new_text = settings.render(new, old_text)
    if ns.dry_run:
        return 0, "".join([*_diff(path, old_text, new_text), *_diff(
            personal, old_mine, settings.render(new_mine, old_mine) if new_mine else "")])
    if new != data:
        settings.write(path, new_text)
    if new_mine != data_mine and new_mine:
        settings.write(personal, settings.render(new_mine, old_mine))
    elif new_mine != data_mine:  # it held only this machine's state paths
        os.unlink(personal)
    if not install:
        return 0, (f"removed skillrail's hooks (and its sandbox paths and rules) from {path}; "
                   "sandbox.enabled is left as it is\n")
    events = ", ".join(event for event, _ in settings.EVENTS)
    text = note + (f"installed skillrail's hooks in {path} ({events}); Claude Code reads them "
                   "when a session starts (or after a review in /hooks)\n") + _where(root)
    if not ns.sandbox:
        return 0, text
    ledger, evidence = settings.sandbox_paths(portable=shared)
    settings.make_sandbox_folders()
    text += (f"turned on Claude Code's Bash sandbox: {ledger} writable (the run ledger); "
             f"{evidence} (the evidence store) and {', '.join(settings.protected(root))} "
             "neither writable by Bash nor editable by the file tools; no unsandboxed "
             "commands; Claude Code refuses to start where the sandbox cannot run\n")
    if new_mine != data_mine and settings.own_state():
        own = settings.sandbox_paths()
        text += (f"this machine keeps skillrail's state in {own[0]} (SKILLRAIL_HOME or "
                 f"XDG_STATE_HOME), not in the default folder {path} names: its paths went to "
                 f"{personal}, which is not shared\n")
    missing = sandbox_missing()
    if missing is None:
        return 0, text
    return 1, text + (f"WARNING: Claude Code's sandbox cannot run on this machine: {missing}. "
                      "Until it can, Claude Code refuses to start a session here (the settings "
                      "say failIfUnavailable). Debian and Ubuntu: apt-get install bubblewrap "
                      "socat\n")


def _other_client(ns: argparse.Namespace, hook_file: str,
                  fix: str) -> tuple[bool, str, str, bool]:
    """(installing, the project's folder, the client's hook file, whether the hooks are the
    shared `skillrail-hook` form) for a client other than Claude Code, whose options
    (--local, --sandbox) it refuses with `fix`."""
    if ns.local or getattr(ns, "sandbox", False):
        flag = "--local" if ns.local else "--sandbox"
        raise UsageError(f"{flag} is for Claude Code's settings", fix=fix)
    root = (os.path.dirname(os.path.dirname(os.path.abspath(ns.settings)))
            if ns.settings is not None else project_root())
    found = shutil.which(HOOK_PROGRAM)
    return (ns.action == "install", root, ns.settings or os.path.join(root, hook_file),
            found is not None and not _inside(found, root))


def _codex(ns: argparse.Namespace) -> tuple[int, str]:
    """The hooks in the project's `.codex/hooks.json`, and the user's trust of them recorded
    in Codex's config.toml (hooks/codex.py): Codex runs no hook the user has not trusted."""
    install, root, path, shared = _other_client(ns, codex.HOOKS_FILE, (
        "For Codex, drop it: the hooks go to .codex/hooks.json, and Codex's own sandbox "
        "(codex -s workspace-write) keeps the agent's commands to the workspace"))
    old_text, data = settings.read(path)
    new = settings.merged(data, install, shared, codex.EVENTS)
    after = codex.trust_keys(path, new)
    ours = {*codex.trust_keys(path, data).values(), *codex.trust_keys(
        path, settings.merged(data, True, shared, codex.EVENTS)).values()}
    drop = codex.stale(path, ours, after)
    config = codex.config_file()
    old_config = _text(config)
    ledger = state_dir()  # Codex's sandbox lets step scripts write the run ledger there
    new_config = codex.with_trust(old_config, drop, after)
    if install:  # kept on uninstall: the runs of other projects need it too
        new_config = codex.writable(new_config, ledger, True)
    if new == data and new_config == old_config:
        state = "installed and trusted" if install else "not installed"
        return 0, f"skillrail's hooks are already {state} in {path}: nothing to change\n"
    if ns.dry_run:
        return 0, "".join([*_diff(path, old_text, settings.render(new, old_text)),
                           *_diff(config, old_config, new_config)])
    if new != data and not new and not install:  # it held only skillrail's hooks
        os.unlink(path)
    elif new != data:
        settings.write(path, settings.render(new, old_text))
    if new_config != old_config:
        settings.write(config, new_config)
    if not install:
        return 0, (f"removed skillrail's hooks from {path}, and their trust from {config} "
                   f"(the ledger's folder {ledger} stays among the folders Codex's sandbox "
                   "lets commands write: other projects' runs use it)\n")
    events = ", ".join(event for event, _ in codex.EVENTS)
    how = ("" if shared else f"note: {HOOK_PROGRAM} is not on PATH here (or lies inside the "
           "project), so the hooks name this machine's installation: a teammate runs `skillrail "
           "hooks install --client codex` again on theirs\n")
    return 0, (how + f"installed skillrail's hooks in {path} ({events}) and recorded your "
               f"trust of them in {config}, with the run ledger's folder {ledger} among the "
               "folders its sandbox lets commands write (step scripts record runs there). "
               "Codex runs a project's hooks only once you trust "
               "the project (it asks when it first opens the folder; `codex exec` takes "
               "--trust), and each teammate trusts the hooks with this same command. Commit "
               f"{codex.HOOKS_FILE}.\n" + _where(root))


def _gemini(ns: argparse.Namespace) -> tuple[int, str]:
    """The hooks in the project's `.gemini/settings.json` (hooks/gemini.py), every other setting
    kept."""
    install, root, path, shared = _other_client(ns, gemini.SETTINGS_FILE, (
        "For Gemini CLI, drop it: the hooks go to .gemini/settings.json"))
    old_text, data = settings.read(path)
    new = settings.merged(data, install, shared, gemini.EVENTS, "gemini")
    if new == data:
        state = "installed" if install else "not installed"
        return 0, f"skillrail's hooks are already {state} in {path}: nothing to change\n"
    new_text = settings.render(new, old_text)
    if ns.dry_run:
        return 0, "".join(_diff(path, old_text, new_text))
    if not new and not install:  # it held only skillrail's hooks
        os.unlink(path)
    else:
        settings.write(path, new_text)
    if not install:
        return 0, f"removed skillrail's hooks from {path}\n"
    events = ", ".join(event for event, _ in gemini.EVENTS)
    how = ("" if shared else f"note: {HOOK_PROGRAM} is not on PATH here (or lies inside the "
           "project), so the hooks name this machine's installation\n")
    return 0, (how + f"installed skillrail's hooks in {path} ({events}). Gemini CLI runs a "
               "project's hooks only in a folder you trust (it asks when it first opens the "
               f"folder). Commit {gemini.SETTINGS_FILE}.\n" + _where(root))


def _text(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except FileNotFoundError:
        return ""
    except (OSError, UnicodeDecodeError) as exc:
        raise SkillrailError(f"cannot read {path}: {exc}", fix="Check the file and its "
                             "permissions; it was left untouched") from None


def _diff(path: str, old: str, new: str) -> list[str]:
    return list(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                     fromfile=f"{path} (now)", tofile=f"{path} (after)"))


def _where(root: str) -> str:
    """A warning when the installation the hooks run lies inside the project: the agent can
    edit it like any file there, unless Claude Code's sandbox denies it (--sandbox)."""
    package = SKILLS_DIR
    if not _inside(package, root):
        return ""
    return (f"warning: the skillrail the hooks run is inside this project ({package}): the "
            "agent can edit it unless `--sandbox` protects it; install skillrail outside the "
            "project (pipx, or a virtual environment elsewhere)\n")


def sandbox_missing() -> str | None:
    """Why Claude Code's Bash sandbox cannot run here (Linux: bubblewrap that starts, and
    socat), or None."""
    if not sys.platform.startswith("linux"):
        return None
    missing = [p for p in ("bwrap", "socat") if shutil.which(p) is None]
    if missing:
        return f"{' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} not installed"
    if find() is None:
        return "bubblewrap is installed but cannot start a sandbox (user namespaces disabled?)"
    return None
