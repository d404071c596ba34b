"""The batch builder alone, on one core: gathering a step from the arrays against today's Collator, in one run.

Usage: PYTHONPATH=lib .venv/bin/python perf/batch_builder.py [--batch-size 512] [--steps 4] [--gathers 400]

On notebook 03's training data when it is there (``data/derived``: the corpus, every phrase's mined hard
negatives, the augmentation lexicons, the pearl augmenter), else on the stand-in inputs of
``perf/train_throughput.py`` (PPDB phrases, stride negatives, an augmenter without tables; said in
the record). Batch 512, 2 hard negatives, character ids, one torch thread, in this process's CPU
time (:data:`CLOCK`; the load average is recorded at the start and the end):

- **collator**: :class:`pearl.training.batches.Collator` builds ``--steps`` steps (augment, draw
  negatives, tokenise, byte ids), what each training step does today;
- **draw**: :func:`pearl.training.arrays.draw` of the same steps in one process: the same Python
  work (the Collator's own draws) plus tokenising the distinct texts once. Done once per run before
  the loop, in ``num_workers`` processes; its rate per core says how long a run's drawing takes;
- **gather**: :meth:`pearl.training.arrays.StepArrays.batch` of those steps, ``--gathers`` times in
  turn: what the training loop then does per step (``pad_multiple`` 1, the CPU's exact widths, and 8,
  the GPU's).

It checks that every gathered batch equals the Collator's (same tensors) and prints the phrases/s of
each and the gather's ratio to the Collator. Writes ``results/perf/batch_builder.json`` and ``.md``.
"""
from __future__ import annotations

import argparse
import os
import time

import torch

#: the clock of every rate: this process's CPU time (the CPU is shared; see perf/train_step_floor.py)
CLOCK = time.process_time


def inputs(n: int | None):
    """(phrases, label ids, hard negatives, augmenter factory, source): notebook 03's data, or the stand-in."""
    from pearl.corpus.phrases import LABELS

    try:
        from pearl.training.methods import augmenter_for
        from pearl.training.profiles import load_training_data

        corpus, negs, tables = load_training_data()
        source = "data/derived: phrases.tsv, hard_negatives.json, augment/ (notebooks 01-02), pearl augmenter"
        augmenter = augmenter_for("pearl", tables)
    except FileNotFoundError:
        from train_throughput import timing_inputs

        phrases, labels, negs, augmenter, source = timing_inputs(n or 20_000)
        return phrases, labels, negs, augmenter, f"stand-in: {source}, stride hard negatives, augmenter without tables"
    corpus = corpus[:n] if n else corpus
    return [p for p, _ in corpus], [LABELS.index(t) for _, t in corpus], negs, augmenter, source


def rate(fn, phrases_per_call: int, calls: int) -> float:
    """Phrases/s of ``calls`` calls of ``fn(i)`` (after one untimed call)."""
    fn(0)
    t0 = CLOCK()
    for i in range(calls):
        fn(i)
    return phrases_per_call * calls / (CLOCK() - t0)


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch-size", type=int, default=512)
    ap.add_argument("--steps", type=int, default=4, help="steps the Collator builds and the arrays draw")
    ap.add_argument("--gathers", type=int, default=400, help="steps gathered from the arrays (the drawn ones in turn)")
    ap.add_argument("--phrases", type=int, default=None, help="use the corpus's first N phrases (default all)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    load_start = [round(x, 2) for x in os.getloadavg()]

    from pearl.models import load_backbone
    from pearl.paths import results_dir
    from pearl.provenance import hardware, stamp, write_json
    from pearl.training import arrays
    from pearl.training.batches import BatchPlan, Collator

    phrases, labels, negs, augmenter, source = inputs(args.phrases)
    _, tok = load_backbone("minilm")
    collator = Collator(tok, phrases, labels, negs, augmenter, k=2, use_char=True, seed=0)
    plan = BatchPlan(len(phrases), args.batch_size, seed=0, epochs=max(1, -(-args.steps * args.batch_size // len(phrases))))
    b, s = args.batch_size, args.steps
    record = {"batch_size": b, "hard_negatives": 2, "char_ids": True, "threads": 1, "source": source,
              "phrases": len(phrases), "steps": s, "gathers": args.gathers, "clock": "process CPU time",
              "load_average_start": load_start, "phrases_per_s": {}}
    record["phrases_per_s"]["collator"] = rate(lambda i: collator(i % s, plan.indices(i % s)), b, s)
    t0 = CLOCK()
    drawn = arrays.draw(collator, plan, s)
    record["phrases_per_s"]["draw_once"] = b * s / (CLOCK() - t0)
    for pad in (1, 8):
        steps = arrays.StepArrays(drawn, pad_multiple=pad)
        record["phrases_per_s"][f"gather_pad{pad}"] = rate(lambda i: steps.batch(i % s), b, args.gathers)
    exact = arrays.StepArrays(drawn)
    record["same_batches"] = all(
        all(torch.equal(u, v) for u, v in zip(exact.batch(t)["inputs"].values(), collator(t, plan.indices(t))["inputs"].values()))
        for t in range(s))
    r = record["phrases_per_s"]
    record["phrases_per_s"] = {k: round(v) for k, v in r.items()}
    record["gather_over_collator"] = round(r["gather_pad1"] / r["collator"], 1)
    record["draw_over_collator"] = round(r["draw_once"] / r["collator"], 2)
    record["acceptance"] = {"gather_at_least_100000": r["gather_pad1"] >= 100_000}
    record["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
    record.update(hardware=hardware(), **stamp())
    out = args.out or results_dir("perf", "batch_builder.json")
    write_json(out, record, indent=1)
    text = markdown(record)
    from pearl.atomic import write_atomic

    write_atomic(str(out).removesuffix(".json") + ".md", text)
    print(text)
    return record


def markdown(rec: dict) -> str:
    """The record as a short Markdown page (through :mod:`pearl.tabular`)."""
    import pandas as pd

    from pearl.tabular import Table, cell, render

    what = {"collator": "today's Collator, per step (augment, negatives, tokenise, byte ids)",
            "draw_once": "arrays.draw: the same draws and tokenising, once per run before the loop (per core)",
            "gather_pad1": "StepArrays.batch: a step gathered by index (exact widths, CPU)",
            "gather_pad8": "StepArrays.batch: widths rounded up to a multiple of 8 (GPU)"}
    p = rec["phrases_per_s"]
    rows = [{"builder": k, "phrases/s (one core)": cell(v, digits=",.0f"),
             "× Collator": cell(v / p["collator"], digits=",.1f"), "what": what[k]} for k, v in p.items()]
    head = (f"# The batch builder on one core (`perf/batch_builder.py`)\n\nBatch {rec['batch_size']}, 2 hard negatives, "
            f"character ids; {rec['phrases']:,} phrases from {rec['source']}. Measured on this machine's CPU "
            f"(process CPU time; load average {rec['load_average_start']} at the start, {rec['load_average_end']} at "
            f"the end). Gathered batches equal the Collator's: {rec['same_batches']}.")
    note = ("The gather is what a training step waits for; the draw is the Python work of today's Collator moved out "
            "of the loop, done once per run in worker processes (pearl.training.arrays).")
    return render(Table(pd.DataFrame(rows), head=head, notes=[note], plain=True), "md") + "\n"


if __name__ == "__main__":
    main()
