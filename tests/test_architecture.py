"""The library's shape: no import cycle between its modules, small modules, no work at import,
and one place that names models."""
import ast
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIB = ROOT / "lib" / "pearl"
MAX_LINES = 300  # "about 300 lines at most": a module past this is split


def _module(path: Path) -> str:
    parts = list(path.relative_to(LIB.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Module -> the pearl modules it imports (at any depth of the file, relative or absolute)."""
    modules = {_module(p): p for p in LIB.rglob("*.py")}
    graph = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        deps = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                if not target.startswith("pearl"):
                    continue
                for alias in node.names:  # `from . import data` names a module
                    deps.add(f"{target}.{alias.name}" if f"{target}.{alias.name}" in modules else target)
            elif isinstance(node, ast.Import):
                deps |= {a.name for a in node.names if a.name.startswith("pearl")}
        graph[name] = {d for d in deps if d in modules and d != name}
    return graph


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


def test_modules_are_small():
    sizes = {_module(p): len(p.read_text().splitlines()) for p in LIB.rglob("*.py")}
    assert {m: n for m, n in sizes.items() if n > MAX_LINES} == {}


def test_folders_show_the_stages():
    assert {p.name for p in LIB.iterdir() if p.is_dir() and (p / "__init__.py").is_file()} == \
        {"corpus", "training", "benchmark", "display", "experiments", "claims", "report"}


def test_importing_every_module_does_no_work(tmp_path):
    """Importing all of pearl reads no data, writes nothing and seeds nothing."""
    code = (
        "import importlib, pkgutil, random, pearl\n"
        "import sentence_transformers  # third-party: draws from random at import; pearl must not\n"
        "state = random.getstate()\n"
        "for m in pkgutil.walk_packages(pearl.__path__, 'pearl.'): importlib.import_module(m.name)\n"
        "assert random.getstate() == state\n"
    )
    env = {"PEARL_OUTPUT": str(tmp_path / "out"), "PEARL_DATA": str(tmp_path), "PATH": "/usr/bin:/bin"}
    subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=tmp_path)
    assert not (tmp_path / "out").exists()


def test_one_place_names_model_folders():
    """The folder-name rule lives in pearl.models alone: nobody else spells 'pearl-...-seed'."""
    pattern = re.compile(r"""f["']pearl-\{|-seed\{""")
    offenders = [str(p.relative_to(ROOT)) for d in ("lib", "notebooks/src", "perf", "scripts")
                 for p in (ROOT / d).rglob("*.py") if pattern.search(p.read_text()) and p.name != "models.py"]
    assert offenders == []


def test_evaluation_depends_on_nothing_of_training():
    """The benchmark scores any model; model cards, which show its scores, are written by training's export."""
    graph = import_graph()
    assert {m: sorted(d for d in deps if d.startswith("pearl.training")) for m, deps in graph.items()
            if m.startswith("pearl.benchmark") and any(d.startswith("pearl.training") for d in deps)} == {}


def test_no_top_level_folder_shares_its_name_with_a_subpackage():
    """``perf/`` (timing scripts) and ``scripts/`` (studies, GPU runs): one word, one thing."""
    subpackages = {p.name for p in LIB.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    top = {Path(p).parts[0] for p in tracked if len(Path(p).parts) > 1}
    assert top & subpackages == set() and {"perf", "scripts"} <= top
