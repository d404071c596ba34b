"""Encoding throughput: pearl's encode() vs SentenceTransformer.encode on 20K PPDB phrases.

    .venv/bin/python benchmarks/encode_throughput.py [--n 20000] [--threads 2] [--st-batch-size 32]

Both encode the same distinct phrases with the default backbone (all-MiniLM-L6-v2) on the
CPU, L2-normalised, after a short warm-up; the script prints phrases/s of each, the ratio
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
    parser.add_argument("--batch-size", type=int, default=256, help="pearl encode() batch size")
    parser.add_argument("--st-batch-size", type=int, default=32, help="SentenceTransformer batch size (its default: 32)")
    args = parser.parse_args()

    import torch
    from sentence_transformers import SentenceTransformer

    from pearl import data
    from pearl.encode import default_backbone_path, encode, load_model

    torch.set_num_threads(args.threads)
    phrases = list(dict.fromkeys(p for f in (False, True) for r in data.read_ppdb(f) for p in r[:2]))[: args.n]
    print(f"{len(phrases)} distinct PPDB phrases, {args.threads} threads, load average {os.getloadavg()}")
    ours = load_model("minilm", device="cpu")
    st = SentenceTransformer(str(default_backbone_path()), device="cpu")
    encode(ours, phrases[:512])  # warm-up (allocator, kernels)
    st.encode(phrases[:512], normalize_embeddings=True)

    t0 = time.perf_counter()
    a = encode(ours, phrases, batch_size=args.batch_size, progress=False)
    t_ours = time.perf_counter() - t0
    t0 = time.perf_counter()
    b = st.encode(phrases, batch_size=args.st_batch_size, normalize_embeddings=True, convert_to_numpy=True)
    t_st = time.perf_counter() - t0

    print(f"pearl encode()              : {len(phrases) / t_ours:8.1f} phrases/s ({t_ours:.1f} s, batch {args.batch_size})")
    print(f"SentenceTransformer.encode  : {len(phrases) / t_st:8.1f} phrases/s ({t_st:.1f} s, batch {args.st_batch_size})")
    print(f"ratio (pearl / ST)          : {t_st / t_ours:8.2f}")
    print(f"max |difference| of vectors : {np.abs(a - b).max():.2e}")
    print(f"load average after          : {os.getloadavg()}")


if __name__ == "__main__":
    main()
