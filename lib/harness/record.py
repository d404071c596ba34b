"""A notebook run's record: its parameters in, its metrics, timings and provenance out.

Each notebook starts with ``run = start("04_benchmark", globals(), __annotations__)``
(:func:`harness.preamble.start`: a :class:`Run` holding the checked parameters and the
:class:`harness.scale.Scale`) and ends with ``run.save(metrics={...})``, which writes
``results/04_benchmark.json`` by way of :func:`harness.outputs.write_output`: a SMOKE record never
replaces a full-size one. A metric that is undefined is saved as ``null`` with its reason under
``"undefined"``.

What it leaves out: the provenance pieces (git state, versions, hardware) and the strict JSON
writer, which are :mod:`pearl.provenance`'s.
"""
from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from pearl import paths
from pearl.atomic import remove_debris
from pearl.provenance import dumps_strict, finite, git_state, hardware, versions

from .outputs import refuse_full, write_output
from .scale import FULL, Scale


def writer(path: str | Path) -> str:
    """What writes the record at ``path``, as a damaged file's fix names it
    (:func:`pearl.provenance.read_record`'s ``writer``): a notebook's record (``NN_name.json``) its
    notebook, any other file the notebook or script that writes it.

    >>> writer("results/04_benchmark.json")
    'notebook notebooks/04_benchmark.ipynb (make reproduce, or papermill on that notebook)'
    >>> writer("results/claims.json")
    'the notebook or script that writes it'
    """
    stem = Path(path).stem
    return (f"notebook notebooks/{stem}.ipynb (make reproduce, or papermill on that notebook)"
            if stem[:2].isdigit() and stem[2:3] == "_" else "the notebook or script that writes it")


@dataclass
class Run:
    """One notebook run: parameters in, metrics and provenance out, at the scale ``scale``."""

    name: str
    params: dict = field(default_factory=dict)
    started: float = field(default_factory=time.time)
    timings: dict = field(default_factory=dict)
    scale: Scale = FULL

    def __post_init__(self) -> None:
        for folder in (paths.results_dir(), paths.figures_dir()):  # temp files of writes killed in an earlier run
            remove_debris(folder)

    def resolve(self, **values):
        """Record each resolved value in the parameters (``PROFILE="tiny"`` in place of the
        given ``"cpu"``); return the value, or a tuple of them in order when several."""
        self.params.update(values)
        return next(iter(values.values())) if len(values) == 1 else tuple(values.values())

    def time(self, key: str, seconds: float) -> None:
        self.timings[key] = round(float(seconds), 3)

    def time_all(self, seconds: dict) -> None:  # times measured elsewhere, e.g. in worker processes
        for key, value in seconds.items():
            self.time(key, value)

    @contextmanager
    def timer(self, key: str):
        """Time the block into ``timings_s[key]``: ``with run.timer("train/seed0"): ...``."""
        start = time.perf_counter()
        try:
            yield
        finally:
            self.time(key, time.perf_counter() - start)

    def save(self, metrics: dict, undefined: dict | None = None, also: str | None = None, own: bool = True,
             **extra) -> Path:
        """Write ``results/<name>.json`` (and the same record to ``results/<also>.json``: a
        notebook whose outputs are named by a parameter; ``own=False`` writes only that one, for a
        run outside ``make reproduce`` that must not replace the batch's record); returns the first
        written. A non-finite number anywhere in the record becomes ``null`` and is listed under
        ``"undefined"`` (key: its path, e.g. ``"f1"`` for ``metrics["f1"]`` or ``"parameters/x"``)
        with the reason from ``undefined`` (metric key -> reason) or a generic one."""
        smoke = {"SMOKE": "smoke-size run on tiny subsets: these numbers are not results"} \
            if self.params.get("SMOKE") or self.scale.smoke else {}
        record = {**smoke, "notebook": self.name, "parameters": self.params, "metrics": metrics, **extra,
                  "timings_s": self.timings, "wall_time_s": round(time.time() - self.started, 2),
                  "provenance": {**git_state(), "versions": versions(), "hardware": hardware(),
                                 "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z")}}
        targets = [paths.results_dir(f"{n}.json") for n in ([self.name] if own else []) + ([also] if also else [])]
        if not targets:
            raise ValueError("own=False writes only results/<also>.json: pass also=")
        for path in targets:  # all of them before any is written
            refuse_full(path, smoke=bool(smoke))
        changed = record["provenance"]["changed_by_run"]
        if changed is not None:  # the records about to be written change too
            mine = {str(t.relative_to(paths.ROOT)) for t in targets if t.is_relative_to(paths.ROOT)}
            record["provenance"]["changed_by_run"] = sorted(set(changed) | mine)
        found: dict = {}
        record = {k: finite(v, "" if k == "metrics" else k, found) for k, v in record.items()}
        if found:
            reasons = undefined or {}
            record["undefined"] = {key: reasons.get(key, f"{value} (not a finite number)") for key, value in found.items()}
        return [write_output(t, dumps_strict(record, indent=2) + "\n", smoke=bool(smoke)) for t in targets][0]
