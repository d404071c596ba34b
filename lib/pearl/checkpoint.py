"""Checkpoints that are whole and verified, or refused: the trainer's (:mod:`pearl.training.train`)
and ``mlm-wiki``'s pretraining's (:mod:`pearl.backbones.mlm_pretrain`), which sits below the model registry.

A run folder holds at most two checkpoints, each with a sha256 digest beside it
(``sha256sum`` format)::

    checkpoint.pt          checkpoint.pt.sha256          <- the latest
    checkpoint.prev.pt     checkpoint.prev.pt.sha256     <- the one before

:func:`save` writes in this order, each file atomically (:func:`pearl.atomic.write_atomic`):
the current pair is hard-linked (copied where links fail) to ``.prev`` when it verifies, then
the new checkpoint, then its digest. A kill at any point leaves either a verified latest
checkpoint, or a latest one whose digest does not match (the kill fell between the two writes)
and an intact previous one.

:func:`load` reads a checkpoint only when its digest matches. An empty, truncated or otherwise
changed file, or one without its digest, raises :class:`CheckpointError` naming the run folder
and the two ways on: delete the folder to start over, or resume from the last good checkpoint
(``train(..., resume_from=...)``). It never falls back on its own: which state a run continues
from is the user's choice. :func:`last_good` is the form that does, for a deterministic run that
no user steers (the raw LM's pretraining, which ``load_model("mlm-wiki")`` starts): it passes
over a latest checkpoint that does not verify for the previous one, saying so, since going back
a few steps changes no weight.

:func:`refuse_other_run` stops a resume under another config or on other inputs (a checkpoint
keeps its config and its inputs' digest): the run would otherwise finish as a hybrid of two.

:func:`discard` deletes both once the run's model is exported: with Adam's two moments a
checkpoint is about three times the model's weights, and a cpu-profile ``make reproduce`` trains
dozens of models, so kept checkpoints would fill gigabytes of disk for runs that need no resuming.

What it leaves out: the trained model's export (:mod:`pearl.training.export`), and checkpoints
of more than one process (rank 0 writes them; all ranks hold the same weights under DDP).
"""
from __future__ import annotations

import hashlib
import io
import os
import pickle
import random
import warnings
from pathlib import Path

import numpy as np
import torch

from .atomic import write_atomic

LATEST = "checkpoint.pt"
PREVIOUS = "checkpoint.prev.pt"


class CheckpointError(RuntimeError):
    """A checkpoint that cannot be trusted; the message names the run folder and the choice."""


class OtherRunError(CheckpointError, ValueError):
    """A checkpoint that verifies but was written with another config or on other inputs."""


def digest_path(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def _digest(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def _recorded(path: Path) -> str | None:
    side = digest_path(path)
    if not side.is_file():
        return None
    text = side.read_text().split()
    return text[0] if text else ""


def problem(path: Path, raw: bytes | None = None) -> str | None:
    """Why ``path`` cannot be trusted (missing, empty, no digest, digest mismatch), or None."""
    if not path.is_file():
        return "is missing"
    raw = path.read_bytes() if raw is None else raw
    if not raw:
        return "is empty"
    recorded = _recorded(path)
    if recorded is None:
        return f"has no digest beside it ({digest_path(path).name})"
    if _digest(raw) != recorded:
        return f"does not match its sha256 digest ({len(raw)} bytes, truncated or changed after writing)"
    return None


def save(run_dir: str | os.PathLike, state: dict) -> Path:
    """Write ``state`` as the run folder's latest checkpoint, keeping the one before it."""
    run_dir = Path(run_dir)
    latest, previous = run_dir / LATEST, run_dir / PREVIOUS
    for stale in run_dir.glob(".checkpoint*.tmp"):  # left by a run killed mid-write; only we write here
        stale.unlink(missing_ok=True)
    if latest.is_file() and problem(latest) is None:  # never demote a bad checkpoint over a good one
        for src, dst in ((latest, previous), (digest_path(latest), digest_path(previous))):
            _link_or_copy(src, dst)
    buf = io.BytesIO()
    torch.save(state, buf)
    raw = buf.getvalue()
    write_atomic(latest, raw)
    write_atomic(digest_path(latest), f"{_digest(raw)}  {LATEST}\n")  # after: a digest vouches for a whole file
    return latest


def discard(run_dir: str | os.PathLike) -> None:
    """Delete a finished run's checkpoints and digests (and any temporary file a kill left), and the
    batches it drew into ``arrays/`` (:mod:`pearl.training.arrays`); the folder's log and recipe
    marker stay. Call it after the model is exported: a kill before then still resumes."""
    import shutil

    run_dir = Path(run_dir)
    shutil.rmtree(run_dir / "arrays", ignore_errors=True)
    for name in (LATEST, PREVIOUS):
        (run_dir / name).unlink(missing_ok=True)
        digest_path(run_dir / name).unlink(missing_ok=True)
    for stale in run_dir.glob(".checkpoint*"):
        stale.unlink(missing_ok=True)


def _link_or_copy(src: Path, dst: Path) -> None:
    """``dst`` becomes ``src``'s content, atomically (a hard link renamed into place; a copy
    where the file system has no hard links)."""
    tmp = dst.with_name(f".{dst.name}.link")
    tmp.unlink(missing_ok=True)
    try:
        os.link(src, tmp)
    except OSError:
        write_atomic(dst, src.read_bytes())
        return
    os.replace(tmp, dst)


def load(run_dir: str | os.PathLike, resume_from: str | os.PathLike | None = None) -> dict | None:
    """The verified state to resume from: ``resume_from`` when given, else the run folder's latest
    checkpoint; None when the folder holds none (a fresh run). Raises :class:`CheckpointError`."""
    run_dir = Path(run_dir)
    path = Path(resume_from) if resume_from is not None else run_dir / LATEST
    if resume_from is None and not path.is_file() and not digest_path(path).is_file():
        return None
    raw = path.read_bytes() if path.is_file() else None
    why = problem(path, raw)
    if why is None:
        try:
            return torch.load(io.BytesIO(raw), weights_only=False)
        except (RuntimeError, EOFError, ValueError, pickle.UnpicklingError) as err:  # digest of a bad file: still refuse
            why = f"does not load ({type(err).__name__}: {err})"
    raise CheckpointError(f"{path} {why}. The run in {run_dir} cannot resume from it. " + _choice(run_dir, path))


def last_good(run_dir: str | os.PathLike) -> tuple[dict | None, Path | None]:
    """``(state, its file)``: the latest checkpoint when it verifies, else the previous one (a kill
    between a checkpoint and its digest leaves the latest unvouched and the previous intact), each
    pass-over said in a warning; ``(None, None)`` for a fresh run, and also when the first
    checkpoint was cut short (no previous one to go back to: the run starts again from step 0).
    Raises :class:`CheckpointError` when neither verifies: only deleting the folder helps."""
    run_dir = Path(run_dir)
    latest, previous = run_dir / LATEST, run_dir / PREVIOUS
    try:
        state = load(run_dir)
        return state, latest if state is not None else None
    except CheckpointError as err:
        skipped = f"{latest} {problem(latest) or 'does not load'}"
        if not previous.is_file() and not digest_path(previous).is_file():
            warnings.warn(f"{skipped}, and no checkpoint came before it: the run starts again from step 0", stacklevel=2)
            return None, None
        try:
            state = load(run_dir, previous)
        except CheckpointError:
            raise CheckpointError(f"{skipped}, and {previous} {problem(previous) or 'does not load'}: no checkpoint "
                                  f"in {run_dir} verifies. Delete {run_dir} to start over.") from err
        warnings.warn(f"{skipped}: resuming from the last good checkpoint {previous}", stacklevel=2)
        return state, previous


def refuse_other_run(state: dict, path: Path, run_dir: Path, config, inputs: str | None, inputs_are: str) -> None:
    """Raise :class:`OtherRunError` when ``state`` (read from ``path``) was written with a config
    other than ``config`` (compared by its ``record()``) or on inputs whose digest is not ``inputs``
    (``inputs_are`` names what the digest covers). A checkpoint without an inputs digest (written
    before one was kept) is checked on its config alone."""
    saved, now = state.get("config"), config.record()
    if saved != now:
        saved = saved if isinstance(saved, dict) else {}
        changed = sorted(k for k in {*saved, *now} if saved.get(k) != now.get(k))
        raise OtherRunError(f"{path} was written with another configuration ({', '.join(changed[:5])} differ): "
                            f"delete {run_dir} to start afresh, or resume with the same {type(config).__name__}")
    if state.get("inputs", inputs) != inputs:
        raise OtherRunError(f"{path} was trained on another {inputs_are}: delete {run_dir} to start afresh on "
                            "these, or resume with the inputs it started on")


def _choice(run_dir: Path, bad: Path) -> str:
    delete = f"Either delete {run_dir} to start over"
    previous = run_dir / PREVIOUS
    if previous != bad and problem(previous) is None:
        return (f"{delete}, or resume from the last good checkpoint {previous} (it verifies): "
                f"train(..., resume_from={str(previous)!r}).")
    return (f"{delete}, or point train(..., resume_from=...) to the last good checkpoint "
            f"(none in this folder verifies).")


def inputs_digest(corpus, hard_negatives: dict | None, lexicons=None) -> str:
    """sha256 of what a run trains on: the corpus rows, the hard negatives it uses and the
    augmentation lexicons its positives come from (any object with ``__dict__``, e.g.
    :class:`pearl.corpus.augment.AugmentLexicons`). A resume on other inputs is refused."""
    import json

    h = hashlib.sha256()
    for part in (corpus, hard_negatives or {}, vars(lexicons) if lexicons is not None else None):
        h.update(json.dumps(part, sort_keys=True, default=list).encode())  # tuples and lists alike
    return h.hexdigest()


def rng_state() -> dict:
    """Every random generator a training step draws from (torch, numpy, Python, CUDA)."""
    state = {"torch": torch.get_rng_state(), "numpy": np.random.get_state(), "python": random.getstate()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def set_rng_state(state: dict) -> None:
    torch.set_rng_state(state["torch"])
    np.random.set_state(state["numpy"])
    random.setstate(state["python"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def save_state(folder: Path, model, optimizer, scheduler, step: int, log: list, config, inputs: str | None = None,
               extra: dict | None = None) -> None:
    """Everything a resumed run needs, as ``folder``'s latest checkpoint (:func:`save`: atomic, with
    its digest, the previous one kept): weights, optimiser and scheduler, the step (the sampler's
    state), the loss log, every random state, the run's config (its flat ``record()``), its inputs'
    digest and whatever else the run keeps (``extra``)."""
    save(folder, {"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                  "scheduler": scheduler.state_dict(), "step": step, "log": list(log),
                  "rng": rng_state(), "config": config.record(), "inputs": inputs,
                  **({"extra": extra} if extra is not None else {})})
