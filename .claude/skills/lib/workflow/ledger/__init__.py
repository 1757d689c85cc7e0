"""The run ledger: where runs are kept (store: SQLite, or PostgreSQL through pgstore), its schema
and migrations, the copy into a team's ledger, and what the commands and the step path read of
it (listing, entries, sessions, memory, learned, wakeups, workspace). It imports only `graph` and
`base`; the step path above it decides what a run may do, the ledger only remembers."""

from typing import Any


def __getattr__(name: str) -> Any:
    """`skills.lib.workflow.ledger` was the store's own module before the ledger became a
    package: its names still answer here until the next release, with a DeprecationWarning."""
    import importlib
    import warnings

    store = importlib.import_module(f"{__name__}.store")
    if name.startswith("__") or not hasattr(store, name):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(f"{__name__}.{name} moved to {__name__}.store.{name}; import it from there "
                  "(the old path goes away in the next release)", DeprecationWarning,
                  stacklevel=2)
    return getattr(store, name)
