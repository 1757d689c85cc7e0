"""The run ledger: where runs are kept (store: SQLite, or PostgreSQL through pgstore), its schema
and migrations, the copy into a team's ledger, and what the commands and the step path read of
it (listing, entries, sessions, memory, learned, wakeups, workspace). It imports only `graph` and
`base`; the step path above it decides what a run may do, the ledger only remembers."""

from ..base.relocations import forwarded

#: `skills.lib.workflow.ledger` was the store's own module before the ledger became a package.
__getattr__ = forwarded(__name__, f"{__name__}.store")
