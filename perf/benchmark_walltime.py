"""Wall time of the full phrase benchmark (all nine datasets) for one model.

    .venv/bin/python perf/benchmark_walltime.py [--model minilm] [--threads 2] [--datasets ppdb bird ...]

Runs exactly what notebook 04 runs for one model (pearl.benchmark.scoring.run_model), prints each
dataset's score and seconds, and the total. The
stand-in retrieval dictionaries are built once and cached under data/derived/dictionaries;
the first run pays for building them (about 15 s). The load average is printed because
other processes sharing the cores slow everything down.
"""
import argparse
import os
import time


def main() -> None:
    from pearl.benchmark import scoring
    from pearl.benchmark.tasks import DATASETS
    from pearl.models import load_model

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="minilm")
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--tiny", action="store_true", help="the tasks' tiny size (checks the script only)")
    args = parser.parse_args()

    import torch

    torch.set_num_threads(args.threads)
    print(f"{args.model}: {args.threads} threads, load average before {os.getloadavg()}")
    t0 = time.perf_counter()
    model = load_model(args.model)
    load = time.perf_counter() - t0
    scoring.run_model(args.model, model, args.datasets, size="tiny" if args.tiny else "full")
    total = time.perf_counter() - t0
    print(f"model load {load:.1f} s; total wall time {total:.1f} s; load average after {os.getloadavg()}")


if __name__ == "__main__":
    main()
