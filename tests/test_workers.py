"""pearl.workers: worker processes end with the process that started them, however it is killed;
the one-thread pool's workers and spaCy's (``nlp.pipe(n_process=2)``) alike."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pearl import workers

HERE = Path(__file__).resolve().parent


def _alive(pid: int) -> bool:
    """Running or asleep; a zombie (killed, not yet reaped by whoever adopted it) has ended."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def _survivors(pids: list[int], patience: float = 60) -> list[int]:
    """The ``pids`` still alive once they have all ended or ``patience`` seconds have passed."""
    deadline = time.monotonic() + patience
    while any(map(_alive, pids)) and time.monotonic() < deadline:
        time.sleep(0.2)
    return [pid for pid in pids if _alive(pid)]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl(PR_SET_PDEATHSIG) is Linux's")
@pytest.mark.parametrize("kind", ["spacy", "pool"])
def test_killing_the_parent_leaves_no_worker_behind(kind):
    proc = subprocess.Popen([sys.executable, str(HERE / "_orphans.py"), kind], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    pids = []
    try:
        line = proc.stdout.readline()
        assert line, proc.stderr.read()[-2000:]
        pids = json.loads(line)["workers"]
        assert len(pids) == 2 and all(map(_alive, pids))
        proc.kill()  # the parent alone, with SIGKILL: no handler, no finally (the workers are in its group)
        proc.wait()
        assert _survivors(pids) == [], f"{kind} workers outlived their killed parent"
    finally:
        for pid in pids:  # only what this test started
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        if proc.poll() is None:
            proc.kill()


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl(PR_SET_PDEATHSIG) is Linux's")
def test_killing_the_batchs_process_group_ends_its_kernel_and_spacys_workers(tmp_path):
    """The batch's papermill kernel runs in a session of its own (jupyter_client starts it so), out of
    reach of a kill of the batch's group: it ends when it sees its parent gone, and its spaCy workers
    with it. About 20 s (a kernel starts)."""
    import nbformat

    report = tmp_path / "pids.json"
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        f"import sys\nsys.path.insert(0, {str(HERE)!r})\nimport _orphans\n_orphans.main('spacy', report={str(report)!r})")])
    nbformat.write(nb, str(tmp_path / "orphans.ipynb"))
    driver = ("import pathlib\nfrom harness import batch\n"
              f"batch.execute(pathlib.Path({str(tmp_path / 'orphans.ipynb')!r}), pathlib.Path({str(tmp_path / 'out.ipynb')!r}), {{}})")
    proc = subprocess.Popen([sys.executable, "-c", driver], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)
    pids = []
    try:
        deadline = time.monotonic() + 300
        while not report.is_file() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.5)
        assert report.is_file(), proc.communicate(timeout=60)[0][-3000:] if proc.poll() is not None else "no report"
        got = json.loads(report.read_text())
        pids = [got["parent"], *got["workers"]]
        assert len(pids) == 3 and all(map(_alive, pids)) and os.getpgid(got["parent"]) != proc.pid
        os.killpg(proc.pid, signal.SIGKILL)  # make reproduce's process group, killed at once
        proc.wait()
        assert _survivors(pids) == [], "the kernel or its spaCy workers outlived the killed batch"
    finally:
        for pid in pids:  # only what this test started
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)


def test_tied_ends_its_registration_with_the_block():
    import multiprocessing.util

    before = len(multiprocessing.util._afterfork_registry)
    with workers.tied():
        assert len(multiprocessing.util._afterfork_registry) == before + 1
    assert len(multiprocessing.util._afterfork_registry) == before
