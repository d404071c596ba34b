"""Models side by side on a CPU: a pool of spawned processes that run one torch thread each.

On 2 cores two one-thread jobs do more than one two-thread job, for training and for encoding
(``perf/train_throughput.py`` with ``--threads 1`` against ``--threads 2`` measures it): at a
phrase's few tokens the matrices are small and two threads spend their time waiting on each other. Used by the experiment
runner (training and scoring) and by Table 1's notebook (one exact pass per model).

What it leaves out: GPUs. With CUDA present :func:`usable` returns 1: one process owns the device
(a rehearsal of the gpu profile asks for 1 itself: :meth:`pearl.scale.Scale.workers`).
"""
from __future__ import annotations


def one_thread() -> None:
    import torch

    torch.set_num_threads(1)


def usable(workers: int) -> int:
    """``workers``, or 1 when a GPU is present (jobs then run in this process, on the GPU)."""
    import torch

    return 1 if torch.cuda.is_available() else max(1, int(workers))


def executor(workers: int):
    """Worker processes (spawned: a fresh interpreter, safe inside a Jupyter kernel), one torch thread each."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"), initializer=one_thread)


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
