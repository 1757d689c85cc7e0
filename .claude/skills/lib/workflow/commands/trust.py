"""`skillrail trust SKILL...`: let a skill's `` !`cmd` `` and `verify=` commands run, after you
have read it. Reads its files once, seals a read-only copy of them in the evidence store's
folder (its commands run from that copy) and records their digest there; any change to them
revokes the trust. A skill with a link leading out of its folder, or compiled Python, is
refused (guard/trust.py). `--list` shows what is trusted (and what changed since); `--revoke`
takes it back. Run it yourself, in your own terminal: skillrail's hooks refuse it to the
agent."""

from __future__ import annotations

import argparse
import os
import time
from typing import TYPE_CHECKING

from ..base.errors import UsageError
from ..guard.evidence import Evidence
from ..guard.snapshot import UntrustableSkill, read
from ..guard.trust import as_shipped, digest, prune, record, seal_shipped
from ..step.discovery import SKILL_PLACES, find_skill

if TYPE_CHECKING:
    from ..guard.evidence import Evidence
    from ..guard.snapshot import Contents

HELP = "trust a skill you have read, so its commands may run (after any change: again)"


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("skills", nargs="*", metavar="SKILL",
                        help="a skill's name (under .claude/skills, .agents/skills or "
                             "~/.claude/skills) or its folder")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--list", action="store_true", help="list the trusted skills")
    mode.add_argument("--revoke", action="store_true", help="take the trust back")


def run(ns: argparse.Namespace) -> tuple[int, str]:
    if ns.list:
        if ns.skills:
            raise UsageError("--list takes no skill", fix="Run `skillrail trust --list`")
        with Evidence() as store:
            return 0, _listing(store.all_trusted())
    if not ns.skills:
        raise UsageError("name the skill to trust", fix="Run `skillrail trust SKILL` (a name "
                         "or a folder), or `skillrail trust --list`")
    folders = [_folder(given) for given in ns.skills]
    with Evidence() as store:
        if ns.revoke:
            lines = [_revoke(store, f) for f in folders]
        else:
            contents = [read(f) for f in folders]  # every refusal before any trust
            lines = [_trust(store, c) for c in contents]
        prune(store)
    return 0, "\n".join(lines) + "\n"


def _folder(given: str) -> str:
    found = find_skill(given)
    if found is None:
        raise UsageError(f"no skill '{given}': no SKILL.md in that folder, nor in a skill of "
                         f"that name under {', '.join(SKILL_PLACES)}",
                         fix="Give the skill's name or its folder")
    return found


def _trust(store: Evidence, contents: Contents) -> str:
    folder, value = contents.folder, contents.digest
    if as_shipped(contents):
        seal_shipped(contents)
        return (f"{folder}: one of skillrail's own skills, trusted as shipped; nothing "
                "recorded (its commands now run from a sealed copy)")
    before = store.trusted(folder)
    record(store, contents)
    how = ("already trusted as it is" if before == value else
           "trusted again after a change" if before else "trusted")
    return (f"{folder}: {how} ({len(contents.files)} files, digest {value[:12]}); its "
            "commands may run until any of its files changes")


def _revoke(store: Evidence, folder: str) -> str:
    done = store.revoke(folder)
    return f"{folder}: {'trust revoked' if done else 'was not trusted'}"


def _listing(rows: list[tuple[str, str, int, float]]) -> str:
    if not rows:
        return "no skill is trusted here (skillrail's own skills are trusted as shipped)\n"
    lines = []
    for folder, value, files, at in rows:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(at))
        lines.append(f"{folder}  trusted {when}, {files} files, {_state(folder, value)}")
    return "\n".join(lines) + "\n"


def _state(folder: str, value: str) -> str:
    if not os.path.isdir(folder):
        return "folder gone"
    try:
        return "unchanged" if digest(folder) == value else "CHANGED since: not trusted"
    except UntrustableSkill as exc:
        return f"CHANGED since: not trusted ({exc.why})"
