"""The installed distributions a list of requirements needs (tests/test_setup.py, tests/test_wheel.py)."""
import importlib.metadata as md

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

#: the notebooks extra's tools (distribution names): none may be a dependency of the science
NOTEBOOK_TOOLS = {"jupyterlab", "jupyter", "jupyter-core", "notebook", "ipykernel", "ipywidgets", "papermill", "voila",
                  "jupytext", "mkdocs", "mkdocs-material", "mkdocs-jupyter", "pytest", "playwright"}


def wanted(req: Requirement, extras=("",)) -> bool:
    """Whether ``req`` applies when ``extras`` are asked for ("" alone: none)."""
    return not req.marker or any(req.marker.evaluate({"extra": e}) for e in extras)


def closure(reqs) -> dict[str, md.Distribution]:
    """The distributions of this venv that ``reqs`` (strings or Requirements, those without a marker
    or whose marker holds with no extra) need, with theirs and those of the extras they ask for
    (``requests[socks]``), by canonical name."""
    found, asked = {}, set()
    todo = [r for r in map(Requirement, map(str, reqs)) if wanted(r)]
    while todo:
        req = todo.pop()
        name = canonicalize_name(req.name)
        extras = {""} | {canonicalize_name(e) for e in req.extras}
        if {(name, e) for e in extras} <= asked:
            continue
        asked |= {(name, e) for e in extras}
        found[name] = dist = md.distribution(name)
        todo += [r for r in map(Requirement, dist.requires or []) if wanted(r, extras)]
    return found
