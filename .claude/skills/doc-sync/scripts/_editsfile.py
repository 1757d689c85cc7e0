"""Doc-sync's check of the edits file (resources/edits-format.md) before the review: every
edit's old text occurs exactly once in its doc, edits of one doc do not overlap, and every
finding of the drift list has an edit or an entry in "left". It lists every problem, so one
fix pass can mend them all."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

import re

EDIT_KEYS = ("id", "finding", "doc", "location", "old", "new", "evidence")


def problems(path: str, drift_path: str) -> list[str]:
    """What is wrong with the edits file at `path`, checked against the repository (the
    current folder) and the drift list at `drift_path`; empty when nothing is."""
    import json  # only here: every step of the run imports this module, one step checks

    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except OSError:
        return [f"there is no file at {path}"]
    except ValueError as exc:
        return [f"it is not valid JSON ({exc})"]
    if not isinstance(data, dict) or set(data) - {"edits", "left"} or not all(
            isinstance(data.get(k, []), list) for k in ("edits", "left")) or "edits" not in data:
        return ['it must be one object with a list "edits" and, optionally, a list "left"']
    found: list[str] = []
    taken: dict[str, list[tuple[int, int]]] = {}  # doc -> the spans of its edits' old texts
    seen: set[str] = set()
    for n, edit in enumerate(data["edits"], 1):
        if not isinstance(edit, dict) or set(edit) != set(EDIT_KEYS) \
                or not all(isinstance(v, str) for v in edit.values()):
            found.append(f"edit {n} must have exactly the text fields {', '.join(EDIT_KEYS)}")
            continue
        found += [f"edit {n}: its id {edit['id']} is used twice"] if edit["id"] in seen else []
        found += [f"edit {edit['id'] or n}: {p}" for p in _edit_problems(edit, taken)]
        seen.add(edit["id"])
    left = data.get("left", [])
    if not all(isinstance(x, dict) and set(x) == {"finding", "reason"} for x in left):
        found.append('each entry of "left" must have exactly the fields finding and reason')
        left = []
    covered = {str(x.get("finding")) for x in [*data["edits"], *left] if isinstance(x, dict)}
    listed = re.findall(r"^\W*(D\d+)\b", _read(drift_path), re.MULTILINE)
    missing = [d for d in dict.fromkeys(listed) if d not in covered]
    if missing:
        found.append(f"the findings {', '.join(missing)} have neither an edit nor an entry "
                     'in "left"')
    return found if data["edits"] or left else ["it holds no edit and no entry in \"left\""]


def _read(path: str) -> str:
    if not os.path.isfile(path):
        return ""
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def _edit_problems(edit: dict[str, str], taken: dict[str, list[tuple[int, int]]]) -> list[str]:
    root = os.path.realpath(os.getcwd())
    doc = os.path.realpath(os.path.join(root, edit["doc"]))
    if not doc.startswith(root + os.sep) or not os.path.isfile(doc):
        return [f"its doc {edit['doc']} is not a file in the repository"]
    with open(doc, encoding="utf-8", errors="replace") as handle:
        text = handle.read()
    found = []
    count = text.count(edit["old"]) if edit["old"] else 0
    if count != 1:
        found.append(f"its old text occurs {count} times in {edit['doc']}; it must occur "
                     "exactly once, character for character (quote more of the line)")
    elif edit["old"] == edit["new"]:
        found.append("its new text is the same as its old text")
    else:
        start = text.index(edit["old"])
        span = (start, start + len(edit["old"]))
        if any(a < span[1] and span[0] < b for a, b in taken.get(doc, [])):
            found.append("its old text overlaps another edit's in the same doc; merge them")
        taken.setdefault(doc, []).append(span)
    if not edit["evidence"].strip() or not edit["id"].strip():
        found.append("it needs an id and evidence")
    return found
