"""The library's shape: its layers (no import, at module level or inside a function, runs back
up them), no import cycle, no work at import, one place that names models, and the one-way
dependency between the library ``pearl`` and the harness that runs its notebooks (``lib/harness``)."""
import ast
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIB = ROOT / "lib" / "pearl"
#: the harness: it imports pearl, pearl never imports it
HARNESS = "harness"

#: the library's layers, ground first. A room is a top-level module or a subpackage as a whole; a
#: module imports from its own layer or a lower one, never from a higher one. Rooms of one layer
#: lean on each other one way only (test_no_cycle_between_rooms). Every room has a place.
LAYERS = (
    ("ground", {"atomic", "paths", "tabular", "workers", "encode", "guard", "data",
                "provenance", "resources", "checkpoint", "wikipedia", "method_names", "ranges"}),
    # converted or pretrained here from the ground's files, the models without a backbone, and the
    # checks of a model's files (weights) and of what decides its vectors (fingerprint)
    ("backbones", {"backbones"}),
    ("registry", {"models", "cache"}),  # every model by name, and the embedding cache it sits behind
    ("corpus", {"corpus"}),  # training data, ranked and filtered with a backbone
    ("training", {"training"}),
    ("benchmark", {"benchmark"}),  # scores any model: imports nothing of training (test_evaluation_depends_on_...)
    ("claims", {"claims"}),
    ("experiments", {"experiments"}),  # recipes trained and scored; the model cards' scores
    ("views", {"display"}),
)
LAYER = {room: i for i, (_, rooms) in enumerate(LAYERS) for room in rooms}


def _module(path: Path) -> str:
    parts = list(path.relative_to(LIB.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def room(module: str) -> str:
    """``pearl.corpus.rewrite`` -> ``corpus``; ``pearl.models`` -> ``models``; ``pearl`` -> ``""``."""
    return module.split(".")[1] if "." in module else ""


def imports(path: Path, modules) -> list[tuple[str, int]]:
    """``(pearl module, line)`` of every import in the file at ``path``, at any depth (inside
    functions too), relative imports resolved; a name imported from a package that is a module
    (``from . import data``) counts as that module."""
    name = _module(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target == "pearl" or target.startswith("pearl."):
                found += [(f"{target}.{a.name}" if f"{target}.{a.name}" in modules else target, node.lineno)
                          for a in node.names]
        elif isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names if a.name == "pearl" or a.name.startswith("pearl.")]
    return found


def _modules() -> dict[str, Path]:
    return {_module(p): p for p in LIB.rglob("*.py")}


def import_graph() -> dict[str, set[str]]:
    """Module -> the pearl modules it imports (at any depth of the file, relative or absolute)."""
    modules = _modules()
    return {name: {t for t, _ in imports(path, modules) if t in modules and t != name} for name, path in modules.items()}


def back_arrows(edges) -> list[str]:
    """One line for each of ``edges`` (``(importer, line, imported)``) that runs from a lower layer
    to a higher one, or touches a room with no layer."""
    def where(module):
        r = room(module)
        return f"{r} (layer {LAYERS[LAYER[r]][0]})" if r in LAYER else f"{r} (no layer: give it one in LAYERS)"

    bad = []
    for importer, line, imported in dict.fromkeys(edges):  # `from x import a, b` is one arrow
        a, b = room(importer), room(imported)
        if not a or not b or a == b:
            continue
        if a not in LAYER or b not in LAYER or LAYER[b] > LAYER[a]:
            bad.append(f"{importer}:{line} imports {imported}: {where(importer)} -> {where(imported)}")
    return bad


def test_the_layer_checker_names_a_back_arrow():
    assert back_arrows([("pearl.models", 36, "pearl.training.objectives")]) == [
        "pearl.models:36 imports pearl.training.objectives: models (layer registry) -> training (layer training)"]
    assert back_arrows([("pearl.training.train", 5, "pearl.models"), ("pearl.corpus.a", 1, "pearl.corpus.b")]) == []
    assert back_arrows([("pearl.newthing", 3, "pearl.paths")]) == [
        "pearl.newthing:3 imports pearl.paths: newthing (no layer: give it one in LAYERS) -> paths (layer ground)"]


def test_no_import_runs_back_up_the_layers():
    """Every import of every module, function-local ones included: an import inside a function is
    an arrow like any other."""
    modules = _modules()
    edges = [(name, line, t) for name, path in modules.items() for t, line in imports(path, modules) if t in modules]
    bad = back_arrows(edges)
    assert not bad, "imports that run back up the layers:\n" + "\n".join(bad)


def test_every_room_has_one_layer():
    rooms = {room(m) for m in _modules()} - {""}
    assert sum(len(r) for _, r in LAYERS) == len(LAYER), "a room is in two layers"
    assert {"missing": sorted(rooms - set(LAYER)), "gone": sorted(set(LAYER) - rooms)} == {"missing": [], "gone": []}


def test_no_cycle_between_rooms():
    """A subpackage is one room: rooms of one layer (the ground's modules) import each other one way at most."""
    rooms = {}
    for module, deps in import_graph().items():
        rooms.setdefault(room(module), set()).update(room(d) for d in deps if room(d) not in ("", room(module)))
    assert find_cycle(rooms) is None, f"rooms in a loop: {' -> '.join(find_cycle(rooms))}"


def test_scoring_loads_nothing_of_training():
    """Scoring a model needs no training code: importing the benchmark's runner loads no pearl.training module."""
    code = "import sys, pearl.benchmark.scoring; print(sorted(m for m in sys.modules if m.startswith('pearl.training')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(LIB.parent), "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"})
    assert out.stdout.strip() == "[]"


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state, stack = {}, []

    def visit(node):
        state[node] = 1
        stack.append(node)
        for dep in sorted(graph.get(node, ())):
            if state.get(dep) == 1:
                return stack[stack.index(dep):] + [dep]
            if dep not in state and (cycle := visit(dep)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_cycle_finder_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycle_in_pearl():
    graph = import_graph()
    assert len(graph) > 25 and "pearl.models" in graph["pearl.benchmark.table"]
    assert find_cycle(graph) is None, f"import cycle: {' -> '.join(find_cycle(graph))}"


def test_the_low_layer_knows_nothing_above_it():
    graph = import_graph()
    assert graph["pearl.encode"] == set(), "encode is the low layer: no pearl imports"
    assert graph["pearl.paths"] == set()


def test_folders_show_the_stages():
    assert {p.name for p in LIB.iterdir() if p.is_dir() and (p / "__init__.py").is_file()} == \
        {"corpus", "training", "benchmark", "display", "experiments", "claims", "backbones"}


def test_importing_every_module_does_no_work(tmp_path):
    """Importing all of pearl reads no data, writes nothing and seeds nothing."""
    code = (
        "import importlib, pkgutil, random, pearl\n"
        "import sentence_transformers  # third-party: draws from random at import; pearl must not\n"
        "state = random.getstate()\n"
        "for m in pkgutil.walk_packages(pearl.__path__, 'pearl.'): importlib.import_module(m.name)\n"
        "assert random.getstate() == state\n"
    )
    env = {"PEARL_OUTPUT": str(tmp_path / "out"), "PEARL_DATA": str(tmp_path), "PATH": "/usr/bin:/bin",
           "PYTHONPATH": str(LIB.parent)}  # this checkout's pearl, whatever the venv's editable install points to
    subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=tmp_path)
    assert not (tmp_path / "out").exists()


def test_one_place_names_model_folders():
    """The folder-name rule lives in pearl.models alone: nobody else spells 'pearl-...-seed'."""
    pattern = re.compile(r"""f["']pearl-\{|-seed\{""")
    offenders = [str(p.relative_to(ROOT)) for d in ("lib", "notebooks/src", "perf", "scripts")
                 for p in (ROOT / d).rglob("*.py") if pattern.search(p.read_text()) and p.name != "models.py"]
    assert offenders == []


def test_evaluation_depends_on_nothing_of_training():
    """The benchmark scores any model; model cards, which show its scores, get them from pearl.experiments.cards."""
    graph = import_graph()
    assert {m: sorted(d for d in deps if d.startswith("pearl.training")) for m, deps in graph.items()
            if m.startswith("pearl.benchmark") and any(d.startswith("pearl.training") for d in deps)} == {}


def test_no_top_level_folder_shares_its_name_with_a_subpackage():
    """``perf/`` (timing scripts) and ``scripts/`` (studies, GPU runs): one word, one thing."""
    subpackages = {p.name for p in LIB.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    top = {Path(p).parts[0] for p in tracked if len(Path(p).parts) > 1}
    assert top & subpackages == set() and {"perf", "scripts"} <= top


def harness_imports(path: Path) -> list[int]:
    """The lines of the file at ``path`` that import the harness, at any depth."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text())):
        names = [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else \
            [a.name for a in node.names] if isinstance(node, ast.Import) else []
        lines += [node.lineno for n in names if n == HARNESS or n.startswith(HARNESS + ".")]
    return sorted(lines)


def test_the_harness_import_finder_finds_one(tmp_path):
    (tmp_path / "m.py").write_text("import os\ndef f():\n    from harness.record import Run\nimport harness\n")
    assert harness_imports(tmp_path / "m.py") == [3, 4]


def test_no_pearl_module_imports_the_harness():
    """pearl is the science; the harness (preamble, run record, report, site) imports it, never the reverse."""
    offenders = [f"{name}:{line}" for name, path in _modules().items() for line in harness_imports(path)]
    assert offenders == [], "pearl modules that import the harness: " + ", ".join(offenders)


def test_importing_all_of_pearl_in_a_fresh_interpreter_loads_no_harness_module(tmp_path):
    """Every module of pearl imported in a new interpreter: none of them brings in the harness, at
    import or through anything they import."""
    code = (
        "import importlib, pkgutil, sys, pearl\n"
        "names = [m.name for m in pkgutil.walk_packages(pearl.__path__, 'pearl.')]\n"
        "for name in names: importlib.import_module(name)\n"
        f"print(len(names), sorted(m for m in sys.modules if m == {HARNESS!r} or m.startswith({HARNESS + '.'!r})))\n"
    )
    env = {"PEARL_OUTPUT": str(tmp_path / "out"), "PEARL_DATA": str(tmp_path), "PATH": "/usr/bin:/bin",
           "PYTHONPATH": str(LIB.parent), "HF_HUB_OFFLINE": "1"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env, cwd=tmp_path)
    count, loaded = out.stdout.split(" ", 1)
    assert int(count) > 60 and loaded.strip() == "[]"


def test_the_harness_is_importable_beside_pearl():
    """The harness's modules import (their pearl imports resolve); lib/ holds the two packages alone."""
    import importlib
    import pkgutil

    import harness

    assert sorted(p.name for p in LIB.parent.iterdir() if (p / "__init__.py").is_file()) == [HARNESS, "pearl"]
    for m in pkgutil.walk_packages(harness.__path__, HARNESS + "."):
        importlib.import_module(m.name)
