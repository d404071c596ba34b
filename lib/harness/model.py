"""``make model`` from the command line: ``python -m harness.model`` builds one PEARL model
(:func:`harness.one_model.build`: notebooks 01-03's library calls at the cpu profile,
seed 0) under the output root this run decides once.

``--smoke`` is the harness's SMOKE scale (tests): pearl's ``tiny`` size, written under
``smoke-output/`` or a scratch ``$PEARL_OUTPUT`` (:meth:`harness.scale.Scale.output_root`), through
the scale's guard (a SMOKE model never replaces a full-size one). What it leaves out: the stages
themselves (:mod:`harness.one_model`).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .one_model import SetupError, build, check_inputs, report

from .scale import FULL, SMOKE, use_output


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m harness.model",
                                 description="Build one PEARL model: the data, tables and seed 0 of notebooks 01-03 "
                                             "at the cpu profile (make model)")
    ap.add_argument("--smoke", action="store_true", help="the SMOKE size (tests): a tiny model under smoke-output/ "
                                                         "or $PEARL_OUTPUT")
    ap.add_argument("--if-missing", action="store_true", help="do nothing when a PEARL model on MiniLM exists "
                                                              "and verifies (make explorer)")
    ap.add_argument("--record", help="also write the build's record to this JSON file (make model RECORD=1)")
    args = ap.parse_args(argv)
    scale = SMOKE if args.smoke else FULL
    use_output(scale.output_root())
    from pearl.encode import quiet_loading
    from pearl.models import verified_folders
    from pearl.provenance import write_json

    quiet_loading()  # each stage shows its own bar; transformers' "Loading weights" would come between them

    found = verified_folders() if args.if_missing else []  # a folder that would be refused at load is not found
    if found:
        print(f"== PEARL model found: {', '.join(p.name for p in found)} (make model builds none anew)")
        return 0
    try:
        check_inputs()
    except SetupError as err:
        print(err, file=sys.stderr)
        return 2
    record = build(scale.scaled("full"), scale.guard)
    print(report(record))
    if args.record and any(s["built"] for s in record["stages"].values()):
        print("record:", write_json(Path(args.record), {k: v for k, v in record.items() if k != "folder"}))
    elif args.record:  # a build that reused everything measured nothing
        print(f"{args.record} left as it was: nothing was built")
    return 0


if __name__ == "__main__":
    sys.exit(main())
