"""`python -m skills.lib.workflow.commands` is `skillrail`."""

import sys

from . import main

sys.exit(main())
