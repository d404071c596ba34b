"""Encoding throughput: pearl's encode() vs SentenceTransformer.encode on 20K PPDB phrases.

    .venv/bin/python perf/encode_throughput.py [--n 20000] [--threads 2] [--st-batch-size 32]

Both encode the same distinct phrases with the default backbone (all-MiniLM-L6-v2) on the
CPU, L2-normalised, after a short warm-up, alternating for ``--repeats`` rounds; the script
prints phrases/s of each, the ratio
(goal >= 1.0) and the max abs difference of the vectors. Other processes sharing the cores
skew timings: the load average is printed before and after.
"""
import argparse
import os
import time

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--batch-size", type=int, default=None, help="pearl encode() batch size (default: encode()'s own)")
    parser.add_argument("--repeats", type=int, default=1, help="alternating rounds of both")
    parser.add_argument("--st-batch-size", type=int, default=32, help="SentenceTransformer batch size (its default: 32)")
    args = parser.parse_args()

    import torch
    from sentence_transformers import SentenceTransformer

    from pearl import data
    from pearl.encode import encode
    from pearl.models import default_backbone_path, load_model

    torch.set_num_threads(args.threads)
    phrases = list(dict.fromkeys(p for f in (False, True) for r in data.read_ppdb(f) for p in r[:2]))[: args.n]
    print(f"{len(phrases)} distinct PPDB phrases, {args.threads} threads, load average {os.getloadavg()}")
    ours = load_model("minilm", device="cpu", cache=False)  # no embedding cache: every round encodes
    st = SentenceTransformer(str(default_backbone_path()), device="cpu")
    encode(ours, phrases[:512])  # warm-up (allocator, kernels)
    st.encode(phrases[:512], normalize_embeddings=True)

    # alternate the two (pearl, ST, pearl, ST, ...) so load changes on shared cores hit both alike
    t_ours, t_st = [], []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        a = encode(ours, phrases, batch_size=args.batch_size, progress=False)
        t_ours.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        b = st.encode(phrases, batch_size=args.st_batch_size, normalize_embeddings=True, convert_to_numpy=True)
        t_st.append(time.perf_counter() - t0)
    n = len(phrases)
    print("pearl encode() phrases/s per round :", [round(n / t, 1) for t in t_ours], f"(batch {args.batch_size})")
    print("ST.encode      phrases/s per round :", [round(n / t, 1) for t in t_st], f"(batch {args.st_batch_size})")
    print("ratio per round (pearl / ST)       :", [round(s_ / o, 2) for o, s_ in zip(t_ours, t_st)])
    print(f"ratio of medians                   : {np.median(t_st) / np.median(t_ours):.2f}")
    print(f"max |difference| of vectors        : {np.abs(a - b).max():.2e}")
    print(f"load average after          : {os.getloadavg()}")


if __name__ == "__main__":
    main()
