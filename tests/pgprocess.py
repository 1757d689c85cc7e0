"""The processes and programs behind tests/pgserver.py: where PostgreSQL's server programs are,
whether a process runs, how to crash a server, and its log's last words."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import time
from pathlib import Path

TOOLS = ("initdb", "pg_ctl", "postgres", "pg_isready")


class PgServerError(RuntimeError):
    """The server could not be made, started or stopped; the message says why, in one line."""


def _version(bindir: Path) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", bindir.parent.name))


def find_bindir() -> Path | None:
    """The folder with initdb, pg_ctl, postgres and pg_isready: initdb's on PATH, else the newest
    /usr/lib/postgresql/<version>/bin (Debian keeps the server's programs off PATH)."""
    found = shutil.which("initdb")
    # A link on PATH (as /usr/local/bin/initdb may be) also names the folder of what it links to.
    candidates = [Path(found).parent, Path(found).resolve().parent] if found else []
    candidates += sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=_version, reverse=True)
    return next((d for d in candidates if all(os.access(d / t, os.X_OK) for t in TOOLS)), None)


def alive(pid: int) -> bool:
    """Whether process `pid` runs (a zombie, dead and not yet reaped, does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    except OSError:  # no /proc here: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return stat.rpartition(")")[2].split()[0] != "Z"


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (the postmaster's backends and helpers)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def tail(log: Path, lines: int = 5) -> str:
    """The last lines of the server's log, on one line."""
    try:
        text = log.read_text(errors="replace").splitlines()
    except OSError:
        return f"no server log at {log}"
    last = [line.strip() for line in text if line.strip()][-lines:]
    return " / ".join(last) or "the server log is empty"


def one_line(text: str) -> str:
    return " / ".join(line.strip() for line in text.splitlines() if line.strip())


def kill_tree(pid: int, timeout: float) -> None:
    """SIGKILL process `pid` and every process it started, and wait until they are dead."""
    os.kill(pid, signal.SIGSTOP)  # it starts no process from here on
    doomed = [pid, *_children(pid)]
    for each in doomed:
        with contextlib.suppress(ProcessLookupError):
            os.kill(each, signal.SIGKILL)
    deadline = time.monotonic() + timeout
    while any(alive(each) for each in doomed):
        if time.monotonic() > deadline:
            raise PgServerError(f"processes {doomed} outlived SIGKILL")
        time.sleep(0.02)
