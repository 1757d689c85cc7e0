"""doc-sync's reference extraction: what the checker reads from a table of markdown
snippets (links, inline code, code blocks, CLI invocations, docstring parameters)."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

import pytest

from .conftest import SKILLS_ROOT

SCRIPTS = SKILLS_ROOT / "doc-sync" / "scripts"


def _module(name: str) -> ModuleType:
    """A helper of the skill's scripts, imported as the checker imports it: with its folder
    on the path for its own imports (here only while it loads)."""
    spec = importlib.util.spec_from_file_location(f"doc_sync_{name}", SCRIPTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(SCRIPTS))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(SCRIPTS))
    return module


docrefs = _module("_docrefs")
docstrings = _module("_docstrings")


def refs(markdown: str, clis: tuple[str, ...] = ("tool",)) -> list[tuple[str, int, str]]:
    return [(r.kind, r.line, r.text) for r in docrefs.extract(markdown, set(clis))]


class TestExtraction:
    @pytest.mark.parametrize(("markdown", "expected"), [
        ("See [the guide](docs/guide.md#usage).", [("link", 1, "docs/guide.md")]),
        ("![logo](img/logo%20big.png \"Logo\")", [("link", 1, "img/logo big.png")]),
        ("[home](https://example.com) [top](#top) [mail](mailto:a@b.c)", []),
        ("[ref]: ../CONTRIBUTING.md", [("link", 1, "../CONTRIBUTING.md")]),
        ("Edit `config/app.yaml` or `.github/workflows/ci.yml`.",
         [("path", 1, "config/app.yaml"), ("path", 1, ".github/workflows/ci.yml")]),
        ("The entry is `setup.py`; see `src/app/`.",
         [("path", 1, "setup.py"), ("path", 1, "src/app/")]),
        ("Branch `origin/main` in `src/app`.",
         [("maybe-path", 1, "origin/main"), ("maybe-path", 1, "src/app")]),
        ("Not paths: `os.path.join`, `1.2.3`, `a b c`, `~/.config/x.toml`, `/etc/hosts`.", []),
        ("`[link](in/code.md)` is code, not a link.", []),
    ], ids=["link", "image", "external", "reference", "paths", "file-and-folder", "maybe",
            "not-paths", "link-in-code"])
    def test_paths_and_links(self, markdown: str, expected: list[tuple[str, int, str]]) -> None:
        """Relative link targets and path-like inline code are found; URLs, anchors, dotted
        names, versions and absolute paths are not."""
        assert refs(markdown) == expected

    @pytest.mark.parametrize(("markdown", "expected"), [
        ("```bash\n$ python3 tools/gen.py --all\n./run.sh && make build\n```",
         [("command", 2, "python3 tools/gen.py --all"), ("command", 3, "./run.sh"),
          ("command", 3, "make build")]),
        ("```console\n$ tool --fast\nfast output\n```", [("command", 2, "tool --fast")]),
        ("```sh\n# a comment\nFOO=1 sudo tool \\\n  --long x > out.txt 2>&1\n```",
         [("command", 4, "tool --long x")]),
        ("```sh\ngit status\npip install x\n```", []),
        ("```python\nimport tool\n```\n```yaml\nrun: tool --raw\n```", []),
        ("Run `npm run lint`, then `tool serve --port 80`.",
         [("command", 1, "npm run lint"), ("command", 1, "tool serve --port 80")]),
        ("# tool\n\n## Usage\n\n    python3 tool.py --input FILE --output DIR\n\nMore.",
         [("command", 5, "python3 tool.py --input FILE --output DIR")]),
        ("Run:\n\n\ttool --tab\n\n    ./gen.sh\n    src/app.py\n    usage: tool [-h]",
         [("command", 3, "tool --tab"), ("command", 5, "./gen.sh")]),
        ("```\ntool --raw\nraw output\n```\n```\n$ tool --a\ntool --output-line\n```",
         [("command", 2, "tool --raw"), ("command", 6, "tool --a")]),
        ("Intro\n    tool --lazy-continuation\n\n- item\n\n    tool --in-list\n\nDone.",
         []),
    ], ids=["bash", "console-prompts", "continuation", "unknown-tools", "non-shell-blocks",
            "inline", "indented-block", "indented-listing", "untyped-fence", "not-code"])
    def test_commands(self, markdown: str, expected: list[tuple[str, int, str]]) -> None:
        """Shell-block lines and inline code become simple commands (prompts, comments,
        assignments, wrappers and redirections dropped) when the checker can check them. In
        untyped blocks (a bare fence, lines indented four spaces after a blank line) only the
        lines that run a CLI, an interpreter, make, npm or a ./script count, and after a `$ `
        prompt only prompted lines; an indented line continuing a paragraph or a list item is
        no code."""
        assert refs(markdown) == expected

    @pytest.mark.parametrize(("markdown", "expected"), [
        ("Use `tool --fast`.\n\n| `--slow` | slower |\n| `-q, --quiet` | less |",
         [("command", 1, "tool --fast"), ("flag", 3, "--slow"), ("flag", 4, "--quiet")]),
        ("```sh\ntool run\n```\n`--dry-run` tries it.", [("command", 2, "tool run"),
                                                        ("flag", 4, "--dry-run")]),
        ("`tool`\n## Options\n`--kept`", [("flag", 3, "--kept")]),
        ("`tool`, then `docker build .` with `--no-cache`", []),
        ("```sh\ntool x\npip install tool\n```\n`--upgrade`", [("command", 2, "tool x")]),
        ("`--alone` belongs to no CLI.", []),
    ], ids=["table", "after-block", "across-headings", "other-tool-inline",
            "other-tool-block", "no-cli"])
    def test_flags_belong_to_the_cli_of_the_last_command(
            self, markdown: str, expected: list[tuple[str, int, str]]) -> None:
        """A bare `--flag` belongs to the CLI the doc last showed; another tool's command in
        between leaves it to none."""
        assert refs(markdown) == expected

    def test_a_cli_run_through_an_interpreter_is_recognised(self) -> None:
        """A CLI listed by its script path is found behind its interpreter, with its flags."""
        found = docrefs.extract("```sh\npython3 manage.py migrate --plan\n```", {"manage.py"})
        assert docrefs.cli_of(found[0].words, {"manage.py"}) == ("manage.py", "migrate",
                                                                  ["--plan"])

    @pytest.mark.parametrize("entry", ["calc.cli: python3 -m calc.cli",
                                       "calc: python3 -m calc.cli", "python3 -m calc.cli",
                                       "calc: python -m calc.cli"])
    def test_a_cli_is_found_by_its_command_as_well_as_its_name(self, entry: str) -> None:
        """The cold read's case: a package CLI run with python -m, listed in clis.txt by a
        dotted name, a short name or its command alone; the doc's `python3 -m calc.cli` line
        runs it whichever, with its flags (any python counts as python3)."""
        name, _, command = entry.partition(": ")
        clis = {name: command or name}
        found = docrefs.extract("```sh\npython3 -m calc.cli 1 2 --precision 2\n```\n"
                                "Add `--json` for JSON.\n", clis)
        assert [(r.kind, r.line, r.text) for r in found] == [
            ("command", 2, "python3 -m calc.cli 1 2 --precision 2"), ("flag", 4, "--json")]
        assert docrefs.cli_of(found[0].words, clis) == (name, "", ["--precision"])
        assert found[1].words == (name, "")
        assert docrefs.cli_of(("python3", "-m", "calc", "--precision"), clis) is None

    def test_docstrings_yield_their_documented_parameters(self) -> None:
        """reST, Google and NumPy sections are read; each name comes with the real ones."""
        source = ('def f(a, b):\n    """F.\n\n    Args:\n        a (int): x.\n'
                  '        gone: y.\n            more: text.\n\n    Returns:\n        z: w.\n'
                  '    """\n\ndef g(x):\n    """G.\n\n    :param x: one\n    :param int y: two\n'
                  '    """\n\ndef h(p):\n    """H.\n\n    Parameters\n    ----------\n'
                  '    p, q : int\n        both.\n    """\n\ndef _private(z):\n'
                  '    """Args:\n        nope: no."""\n')
        found = [(r.line, r.text, r.words) for r in docstrings.docstring_refs(source)]
        assert found == [(5, "a", ("f", "a", "b")), (6, "gone", ("f", "a", "b")),
                         (16, "x", ("g", "x")), (17, "y", ("g", "x")),
                         (25, "p", ("h", "p")), (25, "q", ("h", "p"))]
