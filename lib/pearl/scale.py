"""The scale a run works at, as a value: :class:`Scale`, passed to the library as ``scale=``.

A notebook's preamble (the harness's first cell) builds one from its ``SMOKE`` parameter
(and, in ``make rehearse``, the batch's request for a rehearsal) and hands it down: trainers,
runners and the studies take ``scale=``, worker processes receive it among their pickled
arguments. What it leaves out: reading the environment (the preamble does that, once) and
where files go (:mod:`pearl.paths`; :meth:`Scale.output_root` only says which root a scale
writes under).

>>> SMOKE.scaled("sweep"), FULL.scaled("sweep"), SMOKE.subset([3, 1, 2])
('smoke', 'sweep', [3, 1])
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from . import paths

#: the training profiles a rehearsal keeps (their tiny sizes: :data:`pearl.training.profiles.REHEARSAL`)
REHEARSED = ("gpu",)


@dataclass(frozen=True)
class Scale:
    """``smoke``: a tiny CPU run (task sizes and profiles become ``"smoke"``, lists are cut, every
    output is labelled SMOKE and never replaces a full-size one). ``rehearsal``: a SMOKE run of
    ``make rehearse`` in which the ``gpu`` profile keeps its name and code paths; it needs ``smoke``."""

    smoke: bool = False
    rehearsal: bool = False

    def __post_init__(self) -> None:
        if self.rehearsal and not self.smoke:
            raise ValueError("a rehearsal is a SMOKE run: Scale(smoke=True, rehearsal=True)")

    def scaled(self, value: str) -> str:
        """``"smoke"`` at SMOKE size, else ``value`` (a task size such as ``"sweep"``, a training
        profile such as ``"cpu"``); in a rehearsal a profile of :data:`REHEARSED` stays itself."""
        if self.rehearsal and value in REHEARSED:
            return value
        return "smoke" if self.smoke else value

    def subset(self, values, n: int = 2) -> list:
        """``values`` whole, or their first ``n`` at SMOKE size (seeds, recipes, backbones: two by
        default, so that a mean ± std and a t-test still run)."""
        return list(values)[:n] if self.smoke else list(values)

    def seeds(self, seeds, n: int = 2) -> list:
        """The training seeds of notebook 03: :meth:`subset`, except that a rehearsal keeps at
        least three, so that Table 1 scores the ``gpu`` profile's three seeds."""
        return list(seeds)[:max(n, 3)] if self.rehearsal else self.subset(seeds, n)

    def smoke_or(self, value, smoke_value):
        """``smoke_value`` at SMOKE size, else ``value`` (a notebook's smaller setting, without an ``if``)."""
        return smoke_value if self.smoke else value

    def rehearsal_or(self, smoke_value, rehearsal_value):
        """``rehearsal_value`` in a rehearsal, else ``smoke_value`` (a SMOKE size that a rehearsal
        replaces by the gpu profile's own: ``smoke_or(MAX_PHRASES, rehearsal_or(300, 0))``)."""
        return rehearsal_value if self.rehearsal else smoke_value

    def workers(self, workers: int) -> int:
        """``workers``, or 1 in a rehearsal: the GPU's process layout (one process owns the device), on a CPU."""
        return 1 if self.rehearsal else workers

    def output_root(self, root: Path | None = None) -> Path:
        """Where this scale writes, given the output root ``root`` (default :func:`pearl.paths.output_root`):
        a SMOKE run never writes into the repository, so the repository itself becomes its
        ``smoke-output/`` (ignored by git); a scratch root stays as it is."""
        root = paths.output_root() if root is None else Path(root)
        return paths.ROOT / paths.SMOKE_ROOT if self.smoke and root == paths.ROOT else root

    @classmethod
    def of_profile(cls, profile: str) -> "Scale":
        """The scale a training profile implies when a caller names none: SMOKE for ``"smoke"``."""
        return SMOKE if profile == "smoke" else FULL


FULL = Scale()
SMOKE = Scale(smoke=True)
REHEARSAL = Scale(smoke=True, rehearsal=True)
