"""Starts worker processes, reports their process ids, then waits forever with the workers idle
(used by test_workers.py, which kills this process, or the batch around it, and looks for survivors).

    python _orphans.py spacy     # spaCy's nlp.pipe(n_process=2) through pearl.corpus.phrases.count_phrases
    python _orphans.py pool      # pearl.workers.executor's two spawned workers

The report is one JSON line on stdout, ``{"parent": pid, "workers": [pid, ...]}``; :func:`main`
called with ``report=`` (from a notebook's kernel, whose stdout the test cannot read) writes it
to that file instead.
"""
import json
import multiprocessing
import os
import sys
import time


def _ready(report) -> None:
    line = json.dumps({"parent": os.getpid(), "workers": sorted(p.pid for p in multiprocessing.active_children())})
    if report:
        with open(f"{report}.part", "w") as fh:
            fh.write(line)
        os.replace(f"{report}.part", report)  # the test reads it whole or not at all
    print(line, flush=True)
    time.sleep(3600)


def texts(n_process: int, batch_size: int, report):
    """Enough texts for spaCy's two first sends (it starts the workers after them), then the wait:
    spaCy asks for more once the parent has taken a batch back, with the workers started and idle."""
    yield from ["New York is a big city."] * (2 * n_process * batch_size)
    _ready(report)


def nap(seconds: float) -> int:
    time.sleep(seconds)
    return 0


def main(kind: str, report=None) -> None:
    if kind == "spacy":
        from pearl.corpus import phrases

        phrases.count_phrases(texts(2, 1, report), phrases.load_nlp(), n_process=2, batch_size=1, progress=False)
    else:
        from pearl import workers

        with workers.executor(2) as pool:
            list(pool.map(nap, [0, 0]))  # both workers started
            _ready(report)


if __name__ == "__main__":
    main(sys.argv[1])
