"""The command Claude Code runs for skillrail's hooks:

    /abs/python3 /abs/.claude/skills/lib/workflow/hooks/entry.py PreToolUse < payload.json

(or `skillrail-hook PreToolUse`; Codex runs the same; Gemini CLI runs `... BeforeTool gemini`,
its own event names and the client's name).

It answers on stdout with the documented JSON or nothing, and always exits 0. A hook that crashes
lets the action through anyway, but silently; here every failure (a malformed payload, a missing,
busy or damaged ledger, a broken skill, even a failed import) is one note on stderr and the
action goes through. Imports happen inside `main`, after the path set-up, so they are guarded too.
Under a Python too old for the framework (a teammate's `python3`), the hook says so to the user
(Claude Code's `systemMessage`), not only on stderr: the run is not enforced there. This file is
written for the oldest Python 3 a machine may still have.
"""

import os
import sys


def main() -> int:
    here = os.path.dirname(os.path.realpath(__file__))
    # Run as a script, this folder is sys.path[0]: its modules must not shadow anything.
    sys.path[:] = [p for p in sys.path if os.path.realpath(p or ".") != here]
    # The `.claude` folder (or site-packages) holding the `skills` package, as in every script.
    sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])
    # The framework cannot load under an older Python: say so where the user sees it.
    if sys.version_info[:2] < (3, 11):  # noqa: UP036 - a teammate's python3 may be older
        import json  # here: the common PostToolUse below returns before importing anything

        sys.stdout.write(json.dumps({"systemMessage": (
            "skillrail's hook did nothing: it needs Python 3.11 or newer, and {} is Python "
            "{}, so this action was not checked against the running skill. Install Python "
            "3.11 or newer and run `skillrail hooks install` with it".format(
                sys.executable or "python3",
                ".".join(str(n) for n in sys.version_info[:3])))}) + "\n")
        return 0
    try:
        event, raw = (sys.argv[1] if len(sys.argv) > 1 else ""), sys.stdin.buffer.read()
        client = sys.argv[2] if len(sys.argv) > 2 else "claude"  # or gemini: its own events
        if event in ("PostToolUse", "AfterTool") and b"<step " not in raw \
                and b"AskUserQuestion" not in raw:
            return 0  # most Bash calls: no step printed, and no import paid for it
        from skills.lib.workflow.hooks.decisions import respond

        out = respond(event, raw, client)
        if out:
            sys.stdout.write(out + "\n")
            sys.stdout.flush()
    except BaseException as exc:  # noqa: BLE001 - a hook must never fail the agent's action
        try:  # noqa: SIM105 - contextlib would cost every plain PostToolUse its import
            sys.stderr.write(f"skillrail hook: internal error, letting the action through: "
                             f"{type(exc).__name__}: {exc}\n")
        except Exception:  # noqa: BLE001 - nothing is left to report to
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
