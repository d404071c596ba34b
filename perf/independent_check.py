"""Independent re-implementation of the benchmark protocols, to check pearl.benchmark.evaluate.

    .venv/bin/python perf/independent_check.py [--ours results/table1.csv] [--model minilm]

Same protocols, different code path: vectors from ``SentenceTransformer.encode`` (not
pearl.encode), cosines with numpy, Pearson from ``numpy.corrcoef``, the PPDB probe with
scikit-learn's ``MLPClassifier`` (256 ReLU units, Adam lr 1e-4, batch 200, one
``partial_fit`` per epoch with the protocol's early stopping written out: patience 5 on a
15 % validation share, at most 100 epochs, best weights restored; split by
``train_test_split``), nearest neighbours with ``sklearn.neighbors.NearestNeighbors``
(cosine, brute force), KMeans + NMI from scikit-learn. Turney ties are broken in favour of
the gold (``np.argmax``, as in the reference code) — with real-valued cosines ties do not
occur. Retrieval is checked against the gold-names-only dictionary (the stand-in
dictionaries are pearl's own construction).

Prints both scores side by side with the acceptance tolerance: 1 point on PPDB, Turney,
BIRD, AutoFJ; 3 on PPDB-filtered, CoNLL, BC5CDR.
"""
import argparse
import json
import os
import time

import numpy as np

TOLERANCE = {"ppdb": 1, "turney": 1, "bird": 1, "autofj": 1, "ppdb_filtered": 3, "conll": 3, "bc5cdr": 3}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ours", default="results/table1.csv")
    parser.add_argument("--ours-json", default="results/04_benchmark.json")
    parser.add_argument("--model", default="minilm")
    parser.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: default)")
    parser.add_argument("--save", default="results/perf/independent_check.json", help="where its own scores go")
    parser.add_argument("--compare-only", action="store_true", help="reuse the scores saved by an earlier run")
    parser.add_argument("--only", nargs="+", help="run only these checks (e.g. turney bird)")
    parser.add_argument("--skip-autofj", action="store_true", help="skip AutoFJ (183K titles to encode)")
    parser.add_argument("--skip-retrieval", action="store_true", help="skip the gold-names-only retrieval check")
    args = parser.parse_args()
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)

    from sentence_transformers import SentenceTransformer
    from sklearn.cluster import KMeans
    from sklearn.metrics import normalized_mutual_info_score
    from sklearn.model_selection import train_test_split
    from sklearn.neighbors import NearestNeighbors
    from sklearn.neural_network import MLPClassifier

    from pearl import data
    from pearl.provenance import git_sha, write_json
    from pearl.models import default_backbone_path

    st = SentenceTransformer(str(default_backbone_path()), device="cpu")
    vec = lambda texts: st.encode(list(texts), batch_size=128, normalize_embeddings=True, convert_to_numpy=True)
    mine, seconds = {}, {}

    def timed(key, fn):
        if args.only and key not in args.only:
            return
        t0 = time.perf_counter()
        mine[key] = fn()
        seconds[key] = time.perf_counter() - t0
        print(f"{key:<14} {mine[key]:6.2f}  ({seconds[key]:.0f} s)", flush=True)

    def sk_probe(x, y, seed):
        """The protocol's probe on scikit-learn's MLP, one ``partial_fit`` per epoch.

        The loop is written out because ``MLPClassifier(early_stopping=True)`` means something
        else: an epoch whose validation score *ties* the best resets its patience counter and
        it stops only after patience + 1 epochs without a gain. With accuracy on ~2,300
        pairs ties are common, and on PPDB-filtered that rule ran 100 epochs where the
        protocol's patience-5 rule stops near epoch 10 (59.96 vs 56.20, measured). The split
        is scikit-learn's own (per seed), the initialisation its Glorot scheme, no L2 term.
        """
        x_tr, x_te, y_tr, y_te = train_test_split(x, y, test_size=0.15, random_state=seed)
        x_tr, x_va, y_tr, y_va = train_test_split(x_tr, y_tr, test_size=0.15 / 0.85, random_state=seed)
        clf = MLPClassifier(hidden_layer_sizes=(256,), activation="relu", solver="adam", learning_rate_init=1e-4,
                            batch_size=200, alpha=0.0, random_state=seed, shuffle=True)
        best, best_coefs, waited = -1.0, None, 0
        for _ in range(100):
            clf.partial_fit(x_tr, y_tr, classes=np.array([0, 1]))
            acc = clf.score(x_va, y_va)
            if acc > best:
                best, waited = acc, 0
                best_coefs = ([c.copy() for c in clf.coefs_], [b.copy() for b in clf.intercepts_])
            else:
                waited += 1
                if waited >= 5:
                    break
        clf.coefs_, clf.intercepts_ = best_coefs
        return 100 * clf.score(x_te, y_te)

    def ppdb(filtered):
        rows = data.read_ppdb(filtered)
        x = np.hstack([vec(r[0] for r in rows), vec(r[1] for r in rows)])
        y = np.array([int(r[2]) for r in rows])
        return float(np.mean([sk_probe(x, y, seed) for seed in (0, 1, 2)]))

    def turney():
        correct = 0
        for bigram, cands in data.read_turney():
            v = vec([bigram, *cands])
            correct += int(np.argmax(v[1:] @ v[0]) == 0)
        return 100 * correct / len(data.read_turney())

    def bird():
        rows = data.read_bird()
        cos = (vec(r[0] for r in rows) * vec(r[1] for r in rows)).sum(1)
        return 100 * float(np.corrcoef(cos, [r[2] for r in rows])[0, 1])

    def cluster(name):
        rows = data.read_typed_mentions(name, "test")
        labels = [t for _, t in rows]
        pred = KMeans(n_clusters=len(set(labels)), random_state=0, n_init=10).fit_predict(vec(m for m, _ in rows))
        return 100 * normalized_mutual_info_score(labels, pred)

    def nearest(queries, keys):
        nn = NearestNeighbors(n_neighbors=1, metric="cosine", algorithm="brute").fit(vec(keys))
        return nn.kneighbors(vec(queries), return_distance=False)[:, 0]

    def autofj():
        accs = []
        for name in data.autofj_names():
            left, right, gt = data.read_autofj(name)
            truth = {}
            for r, l in gt:
                truth.setdefault(r, set()).add(l)
            queries = [r for r in right if r in truth]
            idx = nearest(queries, left)
            accs.append(np.mean([left[i] in truth[q] for i, q in zip(idx, queries)]))
        return 100 * float(np.mean(accs))

    def retrieval_gold_only(name):
        pairs = data.read_retrieval(name)
        names = sorted({g for _, g in pairs})
        idx = nearest([m for m, _ in pairs], names)
        return 100 * float(np.mean([names[i] == g for i, (_, g) in zip(idx, pairs)]))

    if args.compare_only:
        mine.update(json.load(open(args.save))["scores"])
        return compare(mine, args)
    print(f"independent check of {args.model}; load average {os.getloadavg()}")
    timed("ppdb", lambda: ppdb(False))
    timed("ppdb_filtered", lambda: ppdb(True))
    timed("turney", turney)
    timed("bird", bird)
    timed("conll", lambda: cluster("conll"))
    timed("bc5cdr", lambda: cluster("bc5cdr"))
    if not args.skip_autofj:
        timed("autofj", autofj)
    if not args.skip_retrieval:
        timed("yago_gold_only", lambda: retrieval_gold_only("yago"))
        timed("umls_gold_only", lambda: retrieval_gold_only("umls"))
    if os.path.isfile(args.save) and args.only:  # keep the checks an earlier run did
        mine = {**json.load(open(args.save))["scores"], **mine}
    write_json(args.save, {"model": args.model, "scores": mine, "seconds": seconds, "git_sha": git_sha()})
    compare(mine, args)


def compare(mine: dict, args) -> None:
    import pandas as pd

    if not os.path.isfile(args.ours):
        print(f"{args.ours} not found: run notebook 04, then this script with --compare-only")
        return
    table = pd.read_csv(args.ours)
    table = table[table["model"] == args.model].set_index("dataset")
    ours = table["score"].to_dict()
    if "paper_probe_score" in table:  # this check re-implements the paper's patience-5 probe: Table 1's column of it
        ours.update({d: table.loc[d, "paper_probe_score"] for d in ("ppdb", "ppdb_filtered")
                     if d in table.index and pd.notna(table.loc[d, "paper_probe_score"])})
    if os.path.isfile(args.ours_json):
        details = json.load(open(args.ours_json))["details"]
        for name in ("yago", "umls"):
            ours[f"{name}_gold_only"] = details.get(f"{args.model}/{name}", {}).get("gold_only_score", float("nan"))
    print(f"\n{'dataset':<16}{'pearl':>8}{'indep.':>8}{'diff':>8}{'tol':>6}  ok")
    ok_all = True
    for key, theirs in mine.items():
        diff = ours.get(key, float("nan")) - theirs
        tol = TOLERANCE.get(key)
        ok = "" if tol is None else ("yes" if abs(diff) <= tol else "NO")
        ok_all &= ok != "NO"
        print(f"{key:<16}{ours.get(key, float('nan')):8.2f}{theirs:8.2f}{diff:+8.2f}{'' if tol is None else tol:>6}  {ok}")
    print("acceptance:", "PASS" if ok_all else "FAIL")


if __name__ == "__main__":
    main()
