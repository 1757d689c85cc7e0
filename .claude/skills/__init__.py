"""skillrail skills: the framework (`skills.lib.workflow`) and one folder per skill.

A skill script imports the framework from `lib/` beside it. When that is gone (a framework
link whose package was removed, a copy deleted), say so in one line, with the fix, instead of
letting the import fail with a traceback: this runs before any `skills.lib` import."""

import os as _os
import sys as _sys

if not _os.path.isdir(_os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "lib")):
    _sys.stderr.write(
        f"error: skillrail's framework is missing beside the skills in "
        f"{_os.path.dirname(_os.path.abspath(__file__))} (its lib/ is gone or leads nowhere). "
        "Run `skillrail init --update` (or `skillrail install --force`) in the project, or "
        "`pip install skillrail` again\n")
    raise SystemExit(1)
