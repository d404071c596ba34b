"""A tiny corpus build that SIGKILLs itself at a chosen point (used by test_build.py).

    python _killable_build.py CORPUS_DIR BUILD_DIR [--kill-at N --kill-in parse|write]

``parse``: while extracting the phrases of the N-th paragraph, i.e. in the middle of a chunk;
``write``: while writing chunk N, after half of its temporary file, before the rename.
SIGKILL, as the OOM killer or ``kill -9`` would: no cleanup, no ``finally``.
"""
import argparse
import os
import signal
from pathlib import Path


def die():
    os.kill(os.getpid(), signal.SIGKILL)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus_dir")
    ap.add_argument("build_dir")
    ap.add_argument("--kill-at", type=int)
    ap.add_argument("--kill-in", choices=("parse", "write"), default="parse")
    args = ap.parse_args()

    from pearl import wikipedia
    from pearl.corpus import build, phrases

    if args.kill_at is not None and args.kill_in == "parse":
        inner, seen = phrases.phrase_spans, {"n": 0}

        def phrase_spans(doc, max_tokens=6):
            if len(doc):  # the empty text that closes each article is not a paragraph
                seen["n"] += 1
                if seen["n"] == args.kill_at:
                    die()
            return inner(doc, max_tokens)

        phrases.phrase_spans = phrase_spans
    elif args.kill_at is not None:
        inner_write = build.write_atomic

        def write_atomic(path, data):
            if Path(path).name == f"{args.kill_at:05d}.tsv.gz":
                Path(path).with_name(f".{Path(path).name}.killed.tmp").write_bytes(data[: len(data) // 2])
                die()
            return inner_write(path, data)

        build.write_atomic = write_atomic
    build.build(wikipedia.Sample(), chunk_articles=2, n_process=1, batch_size=4, folder=args.corpus_dir,
                build_dir=Path(args.build_dir), progress=False)


if __name__ == "__main__":
    main()
