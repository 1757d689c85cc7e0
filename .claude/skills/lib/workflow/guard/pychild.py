"""How the gateway's Python child starts: isolated, with the module path the interpreter's `site`
would give it, but none of the code `site` would run from the workspace.

A step may run on the project's own interpreter (its `.venv/bin/python`), and the gateway's
Python child runs on the same one. `python -E -s` would still import `site`, which runs every
`import` line of the `.pth` files in the virtualenv's site-packages and imports a
`sitecustomize` found there: code any checkout can hold. So the child starts as
`python -I -S pychild.py WORKSPACE FRAMEWORK (- SCRIPT | -m MODULE) ARGS...` (no PYTHON*
variable, no user site, no `site`, no current folder on the path), and this file lets `site`
build the path as usual (the interpreter's site-packages, a virtualenv's, the folders `.pth`
files name) with two changes: a `.pth` file inside the workspace adds its folders but none of
its `import` lines run, and no `sitecustomize` or `usercustomize` is imported. Then it runs the
script (its folder first on the path) or the module (the working folder first), as `python`
would.

An editable install whose `.pth` is an import hook (setuptools' strict mode) is not found
through it; a path `.pth` (setuptools' default for a src layout, hatchling, flit, poetry) is.
So that a skill's script finds skillrail even when the project's virtualenv holds it that way,
FRAMEWORK (the folder holding the `skills` package the gateway runs from) comes last on the
path.

It runs before anything else in the child, so it imports only the standard library, and never
the `skills` package (it is run as a file).
"""

import io
import os
import runpy
import site
import sys

#: What a `.pth` line that runs code starts with (site.py's own test).
_CODE = ("import ", "import\t")


def main(argv: list[str]) -> None:
    workspace, framework, mode, target, *args = argv
    original = site.addpackage

    def addpackage(sitedir: "str | os.PathLike[str]", name: "str | os.PathLike[str]",
                   known_paths: set[str] | None) -> set[str] | None:
        folder, file = os.fspath(sitedir), os.fspath(name)
        if _inside(workspace, folder, os.path.join(folder, file)):
            return _paths_only(folder, file, known_paths)
        return original(sitedir, name, known_paths)

    site.addpackage = addpackage
    site.execsitecustomize = site.execusercustomize = lambda: None
    site.main()
    if framework not in sys.path:
        sys.path.append(framework)
    sys.argv = [target, *args]
    if mode == "-m":
        sys.path.insert(0, os.getcwd())
        runpy.run_module(target, run_name="__main__", alter_sys=True)
    else:
        sys.path.insert(0, os.path.dirname(target))
        runpy.run_path(target, run_name="__main__")


def _inside(workspace: str, *paths: str) -> bool:
    """Whether any of `paths`, as given or resolved, lies in the workspace."""
    root = workspace.rstrip(os.sep) + os.sep
    return any(p == workspace or p.startswith(root) for path in paths
               for p in (os.path.abspath(path), os.path.realpath(path)))


def _paths_only(sitedir: str, name: str, known_paths: set[str] | None) -> set[str] | None:
    """site.addpackage without the code: the folders a `.pth` file names are added."""
    reset = known_paths is None
    known = {os.path.normcase(p) for p in sys.path} if known_paths is None else known_paths
    try:
        with io.open_code(os.path.join(sitedir, name)) as raw:
            lines = raw.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return known_paths
    for line in lines:
        if not line.strip() or line.startswith("#") or line.startswith(_CODE):
            continue
        folder = os.path.abspath(os.path.join(sitedir, line.rstrip()))
        if os.path.normcase(folder) not in known and os.path.exists(folder):
            sys.path.append(folder)
            known.add(os.path.normcase(folder))
    return None if reset else known


if __name__ == "__main__":
    main(sys.argv[1:])
