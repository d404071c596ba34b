"""The batch run of the notebooks (``make reproduce``, ``make rehearse``), resumable notebook by notebook.

Usage: python -m harness.batch [--profile gpu] [--fresh] [--rehearse] [--extras] [--param NAME=VALUE ...] [NOTEBOOK ...]
(the Makefile calls it)

:func:`run` executes the notebooks in order through papermill, each with the parameters of the
batch that its ``parameters`` cell declares (``PROFILE``, ``INTERACTIVE``; ``SMOKE`` in a
rehearsal; ``EXTRAS`` in ``make extras``; any ``--param NAME=VALUE``, as ``DESIGN`` in ``make study``). After each one finishes it records, in
``results/executed/batch_state.json`` under the output root, the notebook's **input fingerprint**:
the digest of the notebook's file, its parameters, the code (``lib/``: the library and this harness), the raw
data folder's name and the previous notebook's fingerprint (a chain: a notebook whose predecessor ran on other inputs runs again).
Beside it the state keeps the digests of the files the notebook read under ``data/derived/`` and
``models/`` (those there when it started that neither it nor a notebook after it wrote:
:mod:`harness.batch_inputs`), and
of every file there as the batch last saw it, so a resume reads only the files changed since.

Run again (a killed batch restarted), a notebook whose fingerprint is recorded and whose record
(``results/<notebook>.json``) is the one that run wrote is skipped, and its record says so
(``batch_resume``: when, and why). A notebook one of whose inputs changed since it finished (a row
appended to ``phrases.tsv``, a model replaced) runs again, and so do the notebooks that read what it
rewrites. The first notebook not finished runs again: what it had done
before the kill is reused by the notebook itself (trained models by their recipe key, training
from its last checkpoint, the Wikipedia build from its chunks, scores from the cache).

A run with ``--param`` (``make study``: notebook 13 at another design) always runs, as ``--fresh``
does; its executed copy and its state are named with the values
(``results/executed/13_discrepancy_reduced.ipynb``), apart from the batch's (notebook 13 writes its
own record only at the batch's design). ``--fresh`` runs the named notebooks again and keeps the
state of the others, so a later batch still resumes.

A rehearsal (``make rehearse``) is this batch with ``SMOKE=True`` and ``PROFILE=gpu`` in a scratch
output root, every notebook of ``notebooks/ORDER``; it asks for one by ``$PEARL_REHEARSAL``
(:data:`harness.preamble.REHEARSAL_ENV`), which each notebook's preamble reads once into its
:class:`harness.scale.Scale`.

A damaged state file stops the batch naming the file and the fix (delete it, or ``FRESH=1``).

What it leaves out: the HTML and the site (``make html site``).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import signal
import sys
import time
from pathlib import Path

from harness import batch_inputs
from pearl import paths
from harness.preamble import REHEARSAL_ENV


def batch_notebooks(root: str | Path | None = None, separate: bool = False) -> list[str]:
    """The notebooks ``make reproduce`` runs, in order: ``notebooks/ORDER`` under ``root`` (default
    the repository), less ``notebooks/SEPARATE`` (those with a make target of their own) unless
    ``separate``; none when there is no ``notebooks/ORDER``."""
    folder = Path(root if root is not None else paths.ROOT) / "notebooks"
    if not (folder / "ORDER").is_file():
        return []
    skip = set() if separate or not (folder / "SEPARATE").is_file() else set((folder / "SEPARATE").read_text().split())
    return [nb for nb in (folder / "ORDER").read_text().split() if nb not in skip]


NOTEBOOKS = paths.ROOT / "notebooks"
STATE = "batch_state.json"
#: the state's key for every tracked file as the batch last saw it (notebooks' keys end in .ipynb)
FILES = "files"
#: what a skipped notebook's record says (``batch_resume.why``)
WHY = ("finished by an earlier run of this batch on the same inputs (notebook, parameters, lib/ code, "
       "raw data folder, earlier notebooks' inputs, the files it read under data/derived/ and models/): "
       "skipped, this record is that run's")


def declared(notebook: Path) -> set[str]:
    """The names the notebook's ``parameters`` cell declares."""
    import papermill as pm

    return set(pm.inspect_notebook(str(notebook)))


def parameters(notebook: Path, offered: dict) -> dict:
    """The ``offered`` parameters the notebook declares (``make reproduce`` offers PROFILE to all)."""
    names = declared(notebook)
    return {k: v for k, v in offered.items() if k in names}


def code_digest(root: Path | None = None) -> str:
    """sha256 over the code's files (``lib/``: the library ``pearl`` and the harness, sources and
    package data, not caches)."""
    root = root or paths.ROOT / "lib"
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                       and p.suffix not in (".pyc", ".pyo")):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def fingerprint(notebook: Path, params: dict, code: str, previous: str) -> str:
    """The input fingerprint of one notebook of the batch (see the module's docstring)."""
    raw = paths.raw_data_dir()
    parts = {"notebook": hashlib.sha256(notebook.read_bytes()).hexdigest(), "parameters": params, "code": code,
             "data": str(raw) if raw else None, "previous": previous,
             "rehearsal": os.environ.get(REHEARSAL_ENV, "") not in ("", "0")}
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def state_path() -> Path:
    return paths.results_dir("executed", STATE)


class StateError(RuntimeError):
    """The batch's state file cannot be read; the message names it and the fix."""


def read_state() -> dict:
    """The state file's contents (``{}`` when there is none); a damaged one raises :class:`StateError`."""
    path = state_path()
    if not path.is_file():
        return {}
    try:
        state = json.loads(path.read_text())
    except (ValueError, UnicodeDecodeError) as err:
        raise StateError(_damaged(path, f"it is not JSON ({err})")) from err
    bad = [k for k, v in state.items() if not isinstance(v, dict)] if isinstance(state, dict) else ["the whole file"]
    if bad:
        raise StateError(_damaged(path, f"{', '.join(map(str, bad))} is not a JSON object"))
    return state


def _damaged(path: Path, why: str) -> str:
    return (f"the batch's state file {path} is damaged: {why}. Delete it to run every notebook again "
            "(what they saved is reused: trained models, the corpus build's chunks, cached scores), "
            "or run the batch with --fresh (make reproduce FRESH=1), which ignores and rewrites it")


def _entry(last: dict, kind: str, key: str) -> dict:
    """A notebook's recorded ``inputs`` or ``outputs`` (``{path: sha256}``); a wrong-typed one is a damaged
    state file (:class:`StateError` naming it and the fix), never a crash further on."""
    value = last.get(kind, {})
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise StateError(_damaged(state_path(), f"{key}'s {kind!r} is not an object of paths and digests"))
    return value


def _sha(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None


def record_path(name: str) -> Path:
    return paths.results_dir(f"{Path(name).stem}.json")


def finished(name: str, fp: str, state: dict) -> bool:
    """Whether notebook ``name`` finished on inputs of fingerprint ``fp`` and its record is still that run's."""
    done, record = state.get(name) or {}, _sha(record_path(name))
    return record is not None and done.get("fingerprint") == fp and done.get("record_sha256") == record


def mark_skipped(name: str, state: dict) -> None:
    """Say in the notebook's record that this run skipped it, and keep the record's digest in ``state``."""
    from pearl.provenance import write_json

    path = record_path(name)
    record = json.loads(path.read_text())
    record["batch_resume"] = {"skipped_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "why": WHY,
                              "finished_at": state[name].get("finished_at"), "fingerprint": state[name]["fingerprint"]}
    write_json(path, record)
    state[name]["record_sha256"] = _sha(path)


def _save_state(state: dict) -> None:
    from pearl.provenance import write_json

    write_json(state_path(), state)


def execute(notebook: Path, out: Path, params: dict) -> None:
    """One notebook through papermill, in ``notebooks/`` (its working folder)."""
    import papermill as pm

    pm.execute_notebook(str(notebook), str(out), parameters=params, kernel_name=os.environ.get("PEARL_KERNEL", "pearl"),
                        cwd=str(NOTEBOOKS), progress_bar=False)


def _say(line: str) -> None:
    print(line, flush=True)  # a pipe sees each stage as it starts


def order(names: list[str]) -> list[str]:
    """The batch's order: ``notebooks/ORDER``, then any of ``names`` it lacks (which notebooks come
    after which, for :mod:`harness.batch_inputs`, also when a make target runs one alone)."""
    every = batch_notebooks(separate=True)
    return every + [n for n in names if n not in every]


def _last_state(fresh: bool) -> dict:
    """The state file's contents; a fresh run, which ignores them but for the tracked files (not to
    hash again what has not changed), takes a damaged one for none."""
    try:
        return read_state()
    except StateError:
        if fresh:
            return {}
        raise


def run(names: list[str], offered: dict, fresh: bool = False, log=_say, runner=execute, tag: str = "") -> dict:
    """Run ``names`` in order with the ``offered`` parameters, skipping those finished on the same
    inputs (unless ``fresh``); ``{notebook: "ran" | "skipped"}``. ``runner(notebook, out, params)``
    executes one (papermill; tests pass their own). ``tag`` goes into the executed copy's name and
    the state's key (``NN_name<tag>.ipynb``): a run with other parameters beside the batch's own."""
    state = _last_state(fresh)  # fresh: the named notebooks run again; the others' state stays for a later batch
    root, sequence = paths.output_root(), order(names)
    state[FILES] = batch_inputs.scan(root, state.get(FILES, {}))  # what changed outside since the batch last looked
    code, previous, done = code_digest(), "", {}
    for name in names:
        notebook = NOTEBOOKS / name
        params = parameters(notebook, offered)
        fp = fingerprint(notebook, params, code, previous)
        previous = fp
        key = f"{notebook.stem}{tag}.ipynb"
        last = state.get(key) or {}
        stale = (batch_inputs.changed(name, _entry(last, "inputs", key), state[FILES], sequence)
                 + batch_inputs.gone(name, _entry(last, "outputs", key), state[FILES], sequence))
        if not fresh and not tag and finished(name, fp, state) and not stale:
            mark_skipped(name, state)
            _save_state(state)
            log(f"-- {name} skipped: finished on the same inputs at {state[name].get('finished_at')}")
            done[name] = "skipped"
            continue
        if stale and not fresh:
            log(f"-- {name} runs again: {len(stale)} of the files it read changed, or that it wrote are gone, since it finished "
                f"({', '.join(stale[:3])}{', ...' if len(stale) > 3 else ''})")
        state.pop(key, None)
        _save_state(state)
        log(f"== {name} " + " ".join(f"-p {k} {v}" for k, v in params.items()))
        t0, before = time.perf_counter(), state[FILES]
        try:
            runner(notebook, paths.results_dir("executed", key), params)
        finally:  # a notebook stopped midway wrote too: its writes are its own, not an outside change
            state[FILES] = batch_inputs.scan(root, before, writer=name)
            _save_state(state)
        state[key] = {"fingerprint": fp, "finished_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                      "seconds": round(time.perf_counter() - t0, 1), "record_sha256": _sha(record_path(name)),
                      "inputs": batch_inputs.inputs(name, before, state[FILES], sequence),
                      "outputs": batch_inputs.outputs(before, state[FILES])}
        _save_state(state)
        done[name] = "ran"
    return done


def _terminated(signum, frame):
    raise KeyboardInterrupt(f"batch: stopped by signal {signum}")


def stop_on_sigterm() -> None:
    """Take SIGTERM as Ctrl-C: the running notebook's writes are recorded as its own before the
    batch ends (:func:`run`'s ``finally``), so the resume does not take them for outside changes."""
    signal.signal(signal.SIGTERM, _terminated)


def _param(text: str) -> tuple[str, str]:
    """``"DESIGN=reduced"`` -> ``("DESIGN", "reduced")``; a clear error for anything else."""
    name, sep, value = text.partition("=")
    if not sep or not name.isidentifier() or not value:
        sys.exit(f"batch: --param {text!r}: write NAME=VALUE, e.g. --param DESIGN=reduced")
    return name, value


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Run the notebooks in order; a restarted batch skips the finished ones")
    ap.add_argument("notebooks", nargs="*", help="notebooks/ names (default: notebooks/ORDER less notebooks/SEPARATE)")
    ap.add_argument("--profile", default="cpu")
    ap.add_argument("--rehearse", action="store_true",
                    help="the gpu profile's code paths at tiny size (SMOKE) into the scratch root $PEARL_OUTPUT, "
                         "every notebook of notebooks/ORDER")
    ap.add_argument("--fresh", action="store_true", help="run every notebook, whatever the state file says")
    ap.add_argument("--extras", action="store_true",
                    help="EXTRAS=True to the notebooks that declare it: the arms beyond the paper's tables (make extras)")
    ap.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                    help="a parameter beyond the batch's, to the notebooks that declare it (make study: DESIGN=reduced); "
                         "the run always runs, its executed copy named with the values")
    ap.add_argument("--record", help="write the batch's wall time, notebook by notebook, to this JSON file")
    args = ap.parse_args(argv)
    from pearl.training.profiles import PROFILES

    if args.profile not in PROFILES:  # else every notebook stops on it, the first after minutes of work
        sys.exit(f"batch: --profile {args.profile!r} is not a training profile; choose one of {', '.join(PROFILES)}")
    unknown = [n for n in args.notebooks if not (NOTEBOOKS / n).is_file()]
    if unknown:
        import difflib

        known = sorted(p.name for p in NOTEBOOKS.glob("*.ipynb"))
        near = difflib.get_close_matches(unknown[0], known, n=1)
        sys.exit(f"batch: no notebook {unknown[0]!r} in {NOTEBOOKS}"
                 + (f"; did you mean {near[0]!r}?" if near else f"; the notebooks are {', '.join(known)}"))
    offered = {"PROFILE": args.profile, "INTERACTIVE": False, **({"EXTRAS": True} if args.extras else {})}
    names = args.notebooks
    extra = dict(_param(p) for p in args.param)
    if extra:
        names = names or batch_notebooks()
        for k in extra:
            if not any(k in declared(NOTEBOOKS / n) for n in names):
                sys.exit(f"batch: --param {k}: no notebook of this run ({', '.join(names)}) declares {k} in its "
                         f"parameters cell; name a notebook that does (make study runs 13_discrepancy.ipynb)")
        offered = {**offered, **extra}
    if args.rehearse:
        if not os.environ.get("PEARL_OUTPUT"):
            sys.exit("batch: a rehearsal writes into a scratch root: set PEARL_OUTPUT (make rehearse does)")
        os.environ[REHEARSAL_ENV] = "1"  # the kernels' preambles read the request (with SMOKE=True) into their Scale
        offered = {"SMOKE": True, "PROFILE": "gpu", "INTERACTIVE": False, **extra}  # --param holds here too
        names = names or batch_notebooks(separate=True)
    t0, load_start = time.perf_counter(), list(os.getloadavg())
    stop_on_sigterm()
    try:
        outcome = run(names or batch_notebooks(), offered, fresh=args.fresh,
                      tag="".join(f"_{v}" for v in extra.values()))
    except StateError as err:
        sys.exit(f"batch: {err}")
    seconds = time.perf_counter() - t0
    ran = sum(v == "ran" for v in outcome.values())
    print(f"batch: {ran} notebooks ran, {len(outcome) - ran} skipped, in {seconds:.0f} s "
          f"(output root {paths.output_root()})")
    if args.record:
        from pearl.provenance import hardware, stamp, write_json

        state = read_state()
        write_json(Path(args.record), {
            "what": "make rehearse" if args.rehearse else f"make reproduce PROFILE={args.profile}", **stamp(),
            "wall_time_s": round(seconds, 1), "hardware": hardware(), "load_average_start": load_start,
            "load_average_end": list(os.getloadavg()),
            "notebooks": {n: {"outcome": v, "seconds": (state.get(n) or {}).get("seconds")} for n, v in outcome.items()}})
    return 0


if __name__ == "__main__":
    sys.exit(main())
