"""The executed notebooks kept in the repository (``results/notebooks/``), so that a fresh
clone's site (``make site``) shows real outputs before anyone runs the 3-hour batch.

:func:`keep` copies each full-size notebook that the last batch run left in
``results/executed/`` (git-ignored, written by papermill) to ``results/notebooks/``: saved widget
state dropped (its renderer would load from a CDN; the widgets' text fallback stays), progress
bars (tqdm's lines on stderr) dropped, this machine's paths made relative to the repository (or
replaced by ``<local path>`` outside it), any output other than an image larger than
:data:`MAX_OUTPUT` replaced by a note (a figure is what a reader came for), and labelled in its metadata (``pearl``) with
the commit and profile of the run, read from the notebook's own record ``results/<name>.json``
when that record was written during the notebook's run. A SMOKE notebook, or one whose record
is from another run (so its commit is unknown), is not kept. ``make site`` runs it first.
:func:`tidy` applies the same cleaning to the copies already kept (``python -m
harness.executed --tidy``), for copies kept before a cleaning step existed.
"""
from __future__ import annotations

import json
import re
import sys
from datetime import datetime
from pathlib import Path

from pearl import paths
from pearl.atomic import write_atomic
from pearl.provenance import read_record
from harness.record import writer

KEPT = "notebooks"  # under results/
MAX_OUTPUT = 400_000  # characters of one output, images not counted; larger ones are left out of the kept copy
WIDGET = "application/vnd.jupyter.widget-view+json"
# one tqdm bar state: "Loading weights:  40%|####      | 41/103 [00:00<00:01, ...]"
PROGRESS = re.compile(r"\d+%\|[^|]*\|\s*\d+(?:\.\d+)?[kMG]?/")
# a machine's own folders, where a checkout or a scratch file lies (not /usr: the system's)
MACHINE = "/(?:work|root|tmp|home|Users|mnt|scratch)"
# a folder of the repository that such a path reaches: what comes before it is the run's checkout
REPO_DIRS = "results|figures|models|data|notebooks|lib|build|site|scripts|tests|perf|\\.cache|\\.venv"
IN_REPO = re.compile(rf"(?<![\w.~-]){MACHINE}(?:/[\w.+@-]+)*?/(?=(?:{REPO_DIRS})(?:/|\b))")
# any other path under them
LOCAL = re.compile(rf"(?<![\w.~-]){MACHINE}/[^\s\"'<>:,;)\]]*")


def read_notebook(path: str | Path) -> dict:
    """The notebook at ``path`` (an executed copy, a kept one or the committed source) parsed; a
    damaged one (not JSON, or no list of cells) raises ``ValueError`` naming it and the fix for where it lies."""
    path = Path(path)
    try:
        nb = json.loads(path.read_text(encoding="utf8"))
        if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
            raise ValueError("no list of cells")
    except (ValueError, UnicodeDecodeError) as err:
        raise ValueError(f"{path} is a damaged notebook ({err}): {_fix(path)}") from err
    return nb


def _fix(path: Path) -> str:
    """How to mend a damaged notebook, by the folder it lies in."""
    name = path.name
    if path.parent.name == "executed":  # papermill's output of a batch run
        return (f"run it again (make reproduce, or papermill notebooks/{name} results/executed/{name}), or delete it "
                f"and the site shows the kept copy results/{KEPT}/{name}")
    if path.parent.name == KEPT and path.parent.parent.name == "results":
        return (f"restore it with `git checkout -- results/{KEPT}/{name}`, or keep a new copy from a batch run "
                "with `python -m harness.executed`")
    return (f"restore it with `git checkout -- notebooks/{name}`, or regenerate it from notebooks/src/{path.stem}.py "
            "(make notebooks)")


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00").replace("+0000", "+00:00"))


def label(nb: dict, record: dict | None) -> dict | None:
    """``{"commit", "profile", "executed"}`` for a notebook whose record was written during its run, else None."""
    pm = nb.get("metadata", {}).get("papermill", {})
    if not record or not pm.get("start_time") or not pm.get("end_time"):
        return None
    params = record.get("parameters", {})
    finished = record.get("provenance", {}).get("finished")
    if params.get("SMOKE") or pm.get("parameters", {}).get("SMOKE") or not finished:
        return None
    if not _time(pm["start_time"]) <= _time(finished) <= _time(pm["end_time"]):
        return None
    return {"commit": record["provenance"].get("commit", "")[:7], "profile": params.get("PROFILE") or "default",
            "executed": pm["end_time"][:19]}


def quiet(text: str) -> str:
    """``text`` (a stderr stream) without its progress-bar lines; each line is judged by what
    its carriage returns leave (tqdm redraws a bar in place).

    >>> quiet("\\rLoading:   0%|   | 0/9 [00:00<?, ?it/s]\\rLoading: 100%|###| 9/9 [00:00<00:00]\\nWarning: x\\n")
    'Warning: x\\n'
    """
    kept = [line for line in re.split(r"(?<=\n)", text) if not PROGRESS.search(line)]  # not splitlines: it splits at \r
    return "".join(kept)


def unlocal(text: str) -> str:
    """``text`` with this machine's paths made relative to the repository, or ``<local path>``.

    >>> unlocal("saved /work/timed/main/figures/f.png and /tmp/pytest-1/x.csv; see lib/pearl")
    'saved figures/f.png and <local path>; see lib/pearl'
    """
    return LOCAL.sub("<local path>", IN_REPO.sub("", text))


def _text(value):
    """A notebook string field (a string or a list of lines) as one string."""
    return "".join(value) if isinstance(value, list) else value


def clean(out: dict) -> dict | None:
    """One output without progress bars (a stderr stream left empty goes: None) and with its
    text (not its images) free of this machine's paths."""
    if out.get("output_type") == "stream":
        text = _text(out.get("text", ""))
        if out.get("name") == "stderr":
            text = quiet(text)
            if not text.strip():
                return None
        out["text"] = unlocal(text)
    for mime, value in out.get("data", {}).items():
        if mime.startswith("text/") and isinstance(value, (str, list)):
            out["data"][mime] = unlocal(_text(value))
    if "traceback" in out:
        out["traceback"] = [unlocal(line) for line in out["traceback"]]
    if "evalue" in out:
        out["evalue"] = unlocal(out["evalue"])
    return out


def _size(out: dict) -> int:
    """Characters of ``out`` that count against :data:`MAX_OUTPUT`: all but its images."""
    return len(json.dumps({**out, "data": {k: v for k, v in out.get("data", {}).items() if not k.startswith("image/")}}))


def strip(nb: dict, limit: int = MAX_OUTPUT) -> dict:
    """``nb`` without saved widget state or progress bars, its outputs free of this machine's
    paths (:func:`clean`), and with every output over ``limit`` characters (images not counted)
    replaced by a note.

    >>> nb = {"metadata": {"widgets": {}}, "cells": [{"cell_type": "code", "outputs": [
    ...     {"output_type": "display_data", "data": {"text/plain": "a slider", WIDGET: {}}}, {"output_type": "stream", "text": "x" * 200}]}]}
    >>> out = strip(nb, limit=100)["cells"][0]["outputs"]
    >>> "widgets" in nb["metadata"], out[0]["data"], out[1]["text"].startswith("[an output of 2")
    (False, {'text/plain': 'a slider'}, True)
    """
    nb.get("metadata", {}).pop("widgets", None)
    papermill = nb.get("metadata", {}).get("papermill", {})
    for key in ("input_path", "output_path"):  # papermill records where the run's checkout lay
        if isinstance(papermill.get(key), str):
            papermill[key] = unlocal(papermill[key])
    for cell in nb.get("cells", []):
        outputs = []
        for out in cell.get("outputs", []):
            out.get("data", {}).pop(WIDGET, None)
            out = clean(out)
            if out is None:
                continue
            size = _size(out)
            if size > limit:
                out = {"output_type": "stream", "name": "stdout",
                       "text": f"[an output of {size:,} characters is left out of the committed copy; "
                               "make reproduce shows it in results/executed/]\n"}
            outputs.append(out)
        if "outputs" in cell:
            cell["outputs"] = outputs
    return nb


def keep(root: Path = paths.ROOT) -> dict[str, str]:
    """Keep each labelled notebook of ``root/results/executed``; returns ``{name: why}`` for each one seen."""
    seen = {}
    for src in sorted((root / "results" / "executed").glob("[0-9][0-9]_*.ipynb")):
        nb = read_notebook(src)
        rec = root / "results" / f"{src.stem}.json"
        tag = label(nb, read_record(rec, writer(rec)) if rec.is_file() else None)
        if tag is None:
            seen[src.name] = "not kept: SMOKE, or its record is from another run (commit unknown)"
            continue
        nb.setdefault("metadata", {})["pearl"] = tag
        write_atomic(root / "results" / KEPT / src.name, json.dumps(strip(nb), indent=1, ensure_ascii=False, allow_nan=False) + "\n")
        seen[src.name] = f"kept: commit {tag['commit']}, profile {tag['profile']}"
    return seen


def tidy(root: Path = paths.ROOT) -> list[str]:
    """Apply :func:`strip` to the copies already kept in ``root/results/notebooks``; returns
    the names of those it changed. Idempotent: a second call changes nothing."""
    changed = []
    for path in sorted((root / "results" / KEPT).glob("[0-9][0-9]_*.ipynb")):
        before = path.read_text(encoding="utf8")
        after = json.dumps(strip(read_notebook(path)), indent=1, ensure_ascii=False, allow_nan=False) + "\n"
        if after != before:
            write_atomic(path, after)
            changed.append(path.name)
    return changed


if __name__ == "__main__":
    if "--tidy" in sys.argv[1:]:
        print("tidied:", ", ".join(tidy()) or "nothing to change")
        sys.exit(0)
    for name, why in keep().items():
        print(f"{name}: {why}")
    sys.exit(0)
