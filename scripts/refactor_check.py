"""A refactor changes no number: the weights each objective trains and the bytes of every table
that the committed results render, printed so that two checkouts' outputs can be compared.

    PYTHONPATH=$PWD/lib .venv/bin/python scripts/refactor_check.py > before.txt
    ... refactor ...
    PYTHONPATH=$PWD/lib .venv/bin/python scripts/refactor_check.py > after.txt; diff before.txt after.txt

Part one trains the tiny test backbone (``tests/_tiny.py``) three steps on every registered
objective and prints the sha256 of the trained model's state dict. Part two copies ``results/``
into a scratch output root, renders there every table the committed results files give without
training (the claims, the budget curve, the two views, the report and the README's headline) and
prints, per file, whether its bytes equal the committed file's.

What it leaves out: tables whose rows come from scores or models that are not committed
(Tables 1-4 need trained folders and the score cache).
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the tables rendered from committed results: (command, the files it writes under results/)
RENDERS = (
    ("claims", ["claims.csv", "claims.md", "claims.tex"]),
    ("budget", ["budget_curve.csv", "budget_curve.md", "budget_curve.tex"]),
    ("views", ["views_mechanism.csv", "views_mechanism.md", "views_mechanism.tex"]),
)


def state_sha(model) -> str:
    digest = hashlib.sha256()
    for key, tensor in sorted(model.state_dict().items()):
        digest.update(key.encode() + b"\0" + tensor.detach().cpu().contiguous().numpy().tobytes())
    return digest.hexdigest()


def trained_weights() -> dict[str, str]:
    """sha256 of the tiny model trained 3 steps on each objective (the settings of
    tests/training/test_objectives.py's end-to-end runs)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from _tiny import CFG, LABELS, tiny_backbone, tiny_corpus, tiny_hard_negatives

    from pearl.corpus.augment import AugmentLexicons
    from pearl.training.methods import inputs_for
    from pearl.training.objectives import OBJECTIVES
    from pearl.training.train import TrainConfig, train

    words = "new york times paris city green tree run fast bank river old man small house".split()
    tables = AugmentLexicons(wordnet={w: [w[::-1]] for w in words if w not in ("york", "paris")}, paraphrases={})
    out = {}
    for name in sorted(OBJECTIVES):
        cfg = TrainConfig.of(name, steps=3, average=1.0, **{**CFG, **OBJECTIVES[name].defaults})
        corpus, augmenter = inputs_for(cfg, tiny_corpus(48), tables)
        result = train(cfg, corpus, tiny_hard_negatives(corpus), augmenter, labels=LABELS, progress=False,
                       backbone=tiny_backbone())
        out[name] = state_sha(result.model)
    return out


CLAIMS = """
from harness.claims import ours, report
results = ours.Results()
report.save(report.build(results), sources=results.sources())
"""


def render_tables(scratch: Path) -> dict[str, str]:
    """Each rendered file: ``same`` or ``DIFFERS`` against results/, or why it could not be rendered."""
    shutil.copytree(ROOT / "results", scratch / "results")
    shutil.copytree(ROOT / "figures", scratch / "figures")
    env = {**os.environ, "PEARL_OUTPUT": str(scratch), "PYTHONPATH": str(ROOT / "lib"), "PYTHONHASHSEED": "0",
           "MPLBACKEND": "Agg"}
    for _, files in RENDERS:
        for f in files:
            (scratch / "results" / f).unlink()
    commands = {"claims": [sys.executable, "-c", CLAIMS],
                "budget": [sys.executable, str(ROOT / "scripts" / "budget_curve.py"), "--summarise"],
                "views": [sys.executable, str(ROOT / "scripts" / "views_mechanism.py"), "--summarise"]}
    out = {}
    for key, files in RENDERS:
        done = subprocess.run(commands[key], cwd=scratch, env=env, capture_output=True, text=True)
        for f in files:
            new = scratch / "results" / f
            if done.returncode or not new.is_file():
                out[f] = f"NOT RENDERED (rc {done.returncode}): {done.stderr.strip().splitlines()[-1:]}"
            else:
                out[f] = "same" if new.read_bytes() == (ROOT / "results" / f).read_bytes() else "DIFFERS"
    from harness.report import build

    for path, text in build.outputs(ROOT).items():
        out[path.relative_to(ROOT).as_posix()] = "same" if path.read_text() == text else "DIFFERS"
    return out


def main() -> int:
    os.environ.setdefault("PYTHONHASHSEED", "0")
    print("== weights (sha256 of the state dict after 3 steps on the tiny backbone)")
    for name, sha in trained_weights().items():
        print(f"{name}: {sha}")
    print("== tables rendered from the committed results, against results/")
    with tempfile.TemporaryDirectory() as tmp:
        for name, verdict in render_tables(Path(tmp)).items():
            print(f"{name}: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
