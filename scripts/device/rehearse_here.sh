#!/bin/bash
# Rehearse a device script on this CPU at tiny size, as the lent GPU machine would run it: a bundle
# built from a rehearsal's derived data, unpacked by setup.sh into a scratch folder, and the packages
# the GPU machine lacks hidden (hide/sitecustomize.py), so the stand-ins are what runs. From the
# repository root, after `make rehearse` (its output root holds data/derived):
#     bash scripts/device/rehearse_here.sh ROOT [SCRIPT [ARGS...]]
# ROOT: an output root holding data/derived (make rehearse's, default .cache/rehearsal); SCRIPT:
# default scripts/device/full_size.sh, run with --tiny. $PEARL_PY is the python (default .venv/bin/python).
# PEARL_REHEARSE_TWO_CALLS=1: full_size.sh as the whole corpus runs it, in two calls on one machine (the
# bundle built with --corpus-apart; --stage reference with the bundle, then --stage pearl with the corpus
# carried apart, its hard negatives mined there), in one scratch folder. PEARL_REHEARSE_ME5=1 with it: the
# corpus also carries the pruned me5-small (--me5), and the second call trains and scores that backbone;
# without it, a third call carrying nothing trains and scores MiniLM's seed 1 (--seed 1).
# Everything goes to a temporary folder (printed; the script's results under its out/).
set -e
case "${1:-}" in -h|--help) sed -n '2,/^set -e/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;; esac
ROOT=$(cd "${1:-.cache/rehearsal}" && pwd)
SCRIPT=${2:-scripts/device/full_size.sh}
shift $(( $# > 2 ? 2 : $# ))
PY=$(cd "$(dirname "${PEARL_PY:-.venv/bin/python}")" && pwd)/$(basename "${PEARL_PY:-.venv/bin/python}")
[ -f "$ROOT/data/derived/phrases.tsv" ] || { echo "no $ROOT/data/derived/phrases.tsv: run make rehearse first" >&2; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/pearl_rehearse.XXXXXX")
echo "rehearsal folder: $T"
# the rehearsal's hard negatives stand for those mined for every phrase (mine_all.py)
APART=() ME5=() && [ "${PEARL_REHEARSE_TWO_CALLS:-0}" = 1 ] && APART=(--corpus-apart "$T/corpus")
[ ${#APART[@]} -gt 0 ] && [ "${PEARL_REHEARSE_ME5:-0}" = 1 ] && APART+=(--me5) && ME5=(--backbone me5-small)
PEARL_PY=$PY PEARL_DERIVED=$ROOT/data/derived PEARL_HN=$ROOT/data/derived/hard_negatives.json PEARL_OUTPUT=$ROOT \
  bash scripts/device/make_bundle.sh "${APART[@]}" "$T/bundle"
mkdir -p "$T/bin"
printf '#!/bin/bash\nPYTHONPATH=%s${PYTHONPATH:+:$PYTHONPATH} exec %s "$@"\n' "$PWD/scripts/device/hide" "$PY" > "$T/bin/python3"
chmod +x "$T/bin/python3"
set +e
if [ ${#APART[@]} -gt 0 ]; then
  PATH=$T/bin:$PATH bash "$SCRIPT" --bundle "$T/bundle" --scratch "$T/scratch" --out "$T/out" --tiny --stage reference "$@" \
    && PATH=$T/bin:$PATH bash "$SCRIPT" --bundle "$T/bundle" --scratch "$T/scratch" --out "$T/out" --tiny --stage pearl \
      --corpus "$T/corpus" "${ME5[@]}" "$@"
  rc=$?
  if [ $rc = 0 ] && [ ${#ME5[@]} = 0 ]; then
    # MiniLM: a third call to the same machine, carrying nothing, trains seed 1 on what the second left there
    PATH=$T/bin:$PATH bash "$SCRIPT" --bundle "$T/nothing" --scratch "$T/scratch" --out "$T/out" --tiny \
      --stage pearl --seed 1 "$@"
    rc=$?
  fi
else
  PATH=$T/bin:$PATH bash "$SCRIPT" --bundle "$T/bundle" --scratch "$T/scratch" --out "$T/out" --tiny "$@"
  rc=$?
fi
echo "exit $rc; results in $T/out:" && ls -la "$T/out"
exit $rc
