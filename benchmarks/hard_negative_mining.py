"""Hard-negative mining at scale: exact blocking against the faiss n-gram search, then every phrase.

    .venv/bin/python benchmarks/hard_negative_mining.py [--sample 5000] [--encode-sample 500] [--scale 1000000]
        [--index ivf --nlist 2048 --nprobe 16 --probe 256 --dim 256] [--out results/hard_negatives_scale.json]

The pool is every distinct phrase of the ``wikipedia-10x`` corpus's parse (frequency >= 1,
about 1.6 million; the corpus trains on those seen twice). In one run:

1. **Sample.** ``--sample`` anchors drawn at random (seed 0) are mined against the whole pool
   both ways (:func:`pearl.corpus.hard_negatives.candidate_lists`: ``exact`` blocking, and
   ``ann``, whose index build is timed apart from its search), then the corpus's augmentation
   tables remove each anchor's own synonyms. Printed: the seconds of each, their ratio, the
   recall of the approximate candidate lists against the exact ones, and the floor of an exact
   search over the same n-gram vectors (``2 * anchors * pool * dim`` FLOPs at the fp32 rate of a
   2048x2048 matmul measured here; a flat search is the obvious exact alternative to the index).
2. **Hard negatives.** For the first ``--encode-sample`` anchors of the sample, the anchors and
   both methods' candidates are encoded (:func:`pearl.encode.encode` through the embedding
   cache) and each keeps its ``k`` lowest-cosine candidates: recall@k of the approximate hard
   negatives against the exact ones.
3. **Scale.** The approximate candidates and exclusions for the ``--scale`` most frequent phrases
   of the pool (0: all of them) against the whole pool: wall time,
   anchors/s and peak resident memory. Selecting the negatives needs every phrase's vector; the
   encode rate is measured here without the cache (``--encode-rate-n`` phrases) and the time to
   encode the whole pool is projected from it, not run (hours on two CPU cores).

Other processes sharing the cores skew timings: the load average is recorded before and after.
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
RECORD = Path(__file__).resolve().parents[1] / "results" / "hard_negatives_scale.json"


def pool_phrases(corpus: str) -> list[str]:
    """Every distinct phrase of ``corpus``'s parse, most frequent first (its builds must exist)."""
    from pearl.corpus import build, variants

    dirs = [build.Settings(s, chunk_articles=50).folder() for s in variants.CORPORA[corpus].samples]
    rows, _ = build.merge(dirs, min_freq=1)
    return [r[0] for r in rows if r[0].strip()]


def recall(approx: list[list], exact: list[list], distance=None) -> dict:
    """Micro recall of ``approx`` lists against ``exact`` ones (anchors with an empty exact list add
    nothing). With ``distance(anchor no., item)``, also the tie-aware recall: an approximate item
    counts if it is no farther than the exact list's farthest (exact mining breaks ties by id, so
    an equally close phrase is as good a candidate), at most ``len(exact)`` per anchor."""
    hit = sum(len(set(a) & set(e)) for a, e in zip(approx, exact))
    total = sum(len(e) for e in exact)
    same = float(np.mean([a == e for a, e in zip(approx, exact)])) if exact else None
    out = {"recall": hit / total if total else None, "exact_items": total, "share_identical_lists": same}
    if distance is not None and total:
        tied = 0
        for r, (a, e) in enumerate(zip(approx, exact)):
            if e:
                worst = max(distance(r, j) for j in e)
                tied += min(len(e), sum(distance(r, j) <= worst + 1e-12 for j in a))
        out["recall_ties_count"] = tied / total
    return out


def peak_rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", default="wikipedia-10x")
    parser.add_argument("--model", default="minilm")
    parser.add_argument("--pool", type=int, default=0, help="SMOKE: keep only the most frequent phrases (0: all)")
    parser.add_argument("--sample", type=int, default=5_000, help="anchors mined both ways")
    parser.add_argument("--encode-sample", type=int, default=500, help="of those, anchors whose negatives are selected")
    parser.add_argument("--scale", type=int, default=1_000_000, help="anchors of the scale run, most frequent first (0: every phrase)")
    parser.add_argument("--slice", type=int, default=100_000, help="anchors per slice of the scale run")
    parser.add_argument("--encode-rate-n", type=int, default=1_000, help="phrases encoded without cache to time encoding")
    parser.add_argument("--index", default="ivf")
    parser.add_argument("--dim", type=int, default=256)
    parser.add_argument("--nlist", type=int, default=2048)
    parser.add_argument("--nprobe", type=int, default=16)
    parser.add_argument("--probe", type=int, default=256)
    parser.add_argument("--k", type=int, default=12)
    parser.add_argument("--limit", type=int, default=32)
    parser.add_argument("--max-distance", type=float, default=0.5)
    parser.add_argument("--out", default=None, help="a JSON file for the record")
    args = parser.parse_args()
    if args.pool and args.out and Path(args.out).resolve() == RECORD.resolve():
        parser.error(f"a SMOKE run (--pool) never writes {RECORD.name}: pass another --out")

    from scoring_floor import matmul_rate

    from pearl.corpus import hard_negatives as hn
    from pearl.corpus.augment import load_tables
    from pearl.corpus.ngram_search import AnnSettings, NgramIndex
    from pearl.corpus.variants import files
    from pearl.encode import encode
    from pearl.models import load_model
    from pearl.provenance import git_state, hardware

    t_start = time.perf_counter()
    record = {"hardware": hardware(), **git_state(), "load_average_start": os.getloadavg(), "args": vars(args)}
    rate = matmul_rate()
    record["matmul_gflops"] = round(rate / 1e9, 1)
    print(f"sustained fp32 matmul (2048^2): {rate / 1e9:.1f} GFLOPS; load average {os.getloadavg()}", flush=True)

    t0 = time.perf_counter()
    phrases = pool_phrases(args.corpus)[: args.pool or None]
    tables = load_tables(files(args.corpus)["augment"])
    n = len(phrases)
    record["pool"] = {"phrases": n, "load_s": round(time.perf_counter() - t0, 1)}
    print(f"pool: {n:,} distinct phrases of {args.corpus} ({record['pool']['load_s']} s to merge)", flush=True)
    settings = AnnSettings(index=args.index, dim=args.dim, nlist=args.nlist, nprobe=args.nprobe, probe=args.probe)
    record["settings"] = {**vars(settings), "nlist_used": settings.cells(n)}
    kw = dict(max_distance=args.max_distance, limit=args.limit)

    # 1. The sample, both ways (imports both share first, so neither timing pays for them)
    import rapidfuzz.process  # noqa: F401
    from spacy.lang.en.stop_words import STOP_WORDS  # noqa: F401

    sample = sorted(np.random.default_rng(0).choice(n, size=min(args.sample, n), replace=False).tolist())
    t0 = time.perf_counter()
    exact = hn.admissible(phrases, sample, hn.candidate_lists(phrases, sample, "exact", max_block=2000, **kw), tables)
    exact_s = time.perf_counter() - t0
    print(f"exact blocking: {len(sample):,} anchors in {exact_s:.1f} s", flush=True)
    t0 = time.perf_counter()
    ngram = NgramIndex(phrases, settings, max_block=2000, limit=args.limit)
    build_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    approx = hn.admissible(phrases, sample, ngram.candidates(sample, **kw), tables)
    search_s = time.perf_counter() - t0
    floor_s = 2 * len(sample) * n * args.dim / rate
    from rapidfuzz.distance import Levenshtein

    cand = recall(approx, exact, lambda r, j: Levenshtein.normalized_distance(phrases[sample[r]], phrases[j]))
    record["sample"] = {
        "anchors": len(sample), "exact_s": round(exact_s, 1), "ann_build_s": round(build_s, 1),
        "ann_search_s": round(search_s, 1), "exact_over_ann": round(exact_s / (build_s + search_s), 2),
        "exact_over_ann_search": round(exact_s / search_s, 2),
        "flat_search_floor_s": round(floor_s, 1), "ann_search_over_floor": round(search_s / floor_s, 3),
        "candidate_recall": cand, "mean_candidates_exact": float(np.mean([len(e) for e in exact])),
        "mean_candidates_ann": float(np.mean([len(a) for a in approx]))}
    print(f"ann ({settings.index}, nlist {settings.cells(n)}, nprobe {settings.nprobe}, probe {settings.probe}, "
          f"dim {settings.dim}): build {build_s:.1f} s + search {search_s:.1f} s | exact / ann {exact_s / (build_s + search_s):.2f}x "
          f"(search only {exact_s / search_s:.2f}x) | floor of a flat exact search over the same vectors {floor_s:.1f} s "
          f"(ann search {search_s / floor_s:.3f}x it) | candidate recall {cand['recall']:.4f} "
          f"({cand.get('recall_ties_count', 0):.4f} counting equally close ones), identical lists "
          f"{cand['share_identical_lists']:.4f}", flush=True)
    save(record, args)

    # 2. Hard negatives on a sub-sample: encode what both need, select k lowest cosine
    sub = min(args.encode_sample, len(sample))
    model = load_model(args.model)
    need = sorted(set(sample[:sub]) | {j for c in exact[:sub] + approx[:sub] for j in c})
    t0 = time.perf_counter()
    vecs = dict(zip(need, encode(model, [phrases[j] for j in need])))
    enc_s = time.perf_counter() - t0
    neg_e, cos_e = hn.select(phrases, sample[:sub], exact[:sub], vecs, args.k)
    neg_a, cos_a = hn.select(phrases, sample[:sub], approx[:sub], vecs, args.k)
    keys = [phrases[i] for i in sample[:sub]]
    neg = recall([neg_a.get(p, []) for p in keys], [neg_e.get(p, []) for p in keys])
    record["negatives"] = {"anchors": sub, "encoded": len(need), "encode_s_with_cache": round(enc_s, 1),
                           "k": args.k, "recall_at_k": neg, "anchors_with_negatives_exact": len(neg_e),
                           "anchors_with_negatives_ann": len(neg_a),
                           "mean_cosine_exact": float(np.mean(cos_e)) if cos_e else None,
                           "mean_cosine_ann": float(np.mean(cos_a)) if cos_a else None}
    print(f"hard negatives of {sub:,} anchors ({len(need):,} phrases encoded, {enc_s:.1f} s with the cache): "
          f"recall@{args.k} {neg['recall']:.4f}, identical lists {neg['share_identical_lists']:.4f}", flush=True)

    # encode rate without the cache, for the projection
    fresh = [phrases[j] for j in range(n - 1, -1, -max(1, n // args.encode_rate_n))][: args.encode_rate_n]
    inner = model.extra.get("inner", model)
    encode(inner, fresh[:256])  # warm-up
    t0 = time.perf_counter()
    encode(inner, fresh)
    per_s = len(fresh) / (time.perf_counter() - t0)
    record["encode"] = {"phrases": len(fresh), "phrases_per_s": round(per_s, 1),
                        "projected_pool_encode_h": round(n / per_s / 3600, 2)}
    print(f"encode without cache: {per_s:.0f} phrases/s -> {n / per_s / 3600:.1f} h to encode the whole pool (projected)",
          flush=True)
    save(record, args)

    # 3. Scale: the --scale most frequent phrases as anchors, in slices; the record is written after
    # each, so a run stopped early still says how far it got (``complete: false``)
    anchors, done, counts = args.scale or n, 0, []
    t0 = time.perf_counter()
    while done < anchors:
        part = list(range(done, min(done + args.slice, anchors)))
        counts += [len(c) for c in hn.admissible(phrases, part, ngram.candidates(part, **kw), tables)]
        done += len(part)
        scale_s = time.perf_counter() - t0
        c = np.array(counts)
        record["scale"] = {"anchors": anchors, "anchors_done": done, "complete": done == anchors,
                           "search_and_exclusions_s": round(scale_s, 1), "with_build_s": round(scale_s + build_s, 1),
                           "anchors_per_s": round(done / scale_s, 1), "peak_rss_mb": peak_rss_mb(),
                           "share_with_candidates": float(np.mean(c > 0)),
                           "share_with_k_candidates": float(np.mean(c >= args.k)),
                           "mean_admissible_candidates": float(c.mean()), "load_average": os.getloadavg()}
        print(f"scale: {done:,} of {anchors:,} anchors, candidates and exclusions in {scale_s:.1f} s "
              f"(+ {build_s:.1f} s index build), {done / scale_s:.0f} anchors/s, peak RSS {peak_rss_mb():,.0f} MB; "
              f"{np.mean(c > 0):.3f} of anchors have a candidate, {np.mean(c >= args.k):.3f} at least {args.k}", flush=True)
        save(record, args)
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
