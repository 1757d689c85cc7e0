"""The protocol layer: the XML step protocol's constants and schema, the views of a step, and
the serializers that draw them (XML, text, JSON). It imports `graph` and `base`."""

# `skills.lib.workflow.protocol` was the module of the constants: its names stay here.
from .constants import MANDATE, MEMORY_NOTE, PROTOCOL_VERSION, SCHEMA_PATH

__all__ = ["MANDATE", "MEMORY_NOTE", "PROTOCOL_VERSION", "SCHEMA_PATH"]
