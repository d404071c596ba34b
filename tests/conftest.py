"""Shared fixtures. Tests never touch the network and never write into results/ or figures/:
everything a run writes goes under a scratch PEARL_OUTPUT."""
import ast
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# kernels and servers the tests start import this checkout's lib too (the venv may be shared
# with another checkout, whose editable install points elsewhere)
if os.environ.get("PYTHONPATH", "").split(os.pathsep)[0] != str(ROOT / "lib"):
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "lib"), os.environ.get("PYTHONPATH")]))


@pytest.fixture(scope="session", autouse=True)
def scratch_output(tmp_path_factory):
    """One scratch output root for the whole session (notebooks feed each other through it)."""
    out = tmp_path_factory.mktemp("pearl_output")
    old = os.environ.get("PEARL_OUTPUT")
    os.environ["PEARL_OUTPUT"] = str(out)
    yield out
    if old is None:
        os.environ.pop("PEARL_OUTPUT", None)
    else:
        os.environ["PEARL_OUTPUT"] = old


@pytest.fixture(autouse=True)
def no_rehearsal(monkeypatch, scratch_output):
    """Each test starts without a rehearsal request, and one whose preamble moves the output root
    (harness.preamble.start at SMOKE size) leaves no trace for the next."""
    monkeypatch.delenv("PEARL_REHEARSAL", raising=False)
    monkeypatch.setenv("PEARL_OUTPUT", os.environ.get("PEARL_OUTPUT", str(scratch_output)))  # restored at teardown


@pytest.fixture(scope="session")
def minilm():
    from pearl.models import load_model

    return load_model("minilm", device="cpu", cache=False)  # the raw encoder; tests/test_cache.py covers the cache


def have_wordnet() -> bool:
    return Path("/usr/share/wordnet/data.noun").is_file()


needs_wordnet = pytest.mark.skipif(not have_wordnet(), reason="WordNet missing: apt-get install wordnet-base")


def notebook_parameters(src: Path) -> dict:
    """The literal defaults of the parameters cell (``# %% tags=["parameters"]``) of a notebook source."""
    text = src.read_text(encoding="utf8").split('# %% tags=["parameters"]\n', 1)[1].split("# %%", 1)[0]
    return {node.target.id: ast.literal_eval(node.value) for node in ast.parse(text).body if isinstance(node, ast.AnnAssign)}
