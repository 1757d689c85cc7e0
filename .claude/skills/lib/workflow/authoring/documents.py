"""JSON documents that agents write and scripts read (review reports, plans): loaded and
validated with a pydantic model, every problem turned into one line that names the field.
pydantic is imported only here, by the steps that read a document."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import BaseModel


def read_document(path: str, model: Callable[[], type[BaseModel]], what: str,
                  shown: int = 8, plain: Callable[[Any], Any] | None = None) -> tuple[Any, str]:
    """(the validated document, '') or (None, what is wrong with the file, field by field).
    `model` builds the schema: it is called, and pydantic imported, only once the file has
    been read as JSON, so a step that finds no document (or a broken one) never loads them.
    `plain`, when given, is a standard-library check that returns the document when the model
    would certainly accept the data as it is, else None; only then does the model run."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except FileNotFoundError:
        return None, f"there is no {what} at {path}"
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return None, f"{path} is not a readable JSON file ({exc})"
    document = plain(data) if plain is not None else None
    if document is not None:
        return document, ""
    from pydantic import ValidationError

    try:
        return model().model_validate(data), ""
    except ValidationError as exc:
        problems = [f"{'.'.join(str(p) for p in e['loc']) or 'the top level'}: {e['msg']}"
                    for e in exc.errors()[:shown]]
        return None, f"{path} does not follow the {what} format: " + "; ".join(problems)
