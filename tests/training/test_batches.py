"""pearl.training.batches: how many steps a run takes (BatchPlan, and the warning when a budget is cut), the
reference layout's rows (each hard negative a row with its own copy and type), and the default's batches unchanged."""
import warnings

import pytest
from _tiny import LABELS

from pearl.training.batches import BatchPlan


def test_steps_are_capped_at_the_epochs_with_a_warning():
    plan = BatchPlan(100, 32, seed=0, epochs=2)  # 3 full batches a pass, 2 passes: 6 steps
    assert plan.total_steps == 6
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning within the plan
        assert plan.steps(None) == 6 and plan.steps(4) == 4 and plan.steps(6) == 6
    with pytest.warns(UserWarning, match="steps=10 is more than 2 epoch.*stops at 6 steps; raise epochs"):
        assert plan.steps(10) == 6


# ------------------------------------------------------------------ the reference layout


def upper_augmenter(rng):
    """A copy anyone can check by hand: the phrase in capitals."""
    return str.upper


def _collator(layout="reference", rows=5, k=2, hard_negatives=None, types=None, augmenter=upper_augmenter,
              seed=0, corpus=None):
    from _tiny import tiny_backbone

    from pearl.training.batches import Collator

    corpus = corpus or [("new york", "NP-GPE"), ("old man", "NP-PERSON"), ("run fast", "VP")]
    negatives = hard_negatives if hard_negatives is not None else {
        "new york": ["new yolk", "few york"], "old man": ["bold man", "old men"], "run fast": ["ran fast", "run east"]}
    _, tok = tiny_backbone()
    return Collator(tok, [p for p, _ in corpus], [LABELS.index(t) for _, t in corpus], negatives, augmenter, k=k,
                    use_char=False, seed=seed, layout=layout, rows=rows, types=types)


#: the type label index of each hard negative (none of them is a training phrase)
TYPES = {"new yolk": 0, "few york": 2, "bold man": 1, "old men": 1, "ran fast": 3, "run east": 3}


def test_a_reference_batch_makes_each_hard_negative_a_row_with_its_own_copy_and_type():
    """Anchors "run fast" then "new york", k = 2, 5 rows: run fast and its two negatives, new york
    and one of its two (the last group cut to the 5 rows); every row's positive is its own copy
    and its label its own type; no extra negatives."""
    rows, copies, negatives, labels = _collator(types=TYPES).texts(step=0, indices=[2, 0])
    assert rows[0] == "run fast" and sorted(rows[1:3]) == ["ran fast", "run east"]
    assert rows[3] == "new york" and rows[4] in ("new yolk", "few york") and len(rows) == 5
    assert copies == [r.upper() for r in rows] and negatives == []
    assert labels == [LABELS.index("VP"), 3, 3, LABELS.index("NP-GPE"), TYPES[rows[4]]]
    batch = _collator(types=TYPES)(0, [2, 0])  # what the loss and the type head see: 5 rows, 10 texts
    assert batch["n"] == 5 and batch["inputs"]["input_ids"].shape[0] == 10 and batch["labels"].tolist() == labels


def test_a_reference_batch_draws_its_anchors_copies_and_negatives_from_the_seed():
    from _tiny import swap_augmenter, tiny_corpus, tiny_hard_negatives

    corpus = tiny_corpus(32)
    make = lambda seed: _collator(rows=8, hard_negatives=tiny_hard_negatives(corpus), augmenter=swap_augmenter,
                                  seed=seed, corpus=corpus)
    assert make(0).texts(3, [5, 9, 1]) == make(0).texts(3, [5, 9, 1])
    assert make(0).texts(3, [5, 9, 1]) != make(1).texts(3, [5, 9, 1])
    assert len(make(0).texts(3, [5, 9, 1])[0]) == 8  # ceil(8 / 3) = 3 anchors, cut to 8 rows


def test_a_reference_batch_refuses_hard_negatives_without_a_type():
    with pytest.raises(ValueError, match=r"6 hard negatives have none .*HardNegatives\(pools, types\)"):
        _collator(types=None)


def test_an_unknown_layout_names_the_choices():
    with pytest.raises(ValueError, match=r"'paper' is unknown: choose one of 'extra_negatives', 'reference'"):
        _collator(layout="paper")


def test_the_plan_draws_a_batch_of_anchors_that_fill_the_rows():
    from pearl.training.batches import anchors_per_batch

    assert anchors_per_batch(32, 2) == 32  # today: every row a phrase of the corpus
    assert anchors_per_batch(32, 2, "reference") == 11 and anchors_per_batch(30, 2, "reference") == 10
    assert anchors_per_batch(32, 0, "reference") == 32


def _digest(collator, plan, steps=3) -> str:
    import hashlib
    import json

    h = hashlib.sha256()
    for step in range(steps):
        indices = plan.indices(step)
        h.update(json.dumps([indices, collator.texts(step, indices)]).encode())
        batch = collator(step, indices)
        for key in sorted(batch["inputs"]):
            h.update(batch["inputs"][key].numpy().tobytes())
        h.update(batch["labels"].numpy().tobytes())
    return h.hexdigest()


#: sha256 of the first three default batches of :func:`test_the_default_batches_are_the_ones_before_the_option`,
#: computed with the code before ``batch_composition`` existed (commit dd1ecdc)
DEFAULT_BATCHES = "a393f0445f21c78cef2a62d61b747206daf0d6c9faceed6812a9552612058e8f"


def test_the_default_batches_are_the_ones_before_the_option():
    """Same seed, same batches, byte for byte (texts, token and byte ids, labels), as before the
    reference layout was added: the default layout changed nothing."""
    from _tiny import swap_augmenter, tiny_backbone, tiny_corpus, tiny_hard_negatives

    from pearl.training.batches import Collator

    corpus = tiny_corpus(32)
    _, tok = tiny_backbone()
    collator = Collator(tok, [p for p, _ in corpus], [LABELS.index(t) for _, t in corpus], tiny_hard_negatives(corpus),
                        swap_augmenter, k=2, seed=7)
    assert _digest(collator, BatchPlan(32, 8, seed=7)) == DEFAULT_BATCHES
