"""How a skill script makes the `skills` package importable, at any depth.

A step script runs as `python3 .claude/skills/<skill>/scripts/<name>.py`, from any working
directory, in a bare checkout or a project where skillrail is installed. Python puts only the
script's own folder on `sys.path`, so before its first `from skills...` import every script adds
the folder that holds `skills/`, with these two lines (identical in every script; a test checks
it):

    import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
    sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

The split is on the last `/skills/` of the script's real path, so the same lines work at either
depth the skills use, `scripts/<name>.py` and `scripts/<group>/<name>.py` (sub-agent scripts
such as planner's `scripts/qr/`), and through a symlinked skill folder (`realpath` resolves it
first). The original system counted parent folders instead (`parents[2]` at one depth,
`parents[3]` at the other), which broke whenever a script moved.

This module cannot do the bootstrap for a script (importing it already needs the path); it
documents the pattern, and `skills_parent` computes the same folder for tools and tests.
"""

import os


def skills_parent(script: str) -> str:
    """The folder the bootstrap lines put on `sys.path` for `script`: the one holding the
    `skills` package, found from the script's real path."""
    return os.path.realpath(script).rsplit(f"{os.sep}skills{os.sep}", 1)[0]
