"""A new skill's files, rendered from the templates in `skill-template/`: SKILL.md, a two-step
script, README.md, and a test that follows the script to `<complete>`. What is generated
validates and passes its test as it stands, so an author starts from green and replaces the TODO
placeholders. The test lives in the skill's own `tests/` folder: it travels with the skill, and
the project's test command never collects it (pytest skips folders starting with a dot, and a
skill's check that runs the project's tests must not run the skill again)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from string import Template

import yaml

from ..base.errors import UsageError
from ..step.discovery import project_root

# The hyphen keeps the folder from looking like a Python package: setuptools ships it as data.
SKELETON = Path(__file__).with_name("skill-template")
#: Agent Skills names: lowercase letters and digits in hyphen-separated words, at most 64
#: characters; skillrail adds (W015) that they start with a letter, so they read as names.
NAME = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*\Z")
MAX_NAME = 64
MAX_DESCRIPTION = 1024
NAME_FIX = ("Use lowercase letters, digits and single hyphens, starting with a letter, "
            "e.g. 'review-pr'")
#: A TODO placeholder's opening: the marker, and the two words after it on its line.
PLACEHOLDER = re.compile(r"TODO(?:: | - )\S+[ \t]+\S+")
DEFAULT_DESCRIPTION = ("TODO - say what this skill does and when to use it, in the words a user "
                       "would use to ask for it. Invoke the script immediately.")


def placeholders() -> frozenset[str]:
    """The TODO placeholders `skillrail new` writes, each as its opening: `TODO: ` or `TODO - `
    and the two words after it ('TODO: say what'), read from the templates and the default
    description. A file still holding one has text its author has not written yet."""
    texts = [DEFAULT_DESCRIPTION] + [p.read_text(encoding="utf-8")
                                     for p in sorted(SKELETON.glob("*.tmpl"))]
    return frozenset(m[0] for text in texts for m in PLACEHOLDER.finditer(text))


def check_name(name: str) -> None:
    """UsageError unless `name` is a valid skill name."""
    if len(name) > MAX_NAME:
        raise UsageError(f"skill name '{name[:20]}...' is {len(name)} characters long; the "
                         f"limit is {MAX_NAME}", fix="Choose a shorter name")
    if not NAME.match(name):
        raise UsageError(f"skill name '{name}' is not valid", fix=NAME_FIX)
    if not name[0].isalpha():
        raise UsageError(f"skill name '{name}' starts with a digit", fix=NAME_FIX)


def check_description(text: str) -> None:
    """UsageError unless `text` fits SKILL.md's description: one line, 1-1024 characters, no
    angle brackets (agents read the description as plain text beside tags)."""
    if not text.strip():
        raise UsageError("the description is empty", fix="Say what the skill does and when to "
                                                         "use it, or leave --description out")
    if len(text) > MAX_DESCRIPTION:
        raise UsageError(f"the description is {len(text)} characters long; the limit is "
                         f"{MAX_DESCRIPTION}", fix="Shorten it; put details in SKILL.md's body")
    if re.search(r"[<>\x00-\x1f\x7f]", text):
        raise UsageError("the description holds a line break, a control character, '<' or '>'",
                         fix="Write it as one line of plain text")


def skill_files(name: str, root: Path, description: str | None = None) -> dict[Path, str]:
    """The files of skill `name` under the skills root `root`, by path, with their text."""
    check_name(name)
    if description is not None:
        check_description(description)
    project = project_root(root)
    folder = root.resolve() / name
    script = folder / "scripts" / f"{name}.py"
    test = folder / "tests" / f"test_{name.replace('-', '_')}.py"
    values = {"name": name, "title": name.replace("-", " ").capitalize(),
              "description": _yaml_scalar(description or DEFAULT_DESCRIPTION),
              "folder": folder.relative_to(project).as_posix(),
              "script": script.relative_to(project).as_posix(),
              "test": test.relative_to(project).as_posix(),
              "up": str(len(test.relative_to(project).parts) - 1)}
    return {folder / "SKILL.md": _render("SKILL.md", values),
            script: _render("script.py", values),
            folder / "README.md": _render("README.md", values),
            test: _render("test.py", values)}


def create_skill(name: str, root: Path, description: str | None = None) -> list[Path]:
    """Write skill `name`'s files; refuse, before writing anything, when the skill folder or its
    test exists, since an existing skill is never overwritten."""
    if not root.is_dir():
        raise UsageError(f"the skills root {root} is not a folder",
                         fix="Create it first, or pass --root DIR naming an existing folder")
    files = skill_files(name, root, description)
    taken = [p for p in (root.resolve() / name, *files) if p.exists()]
    if taken:
        raise UsageError(f"{taken[0]} already exists", fix="Choose another name, or move the "
                         "existing one away first; skillrail new never overwrites")
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return list(files)


def _render(template: str, values: dict[str, str]) -> str:
    return Template((SKELETON / f"{template}.tmpl").read_text(encoding="utf-8")).substitute(values)


def _yaml_scalar(text: str) -> str:
    """`text` as a YAML value: plain when YAML reads it back unchanged, else double-quoted
    (a JSON string is valid YAML)."""
    try:
        if yaml.safe_load(f"key: {text}") == {"key": text}:
            return text
    except yaml.YAMLError:
        pass  # e.g. ': ' inside, or a leading '[': quote it
    return json.dumps(text, ensure_ascii=False)
