"""The executed notebooks kept in the repository (``results/notebooks/``), so that a fresh
clone's site (``make site``) shows real outputs before anyone runs the 3-hour batch.

:func:`keep` copies each full-size notebook that the last batch run left in
``results/executed/`` (git-ignored, written by papermill) to ``results/notebooks/``: saved widget
state dropped (its renderer would load from a CDN; the widgets' text fallback stays), any output
larger than :data:`MAX_OUTPUT` replaced by a note, and labelled in its metadata (``pearl``) with
the commit and profile of the run, read from the notebook's own record ``results/<name>.json``
when that record was written during the notebook's run. A SMOKE notebook, or one whose record
is from another run (so its commit is unknown), is not kept. ``make site`` runs it first.
"""
from __future__ import annotations

import json
import sys
from datetime import datetime
from pathlib import Path

from pearl import paths
from pearl.atomic import write_atomic
from pearl.outputs import read_record

KEPT = "notebooks"  # under results/
MAX_OUTPUT = 400_000  # characters of one output's data; larger ones are left out of the kept copy
WIDGET = "application/vnd.jupyter.widget-view+json"


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


def strip(nb: dict, limit: int = MAX_OUTPUT) -> dict:
    """``nb`` without saved widget state and with every output over ``limit`` characters replaced by a note.

    >>> nb = {"metadata": {"widgets": {}}, "cells": [{"cell_type": "code", "outputs": [
    ...     {"output_type": "display_data", "data": {"text/plain": "a slider", WIDGET: {}}}, {"output_type": "stream", "text": "x" * 200}]}]}
    >>> out = strip(nb, limit=100)["cells"][0]["outputs"]
    >>> "widgets" in nb["metadata"], out[0]["data"], out[1]["text"].startswith("[an output of 2")
    (False, {'text/plain': 'a slider'}, True)
    """
    nb.get("metadata", {}).pop("widgets", None)
    for cell in nb.get("cells", []):
        outputs = []
        for out in cell.get("outputs", []):
            out.get("data", {}).pop(WIDGET, None)
            size = len(json.dumps(out))
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
        tag = label(nb, read_record(rec) if rec.is_file() else None)
        if tag is None:
            seen[src.name] = "not kept: SMOKE, or its record is from another run (commit unknown)"
            continue
        nb.setdefault("metadata", {})["pearl"] = tag
        write_atomic(root / "results" / KEPT / src.name, json.dumps(strip(nb), indent=1, ensure_ascii=False, allow_nan=False) + "\n")
        seen[src.name] = f"kept: commit {tag['commit']}, profile {tag['profile']}"
    return seen


if __name__ == "__main__":
    for name, why in keep().items():
        print(f"{name}: {why}")
    sys.exit(0)
