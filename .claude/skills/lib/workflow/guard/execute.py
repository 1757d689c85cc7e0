"""Run one program bounded in time and output: no shell, no stdin, its own process group (so a
timeout kills what it started too; reaper.py ends what left the group), stdout and stderr read
together as they come.

The output is kept twice, bounded both times: its head (what context injection shows) and its
tail (what a failed check's fix step needs: the error is usually at the end). Past the cap the
rest is read and dropped, so a flooding program cannot fill memory, yet its exit status is still
known; the timeout bounds how long that takes.
"""

# No `from __future__ import annotations` here: typing.NamedTuple compiles each string
# annotation at import, and every step that runs a command imports this module.
import contextlib
import os
import selectors
import signal
import subprocess
import time
from typing import NamedTuple

_CHUNK = 65_536
#: Seconds a supervisor has to end the command's tree after the timeout.
_GRACE = 5.0


class Completed(NamedTuple):
    """What a bounded run gave. `status` is 'ok' (exit 0), 'failed', 'timeout', 'error' (it
    could not start), 'refused' (the gateway did not let it run) or 'untrusted' (the user has
    not trusted the skill whose command it is)."""

    status: str
    exit_code: int | None
    head: str
    tail: str
    truncated: bool  # the output was longer than the cap
    seconds: float

    def summary(self) -> str:
        """One line: how it ended."""
        return {"ok": "exit 0", "failed": f"exit {self.exit_code}",
                "timeout": f"stopped after the {self.seconds:.0f} s timeout",
                "error": "not run", "refused": "refused",
                "untrusted": "not run: the skill is not trusted"}[self.status]


def run_bounded(argv: list[str], cwd: str, env: dict[str, str], timeout: float,
                max_chars: int, supervised: bool = False) -> Completed:
    """Run `argv`; never raises for the program's own failures. `supervised`: argv is
    reaper.py's, which ends the command's whole tree when told to stop (SIGTERM)."""
    started = time.monotonic()
    try:
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                start_new_session=True)
    except OSError as exc:
        return Completed("error", None, f"{argv[0]}: {exc.strerror or exc}", "", False, 0.0)
    deadline = started + timeout
    with proc:  # closes the pipe
        head, tail, total, timed_out = _read(proc, deadline, max_chars * 4)
        if not timed_out:  # output closed; the program may still be running
            try:
                proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                timed_out = True
        if timed_out:
            _kill(proc, supervised)
        code = proc.wait()
    seconds = time.monotonic() - started
    text_head = head.decode("utf-8", "replace")[:max_chars]
    text_tail = tail.decode("utf-8", "replace")[-max_chars:]
    truncated = total > len(head) or len(head.decode("utf-8", "replace")) > max_chars
    status = "timeout" if timed_out else ("ok" if code == 0 else "failed")
    return Completed(status, None if timed_out else code, text_head, text_tail, truncated,
                     seconds)


def _read(proc: subprocess.Popen[bytes], deadline: float,
          cap: int) -> tuple[bytes, bytes, int, bool]:
    """Read until end of output or the deadline; keep `cap` bytes of head and of tail."""
    assert proc.stdout is not None
    head, tail, total = bytearray(), bytearray(), 0
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return bytes(head), bytes(tail), total, True
            if not selector.select(timeout=left):
                continue
            chunk = os.read(proc.stdout.fileno(), _CHUNK)
            if not chunk:
                return bytes(head), bytes(tail), total, False
            total += len(chunk)
            if len(head) < cap:
                head += chunk[:cap - len(head)]
            tail += chunk
            del tail[:-cap]


def _kill(proc: subprocess.Popen[bytes], supervised: bool) -> None:
    """Kill the program and everything it started: its supervisor first, which ends the
    command's whole tree (a SIGKILL would orphan what left the group), then the group."""
    if supervised:
        proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=_GRACE)
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
