"""A command's supervisor: it starts the command, waits for it, then ends every process the
command left behind, however it detached itself, before it reports the command's exit status.

The gateway runs a command in a process group of its own and kills that group at the timeout,
but a daemon (a double fork and `setsid()`) leaves the group, and would outlive the step that
ran it: writing files later, holding the output open. Inside bubblewrap's own PID namespace it
dies with the namespace. Elsewhere (no bwrap, or bwrap nested in another sandbox, which keeps
the outer namespace) this supervisor stands between the gateway and the command: on Linux it
makes itself a child subreaper (prctl PR_SET_CHILD_SUBREAPER), so every orphan among the
command's descendants is re-parented to it instead of init, and it kills them all once the
command has returned, or at once on SIGTERM (the gateway's timeout) or when the gateway dies
(PR_SET_PDEATHSIG).

Run as `python -I -S reaper.py GATEWAY_PID PROGRAM ARGS...`, from the command's folder, with its
environment. It imports only the standard library (it runs as a file, before anything else).
"""

import contextlib
import ctypes
import os
import signal
import sys

_PR_SET_PDEATHSIG, _PR_SET_CHILD_SUBREAPER = 1, 36
#: Rounds of killing before giving up on a tree that keeps forking (each round kills all).
_ROUNDS = 10_000


class _Stop(Exception):
    """SIGTERM: the gateway's timeout, or the gateway gone."""


def main(argv: list[str]) -> int:
    gateway, command = int(argv[0]), argv[1:]
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    signal.signal(signal.SIGTERM, _stop)
    if os.getppid() != gateway:  # it died before PR_SET_PDEATHSIG could say so
        return 128 + signal.SIGTERM
    defaults = [getattr(signal, s) for s in ("SIGPIPE", "SIGXFSZ") if hasattr(signal, s)]
    try:
        child = os.posix_spawn(command[0], command, os.environ, setsigdef=defaults)
    except OSError as exc:
        print(f"{command[0]}: {exc.strerror or exc}", file=sys.stderr)
        return 127
    code = 128 + signal.SIGTERM
    try:
        code = _wait(child)
    except _Stop:
        pass
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        end_descendants(os.getpid())
    return code


def _stop(signum: int, frame: object) -> None:
    raise _Stop


def _wait(child: int) -> int:
    """The command's exit code (128 + N for signal N), reaping orphans meanwhile."""
    while True:
        pid, status = os.waitpid(-1, 0)
        if pid == child:
            code = os.waitstatus_to_exitcode(status)
            return code if code >= 0 else 128 - code


def end_descendants(root: int) -> None:
    """Kill every descendant of `root` (this process, a subreaper) and reap its children."""
    for _ in range(_ROUNDS):
        direct = _children(root)
        if not direct:
            return
        found, queue = [], list(direct)
        while queue:
            pid = queue.pop()
            found.append(pid)
            queue += _children(pid)
        for pid in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        for pid in direct:  # killed: each returns at once; orphans of the dead come next round
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


def _children(pid: int) -> list[int]:
    """The children of `pid`, from /proc (every thread's list), else by a scan of /proc."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    if not os.path.exists(f"/proc/{pid}/task/{tasks[0]}/children"):
        return _scan(pid)
    found = []
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as listed:
                found += [int(p) for p in listed.read().split()]
        except OSError:
            continue
    return found


def _scan(parent: int) -> list[int]:
    """The children of `parent` by each process's parent in /proc/PID/stat (a kernel without
    the children lists)."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as stat:
                    fields = stat.read().rsplit(b")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if len(fields) > 1 and int(fields[1]) == parent:
                found.append(int(name))
    return found


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
