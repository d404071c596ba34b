"""Every notebook's first code cell: ``run = start("08_ablations", globals(), __annotations__)``.

One call checks the ``parameters`` cell against its annotations (:func:`harness.params.check_params`),
resolves the run's :class:`harness.scale.Scale` from ``SMOKE`` (and, under ``make rehearse``, the
batch's request :data:`REHEARSAL_ENV`, read here and nowhere below), points a SMOKE run's output
root away from the repository, and returns the :class:`harness.record.Run` that records every
declared parameter. A value the notebook resolves from a parameter (a profile turned
pearl's ``"tiny"``, seeds cut) is recorded in its place by :meth:`harness.record.Run.resolve`::

    profile, seeds = run.resolve(PROFILE=run.scale.scaled(PROFILE), SEEDS=run.scale.subset(SEEDS))

What it leaves out: the parameters' meaning (each notebook's prose) and any computing.
"""
from __future__ import annotations

import os

from .params import check_params
from .record import Run
from .scale import Scale, use_output

#: set (to "1") by ``make rehearse`` (``python -m harness.batch --rehearse``): a SMOKE run that keeps the
#: ``gpu`` profile's code paths (:class:`harness.scale.Scale` ``rehearsal``)
REHEARSAL_ENV = "PEARL_REHEARSAL"


def requested_scale(params: dict, env=None) -> Scale:
    """The :class:`Scale` of a run with these checked parameters: SMOKE when ``params["SMOKE"]``,
    a rehearsal when the batch also asks for one (``env[REHEARSAL_ENV]``; ``os.environ`` by
    default). A rehearsal request without SMOKE means nothing.

    >>> requested_scale({"SMOKE": True}, {REHEARSAL_ENV: "1"})
    Scale(smoke=True, rehearsal=True)
    >>> requested_scale({"SMOKE": False}, {REHEARSAL_ENV: "1"})
    Scale(smoke=False, rehearsal=False)
    """
    env = os.environ if env is None else env
    smoke = bool(params.get("SMOKE"))
    return Scale(smoke=smoke, rehearsal=smoke and env.get(REHEARSAL_ENV, "") not in ("", "0"))


def start(name: str, namespace: dict, annotations: dict, env=None) -> Run:
    """The notebook ``name``'s :class:`Run`: its parameters checked (:func:`check_params`, which
    raises :class:`harness.params.ParameterError` before anything runs), its ``scale``
    (:func:`requested_scale`) and, for a SMOKE run, its output root moved out of the repository
    (:meth:`harness.scale.Scale.output_root`), decided here once, before the notebook runs anything:
    :func:`harness.scale.use_output` sets ``$PEARL_OUTPUT``, pearl's default root, which the workers
    it starts inherit; nothing below rewrites it."""
    params = check_params(namespace, annotations)
    scale = requested_scale(params, env)
    use_output(scale.output_root())
    return Run(name, dict(params), scale=scale)
