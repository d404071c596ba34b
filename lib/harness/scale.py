"""The scale a notebook run works at, as a value: :class:`Scale` (``run.scale``), and the one place
that maps it onto pearl's sizes.

A notebook's preamble (:func:`harness.preamble.start`) builds one from its ``SMOKE`` parameter
(and, in ``make rehearse``, the batch's request for a rehearsal). pearl knows nothing of SMOKE:
its functions take explicit sizes (a number, or the named size ``"tiny"``), a ``guard`` and a
``root``. :meth:`Scale.scaled` turns a SMOKE run's task size or training profile into pearl's
``"tiny"`` (:data:`TINY`), :meth:`Scale.smoke_or` picks a notebook's smaller number,
:attr:`Scale.guard` is the guard pearl's writers call (:class:`harness.outputs.ScaleGuard`) and
:meth:`Scale.output_root` the root a run writes under. What it leaves out: reading the
environment (the preamble does that, once).

>>> SMOKE.scaled("sweep"), FULL.scaled("sweep"), SMOKE.subset([3, 1, 2])
('tiny', 'sweep', [3, 1])
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pearl import paths

from .outputs import SMOKE_ROOT, TINY_PROFILE, ScaleGuard

#: pearl's named size of a SMOKE run: its task size (``pearl.benchmark.tasks.SIZES``) and training
#: profile (``pearl.training.profiles.PROFILES``)
TINY = TINY_PROFILE
#: the training profiles a rehearsal keeps (at their small size: :data:`pearl.training.profiles.SMALL`)
REHEARSED = ("gpu",)
#: pearl's profile size of a rehearsal (:data:`pearl.training.profiles.PROFILE_SIZES`), and of any other run
REHEARSAL_SIZE, FULL_SIZE = "small", "full"


@dataclass(frozen=True)
class Scale:
    """``smoke``: a tiny CPU run (task sizes and profiles become pearl's ``"tiny"``, lists are cut,
    every output is labelled SMOKE and never replaces a full-size one). ``rehearsal``: a SMOKE run of
    ``make rehearse`` in which the ``gpu`` profile keeps its name and code paths; it needs ``smoke``."""

    smoke: bool = False
    rehearsal: bool = False

    def __post_init__(self) -> None:
        if self.rehearsal and not self.smoke:
            raise ValueError("a rehearsal is a SMOKE run: Scale(smoke=True, rehearsal=True)")

    def scaled(self, value: str) -> str:
        """pearl's ``"tiny"`` at SMOKE size, else ``value`` (a task size such as ``"sweep"``, a training
        profile such as ``"cpu"``); in a rehearsal a profile of :data:`REHEARSED` stays itself."""
        if self.rehearsal and value in REHEARSED:
            return value
        return TINY if self.smoke else value

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

    @property
    def profile_size(self) -> str:
        """pearl's profile size at this scale (``profile_size`` of
        :func:`pearl.training.profiles.config_for` and :func:`pearl.experiments.runner.train_models`):
        :data:`REHEARSAL_SIZE` in a rehearsal, else :data:`FULL_SIZE`."""
        return REHEARSAL_SIZE if self.rehearsal else FULL_SIZE

    def workers(self, workers: int) -> int:
        """``workers``, or 1 in a rehearsal: the GPU's process layout (one process owns the device), on a CPU."""
        return 1 if self.rehearsal else workers

    @property
    def guard(self):
        """The guard pearl's writers call at this scale (:class:`harness.outputs.ScaleGuard`)."""
        return ScaleGuard(self.smoke)

    def output_root(self, root: Path | None = None) -> Path:
        """Where this scale writes, given the output root ``root`` (default :func:`pearl.paths.output_root`):
        a SMOKE run never writes into the repository, so the repository itself becomes its
        ``smoke-output/`` (ignored by git); a scratch root stays as it is."""
        root = paths.output_root() if root is None else Path(root)
        return paths.ROOT / SMOKE_ROOT if self.smoke and root == paths.ROOT else root


FULL = Scale()
SMOKE = Scale(smoke=True)
REHEARSAL = Scale(smoke=True, rehearsal=True)


def use_output(root: str | Path) -> Path:
    """Make ``root`` the output root of this process and of the workers it starts (they inherit
    ``$PEARL_OUTPUT``), once it is :func:`pearl.paths.usable`; returns it. The repository itself
    unsets the variable. Called once, by a notebook's preamble or a script's start, before pearl runs."""
    import os

    root = (paths.ROOT / Path(root).expanduser()).resolve()
    if root == paths.ROOT:
        os.environ.pop(paths.OUTPUT_ENV, None)
    else:
        paths.usable(root, root)
        os.environ[paths.OUTPUT_ENV] = str(root)
    return root


def of_size(size: str) -> Scale:
    """The scale a script's ``--size`` names: ``"smoke"`` is SMOKE, any other size full.

    >>> of_size("smoke") is SMOKE, of_size("sweep") is FULL
    (True, True)
    """
    return SMOKE if size == "smoke" else FULL


def for_script(size: str) -> Scale:
    """:func:`of_size`, and a SMOKE run's output root set to the SMOKE root (:func:`use_output`:
    never the repository). Called once, at a script's start."""
    scale = of_size(size)
    if scale.smoke:
        use_output(scale.output_root())
    return scale
