"""The training methods' display names, by the method part of a trained folder's name
(``"phrase_bert"`` -> ``"Phrase-BERT"``).

:func:`pearl.models.label` reads them to label trained folders in every table and figure;
:func:`pearl.training.objectives.register` records each objective's label here, so an objective
added there is labelled like the four built in. The names sit below both, so that labelling or
scoring a model imports nothing of training.

>>> label("pause"), label("no-such-method")
('PAUSE', 'no-such-method')

What it leaves out: everything else about a method (its loss, settings and positives:
:data:`pearl.training.objectives.OBJECTIVES`).
"""
from __future__ import annotations

#: method -> display name: the four built-in objectives, then any registered since
LABELS: dict[str, str] = {"pearl": "PEARL", "simcse": "SimCSE", "phrase_bert": "Phrase-BERT", "pause": "PAUSE"}


def add(method: str, name: str) -> None:
    """Record ``method``'s display name; refused: another name for a method named already."""
    if LABELS.get(method, name) != name:
        raise ValueError(f"method {method!r} is shown as {LABELS[method]!r} already (pearl.method_names.LABELS): "
                         f"register it with that label, or under another name")
    LABELS[method] = name


def label(method: str) -> str:
    """``method``'s display name, else the method as it is."""
    return LABELS.get(method, method)
