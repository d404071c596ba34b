"""Hard-negative mining at scale: exact candidates block by block, against the per-anchor loop,
the Levenshtein kernel's floor and the faiss n-gram search; then a million anchors, end to end.

    .venv/bin/python perf/hard_negative_mining.py [--corpus whole --min-freq 2] [--sample 5000]
        [--encode-sample 500] [--scale 1000000 --scale-method both] [--index ivf --nlist 2048 --nprobe 16
        --probe 256 --dim 256] [--out results/perf/hard_negatives_scale.json]

The pool is the training corpus at the paper's scale: every phrase of the whole offline Wikipedia
copy seen at least twice (``--corpus whole``: the gpu profile's sample, 1.9 million phrases, built
once by ``scripts/whole_corpus.py``), or of a named corpus of :mod:`pearl.corpus.variants`.
Its augmentation lexicons, which decide what may not be a hard negative, are built in the run by
notebook 02's function (:func:`pearl.corpus.training_inputs.build_lexicons`, timed). In one run:

1. **Sample.** ``--sample`` anchors drawn at random (seed 0) get their candidates three ways:
   the per-anchor loop (each anchor against the union of its blocks, ``process.extract``: the
   obvious implementation, and the library's until it was replaced), the library's block-by-block
   ``cdist`` (:func:`pearl.corpus.hard_negatives.edit_candidates`; the two must give identical
   lists), and the approximate faiss search (:mod:`pearl.corpus.ngram_search`, index build timed
   apart). The floor is the pairs the blocks compare, at the rate of the Levenshtein kernel itself
   (one large ``cdist`` of pool phrases on every core). Printed: seconds, ratios, and the recall
   of the approximate lists against the exact ones.
2. **Hard negatives on a sub-sample.** For ``--encode-sample`` anchors, both methods' candidates
   are encoded and each keeps its ``k`` lowest-cosine ones: recall@k of the approximate negatives.
3. **Scale.** The ``--scale`` most frequent phrases are mined end to end by ``--scale-method``
   (``exact`` blocking, ``ann``: the index of stage 1, or ``both``: each, then the approximate
   candidates and negatives scored against the exact ones at scale too): candidates, exclusions
   (:func:`~pearl.corpus.hard_negatives.admissible`), encoding every anchor and candidate with
   the backbone (no embedding cache: the vectors would fill gigabytes of it), and the ``k``
   lowest-cosine candidates (:func:`~pearl.corpus.hard_negatives.select`). Each step's seconds,
   the encoder's FLOP floor at the sustained matmul rate, the peak resident memory and what the
   negatives look like. The negatives themselves go to ``--negatives`` (not committed: a
   hundred megabytes).

Other processes sharing the cores skew timings: the load average is recorded at each stage.
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
RECORD = Path(__file__).resolve().parents[1] / "results" / "perf" / "hard_negatives_scale.json"


def pool_phrases(corpus: str, min_freq: int) -> tuple[list[str], str]:
    """``(phrases, description)``: the distinct phrases of ``corpus``'s parse seen at least
    ``min_freq`` times, most frequent first (its builds must exist)."""
    from pearl.corpus import build, variants

    if corpus == "whole":
        samples, about = (build.PROFILE_SAMPLES["gpu"],), build.PROFILE_SAMPLES["gpu"].describe()
    elif corpus in variants.CORPORA:
        samples, about = variants.CORPORA[corpus].samples, variants.CORPORA[corpus].description
    else:
        raise SystemExit(f"unknown --corpus {corpus!r}: 'whole' or one of {', '.join(variants.CORPORA)}")
    dirs = [build.Settings(s, chunk_articles=50).folder() for s in samples]
    missing = [d for d in dirs if not build.chunks(d)]  # a folder that is not there holds no chunk
    if missing:
        raise SystemExit(f"{missing[0]} holds no build: run scripts/whole_corpus.py (--corpus whole) or "
                         f"pearl.corpus.variants.prepare({corpus!r}) first")
    rows, _ = build.merge(dirs, min_freq=min_freq)
    return [r[0] for r in rows if r[0].strip()], about


def per_anchor_loop(phrases: list[str], anchors: list[int], max_distance: float, limit: int, max_block: int):
    """The obvious implementation: each anchor against the union of its blocks, one ``extract`` each."""
    from collections import defaultdict

    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein

    from pearl.corpus.hard_negatives import blocks

    by_key = blocks(phrases, max_block)
    member = defaultdict(list)
    for key, ids in by_key.items():
        for i in ids:
            member[i].append(key)
    out = []
    for i in anchors:
        ids = sorted({j for key in member.get(i, ()) for j in by_key[key]} - {i})
        hits = process.extract(phrases[i], [phrases[j] for j in ids], scorer=Levenshtein.normalized_distance,
                               score_cutoff=max_distance, limit=limit) if ids else []
        out.append([ids[h[2]] for h in hits])
    return out


def block_pairs(phrases: list[str], anchors, max_block: int) -> int:
    """The (anchor, phrase) pairs the blocks compare: the exact method's Levenshtein evaluations."""
    from pearl.corpus.hard_negatives import blocks

    is_anchor = np.zeros(len(phrases), dtype=bool)
    is_anchor[np.asarray(anchors)] = True
    return int(sum(int(is_anchor[ids].sum()) * len(ids) for ids in map(np.asarray, blocks(phrases, max_block).values())))


def kernel_rate(phrases: list[str], n: int = 3000) -> float:
    """Normalised Levenshtein evaluations per second of rapidfuzz's ``cdist`` on every core, on
    ``n x n`` random pool phrases (the blocks' own pairs are alike: short phrases)."""
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein

    pick = [phrases[i] for i in np.random.default_rng(1).choice(len(phrases), size=n, replace=False)]
    process.cdist(pick[:200], pick[:200], scorer=Levenshtein.normalized_distance, workers=-1)  # warm-up
    t0 = time.perf_counter()
    process.cdist(pick, pick, scorer=Levenshtein.normalized_distance, score_cutoff=0.5, dtype=np.float64, workers=-1)
    return n * n / (time.perf_counter() - t0)


def recall(approx: list[list], exact: list[list]) -> dict:
    """Micro recall of ``approx`` lists against ``exact`` ones (anchors with an empty exact list add nothing)."""
    hit = sum(len(set(a) & set(e)) for a, e in zip(approx, exact))
    total = sum(len(e) for e in exact)
    same = float(np.mean([a == e for a, e in zip(approx, exact)])) if exact else None
    return {"recall": hit / total if total else None, "exact_items": total, "share_identical_lists": same}


def peak_rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", default="whole", help="'whole' (every article) or a pearl.corpus.variants name")
    parser.add_argument("--min-freq", type=int, default=2, help="the pool: phrases seen at least this often")
    parser.add_argument("--model", default="minilm")
    parser.add_argument("--pool", type=int, default=0, help="SMOKE: keep only the most frequent phrases (0: all)")
    parser.add_argument("--sample", type=int, default=5_000, help="random anchors mined three ways")
    parser.add_argument("--encode-sample", type=int, default=500, help="of those, anchors whose negatives are compared")
    parser.add_argument("--scale", type=int, default=1_000_000, help="anchors mined end to end, most frequent "
                        "first (0: skip this stage)")
    parser.add_argument("--scale-method", choices=("both", "exact", "ann"), default="both",
                        help="the scale stage's candidates (both: each way, then the one against the other)")
    parser.add_argument("--index", default="ivf")
    parser.add_argument("--dim", type=int, default=256)
    parser.add_argument("--nlist", type=int, default=2048)
    parser.add_argument("--nprobe", type=int, default=16)
    parser.add_argument("--probe", type=int, default=256)
    parser.add_argument("--k", type=int, default=12)
    parser.add_argument("--limit", type=int, default=32)
    parser.add_argument("--max-block", type=int, default=2000)
    parser.add_argument("--max-distance", type=float, default=0.5)
    parser.add_argument("--out", default=None, help="a JSON file for the record")
    parser.add_argument("--negatives", default=None, help="a JSON file for the scale run's hard negatives "
                        "(exact ones when both methods run)")
    args = parser.parse_args()
    if args.pool and args.out and Path(args.out).resolve() == RECORD.resolve():
        parser.error(f"a SMOKE run (--pool) never writes {RECORD.name}: pass another --out")

    from scoring_floor import flops, matmul_rate

    from pearl.corpus import hard_negatives as hn
    from pearl.corpus.ngram_search import AnnSettings, NgramIndex
    from pearl.corpus.training_inputs import build_lexicons
    from pearl.encode import encode
    from pearl.models import load_model
    from pearl.provenance import git_state, hardware

    t_start = time.perf_counter()
    record = {"hardware": hardware(), **git_state(), "load_average_start": os.getloadavg(), "args": vars(args)}
    rate = matmul_rate()
    record["matmul_gflops"] = round(rate / 1e9, 1)
    t0 = time.perf_counter()
    phrases, about = pool_phrases(args.corpus, args.min_freq)
    phrases = phrases[: args.pool or None]
    n = len(phrases)
    record["pool"] = {"corpus": about, "min_freq": args.min_freq, "phrases": n,
                      "load_s": round(time.perf_counter() - t0, 1)}
    t0 = time.perf_counter()
    lexicons = build_lexicons(phrases)
    record["pool"]["tables_s"] = round(time.perf_counter() - t0, 1)
    lev = kernel_rate(phrases, min(3000, n))
    record["levenshtein_pairs_per_s"] = round(lev)
    print(f"pool: {n:,} phrases seen at least {args.min_freq} times in {about} (lexicons "
          f"{record['pool']['tables_s']:.0f} s); sustained fp32 matmul {rate / 1e9:.1f} GFLOPS, "
          f"Levenshtein kernel {lev / 1e6:.1f} M pairs/s on {os.cpu_count()} cores; load {os.getloadavg()}", flush=True)
    kw = dict(max_distance=args.max_distance, limit=args.limit)

    # 1. The sample, three ways
    sample = sorted(np.random.default_rng(0).choice(n, size=min(args.sample, n), replace=False).tolist())
    t0 = time.perf_counter()
    loop = per_anchor_loop(phrases, sample, args.max_distance, args.limit, args.max_block)
    loop_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    raw = hn.edit_candidates(phrases, anchors=sample, max_block=args.max_block, **kw)
    exact_s = time.perf_counter() - t0
    pairs = block_pairs(phrases, sample, args.max_block)
    exact = hn.admissible(phrases, sample, raw, lexicons)
    settings = AnnSettings(index=args.index, dim=args.dim, nlist=args.nlist, nprobe=args.nprobe, probe=args.probe)
    record["settings"] = {**vars(settings), "nlist_used": settings.cells(n)}
    t0 = time.perf_counter()
    ngram = NgramIndex(phrases, settings, max_block=args.max_block, limit=args.limit)
    build_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    approx = hn.admissible(phrases, sample, ngram.candidates(sample, **kw), lexicons)
    search_s = time.perf_counter() - t0
    cand = recall(approx, exact)
    record["sample"] = {
        "anchors": len(sample), "per_anchor_loop_s": round(loop_s, 1), "exact_s": round(exact_s, 1),
        "identical_to_loop": raw == loop, "loop_over_exact": round(loop_s / exact_s, 1), "pairs": pairs,
        "floor_s": round(pairs / lev, 2), "exact_over_floor": round(exact_s / (pairs / lev), 1),
        "ann_build_s": round(build_s, 1), "ann_search_s": round(search_s, 1), "candidate_recall": cand,
        "mean_candidates_exact": float(np.mean([len(e) for e in exact])),
        "mean_candidates_ann": float(np.mean([len(a) for a in approx])), "load_average": os.getloadavg()}
    print(f"sample of {len(sample):,} anchors: per-anchor loop {loop_s:.1f} s, block by block {exact_s:.1f} s "
          f"({loop_s / exact_s:.1f}x faster; identical lists: {raw == loop}); {pairs:,} pairs compared, floor "
          f"{pairs / lev:.2f} s at the kernel's rate (block by block {exact_s / (pairs / lev):.1f}x it); approximate "
          f"({settings.index}, nprobe {settings.nprobe}, probe {settings.probe}): build {build_s:.1f} s + search "
          f"{search_s:.1f} s, candidate recall {cand['recall']:.4f}", flush=True)
    save(record, args)

    # 2. Hard negatives of a sub-sample, both ways
    sub = min(args.encode_sample, len(sample))
    model = load_model(args.model)
    inner = model.extra.get("inner", model)
    need = sorted(set(sample[:sub]) | {j for c in exact[:sub] + approx[:sub] for j in c})
    vecs = dict(zip(need, encode(inner, [phrases[j] for j in need])))
    neg_e, _ = hn.select(phrases, sample[:sub], exact[:sub], vecs, args.k)
    neg_a, _ = hn.select(phrases, sample[:sub], approx[:sub], vecs, args.k)
    keys = [phrases[i] for i in sample[:sub]]
    neg = recall([neg_a.get(p, []) for p in keys], [neg_e.get(p, []) for p in keys])
    record["negatives"] = {"anchors": sub, "encoded": len(need), "k": args.k, "recall_at_k": neg}
    print(f"hard negatives of {sub:,} anchors: recall@{args.k} of the approximate ones {neg['recall']:.4f}", flush=True)
    save(record, args)

    # 3. Scale: the most frequent phrases, end to end, by each method of --scale-method
    methods = ("exact", "ann") if args.scale_method == "both" else (args.scale_method,)
    if "ann" not in methods:
        del ngram
    if not args.scale:
        record["wall_time_s"] = round(time.perf_counter() - t_start, 1)
        save(record, args)
        return
    anchors = list(range(min(args.scale, n)))
    pairs = block_pairs(phrases, anchors, args.max_block)  # what exact blocking compares
    scale = {"anchors": len(anchors), "methods": list(methods), "complete": False, "pairs": pairs,
             "floor_s": round(pairs / lev, 1), "by_method": {}}
    record["scale"] = scale
    cands, own = {}, {}  # own: the phrases a method needs encoded (its anchors and candidates)
    for method in methods:
        t0 = time.perf_counter()
        if method == "ann":  # the index of stage 1: its build is timed there
            raw = ngram.candidates(anchors, progress=True, **kw)
            del ngram
        else:
            raw = hn.edit_candidates(phrases, anchors=anchors, max_block=args.max_block, progress=True, **kw)
        took = {"candidates_s": round(time.perf_counter() - t0, 1)}
        t0 = time.perf_counter()
        cands[method] = hn.admissible(phrases, anchors, raw, lexicons)
        del raw
        took["exclusions_s"] = round(time.perf_counter() - t0, 1)
        own[method] = set(anchors).union(*map(set, cands[method]))
        took["needs_encoding"] = len(own[method])
        took["mean_candidates"] = float(np.mean([len(c) for c in cands[method]]))
        scale["by_method"][method] = took
        print(f"scale: {method} candidates of {len(anchors):,} anchors in {took['candidates_s']:,.0f} s (exact "
              f"blocking compares {pairs:,} pairs: {scale['floor_s']:,.0f} s at the kernel's rate), exclusions "
              f"{took['exclusions_s']:,.0f} s; {took['needs_encoding']:,} phrases to encode; load {os.getloadavg()}",
              flush=True)
        save(record, args)
    if len(methods) == 2:
        scale["candidate_recall"] = recall(cands["ann"], cands["exact"])
    need = sorted(set().union(*own.values()))
    del own
    texts = [phrases[j] for j in need]
    t0 = time.perf_counter()
    encoded = encode(inner, texts, progress=True)
    scale["encode_s"] = round(time.perf_counter() - t0, 1)
    vectors = np.zeros((n, encoded.shape[1]), dtype=np.float32)
    vectors[need] = encoded
    del encoded
    scale["encoded"] = len(need)
    scale["encode_phrases_per_s"] = round(len(need) / scale["encode_s"], 1)
    scale["encode_floor_s"] = round(flops(model, texts) / rate, 1)
    scale["encode_over_floor"] = round(scale["encode_s"] / scale["encode_floor_s"], 2)
    del texts
    negatives = {}
    for method in methods:
        took = scale["by_method"][method]
        t0 = time.perf_counter()
        negatives[method], cosines = hn.select(phrases, anchors, cands[method], vectors, args.k)
        took["select_s"] = round(time.perf_counter() - t0, 1)
        counts = np.array([len(negatives[method].get(phrases[i], ())) for i in anchors])
        # each method's own encoding at the run's rate: what mining this way alone would take
        took["total_s"] = round(took["candidates_s"] + took["exclusions_s"] + took["select_s"]
                                + took["needs_encoding"] / scale["encode_phrases_per_s"], 1)
        took.update({"anchors_with_negatives": int((counts > 0).sum()), "share_with_k": float(np.mean(counts >= args.k)),
                     "mean_negatives": float(counts.mean()), "mean_cosine_hard_negative": float(np.mean(cosines))})
    if len(methods) == 2:
        keys = [phrases[i] for i in anchors]
        scale["negatives_recall_at_k"] = recall([negatives["ann"].get(p, []) for p in keys],
                                                [negatives["exact"].get(p, []) for p in keys])
    pick = np.random.default_rng(0).choice(need, size=(2, 20_000))
    scale.update({"complete": True,
                  "mean_cosine_random_pair": float(np.mean(np.sum(vectors[pick[0]] * vectors[pick[1]], axis=1))),
                  "peak_rss_mb": peak_rss_mb(), "load_average": os.getloadavg()})
    for method, took in scale["by_method"].items():
        print(f"scale, {method}: {len(anchors):,} anchors mined in {took['total_s']:,.0f} s (candidates "
              f"{took['candidates_s']:,.0f}, exclusions {took['exclusions_s']:,.0f}, encoding {took['needs_encoding']:,} "
              f"phrases at the run's rate, selection {took['select_s']:,.0f}); {took['anchors_with_negatives']:,} anchors "
              f"have negatives, {took['share_with_k']:.3f} all {args.k}; mean cosine "
              f"{took['mean_cosine_hard_negative']:.3f} (random pairs {scale['mean_cosine_random_pair']:.3f})", flush=True)
    print(f"scale: encoding {len(need):,} phrases took {scale['encode_s']:,.0f} s, {scale['encode_over_floor']:.2f}x its "
          f"FLOP floor; peak RSS {scale['peak_rss_mb'] / 1024:.1f} GB", flush=True)
    if len(methods) == 2:
        print(f"scale, approximate against exact: candidate recall {scale['candidate_recall']['recall']:.4f}, "
              f"recall@{args.k} of the negatives {scale['negatives_recall_at_k']['recall']:.4f}", flush=True)
    if args.negatives:
        hn.write_hard_negatives(negatives[methods[0]], Path(args.negatives))
    record["load_average_end"] = os.getloadavg()
    record["wall_time_s"] = round(time.perf_counter() - t_start, 1)
    save(record, args)
    print(f"wrote {args.out}" if args.out else "no --out: nothing written")


def save(record: dict, args) -> None:
    """Write the record so far (atomically); a cut pool is SMOKE and never the default file."""
    from pearl.provenance import write_json

    if args.pool:
        record["smoke"] = "SMOKE: the pool is cut to its most frequent phrases"
    if args.out:
        write_json(Path(args.out), record)


if __name__ == "__main__":
    main()
