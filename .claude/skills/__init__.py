"""skillrail skills: the framework (`skills.lib.workflow`) and one folder per skill.

A skill script imports the framework from `lib/` beside it. When that cannot work (a Python
older than the framework needs, a teammate's macOS or Ubuntu `python3`; a framework link whose
package was removed, a copy deleted), say so in one line, with the fix, instead of letting the
import fail with a traceback: this runs before any `skills.lib` import, and is written for the
oldest Python 3 a machine may still have."""

import os as _os
import sys as _sys

#: The oldest Python the framework runs on (pyproject.toml's requires-python).
NEEDED = (3, 11)

if _sys.version_info[:2] < NEEDED:
    _sys.stderr.write(
        "error: skillrail's skills need Python {}.{} or newer, and {} is Python {}. Run the "
        "command again with a newer interpreter in place of python3 (e.g. python3.11), or "
        "install one\n".format(NEEDED[0], NEEDED[1], _sys.executable or "python3",
                               ".".join(str(n) for n in _sys.version_info[:3])))
    raise SystemExit(1)

if not _os.path.isdir(_os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "lib")):
    _sys.stderr.write(
        f"error: skillrail's framework is missing beside the skills in "
        f"{_os.path.dirname(_os.path.abspath(__file__))} (its lib/ is gone or leads nowhere). "
        "Run `skillrail init --update` (or `skillrail install --force`) in the project, or "
        "`pip install skillrail` again\n")
    raise SystemExit(1)
