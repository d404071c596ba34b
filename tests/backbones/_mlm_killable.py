"""A tiny mlm-wiki pretraining that SIGKILLs itself while writing a checkpoint (used by test_mlm.py).

    python _mlm_killable.py RUN_DIR CORPUS CONFIG_JSON KILL_AT [between|write]

Pretrains ``pearl.backbones.mlm_pretrain.Config(**CONFIG_JSON)`` on the WikiExtractor folder CORPUS into
RUN_DIR and is killed at the checkpoint of step KILL_AT, by default after the checkpoint and
before its digest, with SIGKILL as ``kill -9`` or the OOM killer would (no cleanup, no
``finally``); the hook is the training fault test's (training/_killable.py).
"""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "training"))

from _killable import kill_while_saving  # noqa: E402

from pearl.backbones import mlm_pretrain  # noqa: E402


def main():
    run_dir, corpus, config, kill_at, *where = sys.argv[1:]
    kill_while_saving(int(kill_at), where[0] if where else "between")
    mlm_pretrain.pretrain(mlm_pretrain.Config(**json.loads(config)), run_dir, corpus=corpus, progress=False)


if __name__ == "__main__":
    main()
