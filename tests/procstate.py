"""What another process (or a thread of this one) is doing, read from Linux's /proc: where it
sleeps in the kernel and which files it holds open. For tests that wait for a process to reach
a state it does not announce (waiting for a lock, waiting for the next change), so they poll
for that state instead of sleeping for a guess at how long reaching it takes."""

from __future__ import annotations

import os
import threading


def wchan(pid: int, tid: int | None = None) -> str:
    """The kernel function process `pid` (its thread `tid`) sleeps in ('0' while it runs,
    '' once it is gone): `hrtimer_nanosleep` in a sleep, `poll_schedule_timeout` or the like
    in a poll."""
    where = f"/proc/{pid}" + (f"/task/{tid}" if tid is not None else "")
    try:
        with open(f"{where}/wchan", encoding="ascii") as found:
            return found.read().strip()
    except OSError:
        return ""


def sleeping(pid: int, tid: int | None = None) -> bool:
    """Whether the process (thread) sits in a timed sleep: Python's time.sleep, and SQLite's
    busy handler between its tries for a lock."""
    return "nanosleep" in wchan(pid, tid)


def polling(pid: int) -> bool:
    """Whether the process waits in poll, select or epoll for a file or socket to be ready."""
    return any(word in wchan(pid) for word in ("poll", "select"))


def holds_open(pid: int, path: str | os.PathLike[str]) -> bool:
    """Whether the process has the file at `path` open."""
    wanted = os.path.realpath(path)
    try:
        names = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for name in names:
        try:
            if os.readlink(f"/proc/{pid}/fd/{name}") == wanted:
                return True
        except OSError:
            continue
    return False


def this_thread() -> int:
    """The kernel's id of the calling thread, for wchan(os.getpid(), tid)."""
    return threading.get_native_id()
