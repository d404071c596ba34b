"""Range checks of a settings dataclass's fields: each field's check and its allowed range in
words (:func:`check_fields`), shared by the trainer's settings (:mod:`pearl.training.settings`)
and the raw LM's (:mod:`pearl.backbones.mlm_config`). A bad value fails when the config is made, naming
the field, the value and the allowed range. What it leaves out: the ranges themselves, which
each settings module owns.
"""
from __future__ import annotations

import math

import numpy as np


def integer(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def real(value) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool) and math.isfinite(value)


def switch(value) -> bool:
    return isinstance(value, bool)


def bad(owner: str, name: str, value, allowed: str) -> ValueError:
    return ValueError(f"{owner}.{name} = {value!r} is out of range: it must be {allowed}")


def check_fields(obj, ranges: dict) -> None:
    """Refuse the first field of ``obj`` outside its range in ``ranges`` (field -> (check, words))."""
    for name, (ok, allowed) in ranges.items():
        if hasattr(obj, name) and not ok(getattr(obj, name)):
            raise bad(type(obj).__name__, name, getattr(obj, name), allowed)
