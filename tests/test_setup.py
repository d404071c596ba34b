"""The two descriptions of the environment agree, and lib/ is really tracked."""
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_environment_yml_matches_lock():
    lock = {l.strip() for l in (ROOT / "requirements.lock").read_text().splitlines()
            if l.strip() and not l.startswith("#")}
    env = {l.strip()[2:] for l in (ROOT / "environment.yml").read_text().splitlines()
           if l.strip().startswith("- ") and "==" in l}
    assert lock == env
    assert "torch==2.13.0" in lock


def test_lib_is_tracked_by_git():
    out = subprocess.run(["git", "ls-files", "lib/pearl"], cwd=ROOT, capture_output=True, text=True).stdout
    assert "lib/pearl/encode.py" in out, "lib/ is not tracked: check .gitignore"


def test_the_makefile_declares_what_it_has_and_runs_notebooks_through_the_batch_runner():
    """Every .PHONY target has a rule and every named rule is .PHONY; no recipe starts papermill
    itself: notebooks run through harness.batch (provenance, resume, parameters by declaration)."""
    import re

    text = (ROOT / "Makefile").read_text()
    phony = {t for m in re.finditer(r"^\.PHONY:(.*)$", text, re.M) for t in m[1].split()}
    rules = set(re.findall(r"^([\w-]+):(?!=)", text, re.M))
    assert phony - rules == set(), "declared .PHONY without a rule"
    assert rules - phony == set(), "targets that are no file: declare them .PHONY"
    recipes = [ln for ln in text.splitlines() if ln.startswith("\t")]
    assert not [ln for ln in recipes if "papermill" in ln], "run notebooks through harness.batch, not papermill"


def projects() -> tuple[dict, dict]:
    """The science's pyproject.toml (the repository root) and the harness's (lib/harness)."""
    import tomllib

    return tuple(tomllib.loads(p.read_text()) for p in (ROOT / "pyproject.toml", ROOT / "lib" / "harness" / "pyproject.toml"))


def names(reqs) -> set[str]:
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    return {canonicalize_name(Requirement(r).name) for r in reqs}


def test_pip_install_dot_is_the_science_and_the_extra_adds_the_notebook_tools():
    """`pip install .` ships pearl alone and none of the notebooks' tools; `.[notebooks]` adds them; the
    harness is its own distribution, which asks for the science with that extra (make setup installs both)."""
    from _dists import NOTEBOOK_TOOLS

    science, harness = projects()
    deps, extra = names(science["project"]["dependencies"]), names(science["project"]["optional-dependencies"]["notebooks"])
    assert deps & NOTEBOOK_TOOLS == set(), "notebook tools among the science's dependencies"
    assert {"jupyterlab", "papermill", "voila", "mkdocs", "playwright", "pytest"} <= extra
    assert science["tool"]["setuptools"]["packages"]["find"]["include"] == ["pearl", "pearl.*"]
    assert harness["project"]["dependencies"] == [f"{science['project']['name']}[notebooks]"]
    assert harness["tool"]["setuptools"]["packages"]["find"] == {"where": [".."], "include": ["harness", "harness.*"]}
    pinned = names(l.split("==")[0] for l in (ROOT / "requirements.lock").read_text().splitlines() if "==" in l)
    assert (deps | extra) - pinned == set(), "a dependency requirements.lock does not pin: make lock"


def test_make_setup_and_environment_yml_install_the_same_two_distributions():
    import re

    setup = re.search(r"^\$\(STAMP\):.*?(?=^\S)", (ROOT / "Makefile").read_text(), re.M | re.S)[0]
    assert '-c requirements.lock -e ".[notebooks]" -e lib/harness' in setup
    editable = [l.strip() for l in (ROOT / "environment.yml").read_text().splitlines() if l.strip().startswith("- -e ")]
    assert editable == ["- -e .[notebooks]", "- -e lib/harness"]


def third_party_imports(package: Path) -> dict[str, set[str]]:
    """``{top-level module: files importing it}`` for the absolute imports of the package's modules
    outside the standard library and the repository's two packages."""
    import ast
    import sys

    found = {}
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            mods = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) and not node.level and node.module else []
            for top in {m.split(".")[0] for m in mods} - set(sys.stdlib_module_names) - {"pearl", "harness"}:
                found.setdefault(top, set()).add(str(path.relative_to(ROOT)))
    return found


#: what pearl imports from the notebooks extra, and why it may: the similarity explorer is a widget for
#: notebook 06 (Jupyter, Voila), importing ipywidgets and IPython when built, not at import
PEARL_FROM_THE_EXTRA = {"ipywidgets": {"lib/pearl/display/explorer.py"}, "IPython": {"lib/pearl/display/explorer.py"}}


def test_every_module_pearl_imports_comes_with_the_science_and_the_harness_with_its_extra():
    """A module pearl imports is in the science's dependencies or theirs (this venv's metadata), so
    `pip install .` runs it; the harness may use the extra's too."""
    import importlib.metadata as md

    from _dists import closure

    science, _ = projects()
    reqs = science["project"]["dependencies"]
    provides = md.packages_distributions()
    with_science = set(closure(reqs))
    with_extra = set(closure(reqs + science["project"]["optional-dependencies"]["notebooks"]))

    def missing(package: str, have: set[str]) -> dict:
        return {mod: sorted(files) for mod, files in third_party_imports(ROOT / "lib" / package).items()
                if not names(provides.get(mod, [mod])) & have}

    outside = missing("pearl", with_science)
    assert {m: set(f) for m, f in outside.items()} == PEARL_FROM_THE_EXTRA, "pearl imports what `pip install .` lacks"
    assert missing("harness", with_extra) == {}
