"""Models side by side on a CPU: a pool of spawned processes that run one torch thread each.

On 2 cores two one-thread jobs do more than one two-thread job, for training and for encoding
(``perf/train_throughput.py`` with ``--threads 1`` against ``--threads 2`` measures it): at a
phrase's few tokens the matrices are small and two threads spend their time waiting on each other. Used by the experiment
runner (training and scoring) and by Table 1's notebook (one exact pass per model).

Worker processes end with the process that started them, however it ends (a batch killed with
its process group ends the notebook's kernel, which ends its workers): each asks Linux for a
SIGKILL when its parent goes (:func:`die_with_parent`), this pool's workers as they start and
those multiprocessing forks inside :func:`tied` (spaCy's ``nlp.pipe(n_process=...)``, whose
workers otherwise wait forever on a pipe that their own copy keeps open). The signal comes when
the *thread* that started the worker ends: start them from a thread that outlives them.

:func:`forked_map` is the other kind of pool: jobs over state too large or too odd to pickle (a
corpus's blocks, a collator's closures, a tokenizer), which forked processes inherit (:func:`shared`).

What it leaves out: GPUs. With CUDA present :func:`usable` returns 1: one process owns the device
(a caller that runs the GPU's process layout on a CPU asks for 1 itself). Systems
other than Linux, and multiprocessing's ``spawn`` and ``forkserver`` start methods inside
:func:`tied` (spaCy uses the default one, ``fork`` on Linux up to Python 3.13): their workers
outlive a killed parent as before.
"""
from __future__ import annotations

from contextlib import contextmanager

#: Linux's prctl option: the signal a process gets when its parent (thread) ends
PR_SET_PDEATHSIG = 1


def one_thread() -> None:
    import torch

    torch.set_num_threads(1)


def die_with_parent() -> bool:
    """In a worker process: have Linux SIGKILL it when its parent ends, and end it now if the parent
    has already gone (it could have, before the request); False where there is no ``prctl``."""
    import ctypes
    import multiprocessing
    import os
    import signal

    try:
        if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL) != 0:
            return False
    except (OSError, AttributeError):  # not Linux
        return False
    parent = multiprocessing.parent_process()
    if parent is not None and os.getppid() != parent.pid:
        os._exit(1)
    return True


class _Anchor:
    """What multiprocessing's after-fork registry holds (weakly) while :func:`tied` is open."""


def _after_fork(_anchor) -> None:
    die_with_parent()


@contextmanager
def tied():
    """Inside the block, each process that multiprocessing forks from this one runs
    :func:`die_with_parent` first; the registration ends with the block (the registry holds its
    anchor weakly)."""
    import multiprocessing.util

    anchor = _Anchor()
    multiprocessing.util.register_after_fork(anchor, _after_fork)
    try:
        yield
    finally:
        del anchor


def _start_worker() -> None:
    die_with_parent()
    one_thread()


def usable(workers: int) -> int:
    """``workers``, or 1 when a GPU is present (jobs then run in this process, on the GPU)."""
    import torch

    return 1 if torch.cuda.is_available() else max(1, int(workers))


def executor(workers: int):
    """Worker processes (spawned: a fresh interpreter, safe inside a Jupyter kernel), one torch thread
    each, that end with this process (:func:`die_with_parent`)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"), initializer=_start_worker)


def _logged(fn, threads: int, *job) -> tuple:
    """In a worker: ``fn``'s value and the lines it logged, which go back to the caller to print."""
    lines = []
    return fn(*job, threads=threads, log=lines.append), lines


def each(fn, jobs: list[tuple], workers: int, log, threads: int = 0, done=None) -> list:
    """``fn(*job, threads=..., log=...)`` for every job, in order; returns ``fn``'s values.

    With ``workers`` > 1 (and more than one job) the jobs run in :func:`executor`'s processes
    with one thread each, and each one's log lines are printed through ``log`` when it returns,
    then ``done(job, value)`` (a line saying so) if given; else they run here with ``threads``,
    logging as they go. ``fn`` must be a module-level function (it is pickled)."""
    import functools

    workers = min(usable(workers), len(jobs))
    if workers <= 1:
        return [fn(*job, threads=threads, log=log) for job in jobs]
    values = []
    with executor(workers) as pool:
        for job, (value, lines) in zip(jobs, pool.map(functools.partial(_logged, fn, 1), *zip(*jobs))):
            for line in lines:
                log(line)
            if done is not None:
                log(done(job, value))
            values.append(value)
    return values


_SHARED = None  # what forked_map's function reads: set before forking, so workers inherit it unpickled


def shared():
    """In a job of :func:`forked_map`: the ``shared`` value of the call it runs in."""
    return _SHARED


def forked_map(fn, jobs: list, workers: int, shared=None) -> list:
    """``[fn(j) for j in jobs]`` in order, :func:`shared` returning ``shared`` meanwhile; in ``workers``
    forked processes when there are several jobs (fork: ``shared`` is inherited, never pickled), inside
    :func:`tied` (they end with this process). ``fn`` is a module-level function."""
    global _SHARED
    _SHARED = shared
    try:
        if workers > 1 and len(jobs) > 1:
            import multiprocessing

            if "fork" not in multiprocessing.get_all_start_methods():
                raise RuntimeError("these workers are forked, which this platform cannot do: pass workers=1")
            with tied(), multiprocessing.get_context("fork").Pool(min(workers, len(jobs))) as pool:
                return pool.map(fn, jobs)
        return [fn(j) for j in jobs]
    finally:
        _SHARED = None
