"""Provenance for every result: package versions, git SHA, hardware, wall time, parameters.

Each notebook ends with::

    run = Run("04_benchmark", params)          # at the top, starts the clock
    ...
    run.save(metrics={...})                     # writes results/04_benchmark.json

and tables go through :func:`save_table`, which writes ``results/<name>.csv`` and ``.md``.
"""
from __future__ import annotations

import json
import os
import platform
import subprocess
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from . import paths

PACKAGES = (
    "torch", "transformers", "sentence-transformers", "numpy", "pandas", "scikit-learn",
    "faiss-cpu", "spacy", "nltk", "rapidfuzz", "umap-learn", "matplotlib", "papermill",
)


def git_sha() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=paths.ROOT, capture_output=True, text=True, timeout=10)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=paths.ROOT,
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return out.stdout.strip() + ("-dirty" if dirty else "") if out.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


def hardware() -> dict:
    info = {"platform": platform.platform(), "python": platform.python_version(),
            "cpu_count": os.cpu_count(), "processor": platform.processor() or platform.machine()}
    try:
        import torch

        info["torch_threads"] = torch.get_num_threads()
        if torch.cuda.is_available():
            info["gpu"] = torch.cuda.get_device_name(0)
    except ImportError:
        pass
    return info


def versions(packages=PACKAGES) -> dict:
    out = {}
    for name in packages:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


@dataclass
class Run:
    """One notebook run: parameters in, metrics and provenance out."""

    name: str
    params: dict = field(default_factory=dict)
    started: float = field(default_factory=time.time)
    timings: dict = field(default_factory=dict)

    def time(self, key: str, seconds: float) -> None:
        self.timings[key] = round(float(seconds), 3)

    def save(self, metrics: dict, **extra) -> Path:
        record = {
            "notebook": self.name,
            "parameters": self.params,
            "metrics": metrics,
            **extra,
            "timings_s": self.timings,
            "wall_time_s": round(time.time() - self.started, 2),
            "provenance": {"git_sha": git_sha(), "versions": versions(), "hardware": hardware(),
                           "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z")},
        }
        path = paths.results_dir(f"{self.name}.json")
        path.write_text(json.dumps(record, indent=2, default=_jsonable) + "\n")
        return path


def _jsonable(obj):
    if hasattr(obj, "item"):
        return obj.item()
    if isinstance(obj, Path):
        return str(obj)
    if isinstance(obj, (set, tuple)):
        return list(obj)
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def save_table(df, name: str, markdown: str | None = None) -> tuple[Path, Path]:
    """Write ``results/<name>.csv`` and ``results/<name>.md`` (``markdown`` or the frame as Markdown)."""
    csv = paths.results_dir(f"{name}.csv")
    md = paths.results_dir(f"{name}.md")
    df.to_csv(csv, index=False)
    md.write_text((markdown if markdown is not None else df.to_markdown(index=False)) + "\n")
    return csv, md
