"""skillrail's version: the package's (pyproject.toml reads it from here), and the one a copy of
the framework or of a skill in a project carries in its install marker, so `skillrail doctor`
can say when a project's copies are older than the installed package."""

VERSION = "0.2.0"
