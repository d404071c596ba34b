"""Docs that cannot drift: every ``pearl.…`` or ``harness.…`` dotted name written in the library's docstrings and
comments, the README, the notebooks' sources, the timing and study scripts (``perf/``,
``scripts/``) resolves to a module or an attribute that exists."""
import fnmatch
import importlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOTTED = re.compile(r"(?<![\w./-])(?:pearl|harness)(?:\.[A-Za-z_]\w*)+")
#: the two packages under lib/: the library and the harness that runs its notebooks
PACKAGES = ("pearl", "harness")
#: dotted names that are not Python names: the file every trained folder holds
NOT_PYTHON = {"pearl.json"}


def sources() -> list[Path]:
    files = [ROOT / name for name in ("README.md", "CONTRIBUTING.md", "STANDINS.md", "RELIABILITY.md", "results/README.md")]
    files += [ROOT / "lib" / "harness" / "report" / "template.md"]
    files += [p for package in PACKAGES for p in sorted((ROOT / "lib" / package).rglob("*.py"))]
    for folder in ("notebooks/src", "perf", "scripts"):
        files += sorted((ROOT / folder).rglob("*.py"))
    return files


def resolves(name: str) -> bool:
    parts = name.split(".")
    for i in range(len(parts), 0, -1):  # the longest importable prefix, then attributes
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def test_every_dotted_pearl_name_resolves():
    bad = []
    for path in sources():
        for line_no, line in enumerate(path.read_text(encoding="utf8").splitlines(), 1):
            for name in DOTTED.findall(line):
                name = name.rstrip(".")
                if name not in NOT_PYTHON and not resolves(name):
                    bad.append(f"{path.relative_to(ROOT)}:{line_no}: {name}")
    assert not bad, "names that moved or never existed:\n" + "\n".join(bad)


def test_the_checker_catches_a_moved_name():
    assert resolves("pearl.benchmark.probe.probe_scores") and resolves("pearl.models")
    assert not resolves("pearl.train.train") and not resolves("pearl.benchmark.probe.no_such_function")


def _readme_rows(first_cell: str, doc: str = "README.md") -> dict[str, str]:
    """Table rows of ``doc`` keyed by their first cell (backticks stripped), for rows whose first cell starts so."""
    rows = {}
    for line in (ROOT / doc).read_text(encoding="utf8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| `") and cells[0].strip("`").startswith(first_cell):
            rows[cells[0].strip("`")] = line
    return rows


def test_the_contributing_layout_names_every_module():
    """Each package folder's row of CONTRIBUTING.md's layout table names every module in it (the
    README's short layout has one line per package, and must have one for each)."""
    short = _readme_rows("lib/")
    assert sorted(short) == sorted(f"{p.parent.relative_to(ROOT).as_posix()}/" for package in PACKAGES
                                   for p in (ROOT / "lib" / package).rglob("__init__.py"))
    rows = _readme_rows("lib/", "CONTRIBUTING.md")
    missing = []
    for folder in sorted({p.parent for package in PACKAGES for p in (ROOT / "lib" / package).rglob("*.py")}):
        key = folder.relative_to(ROOT).as_posix() + "/"
        modules = [p.stem for p in folder.glob("*.py") if p.stem != "__init__"]
        if key not in rows:
            missing.append(f"no layout row for {key}")
            continue
        missing += [f"{key}{m}.py" for m in modules if f"`{m}`" not in rows[key]]
    assert not missing, "CONTRIBUTING.md's layout table does not name: " + ", ".join(missing)


def test_the_readme_notebook_table_lists_the_batch_order():
    order = [line.strip().removesuffix(".ipynb") for line in (ROOT / "notebooks" / "ORDER").read_text().split() if line.strip()]
    rows = [name for name in _readme_rows("") if name[:2].isdigit()]
    assert rows == order, f"README notebook table {rows} != notebooks/ORDER {order}"


def _expand(pattern: str) -> list[str]:
    """``table1.{csv,md}`` -> ``table1.csv``, ``table1.md``; ``NN`` -> two digits (results/README.md's notation)."""
    m = re.search(r"\{([^}]*)\}", pattern)
    if m:
        return [x for alt in m[1].split(",") for x in _expand(pattern[:m.start()] + alt + pattern[m.end():])]
    return [pattern.replace("NN", "[0-9][0-9]")]


def results_readme_entries(text: str) -> list[str]:
    """The patterns results/README.md's list items name: the backticked names before an item's colon."""
    out = []
    for line in text.splitlines():
        m = re.match(r"- ((?:`[^`]+`(?:, )?)+):", line)
        if m:
            out += [x for name in re.findall(r"`([^`]+)`", m[1]) for x in _expand(name)]
    return out


def uncovered(names: list[str], patterns: list[str]) -> list[str]:
    """Entries of a folder (folders with a trailing ``/``) that no pattern matches."""
    return [n for n in names if not any(fnmatch.fnmatchcase(n, p) for p in patterns)]


def test_results_readme_says_what_every_entry_of_results_is():
    """results/README.md names every file or group at the top of results/ (and every file of
    results/perf/), and no list item names a pattern that matches nothing (git-ignored ones aside)."""
    text = (ROOT / "results" / "README.md").read_text(encoding="utf8")
    entries = results_readme_entries(text)
    top = [p.name + ("/" if p.is_dir() else "") for p in (ROOT / "results").iterdir() if not p.name.startswith(".")]
    assert uncovered(top, entries) == [], "add these to results/README.md: what each is and what writes it"
    perf = [p.name for p in (ROOT / "results" / "perf").iterdir()]
    named = [x for name in re.findall(r"`([^`]+)`", text) for x in _expand(name)]
    assert uncovered(perf, named) == [], "name these in results/README.md's perf/ item"
    ignored = results_readme_entries("\n".join(ln for ln in text.splitlines() if "git-ignored" in ln))
    gone = [p for p in entries if p not in ignored and not any(fnmatch.fnmatchcase(n, p) for n in top)]
    assert gone == [], "results/README.md names entries that are gone"


def test_the_results_readme_check_catches_a_new_file():
    entries = results_readme_entries("- `NN_*.json`, `table1.{csv,md}`: records\n- `perf/`: timings\n")
    assert uncovered(["04_x.json", "table1.md", "perf/"], entries) == []
    assert uncovered(["table1.tex", "new.json", "perf"], entries) == ["table1.tex", "new.json", "perf"]
