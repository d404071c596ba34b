"""perf/train_update_check.py, the check beside the training step's times: its rounding yardstick
moves every word embedding by exactly one float32 spacing, and only when train() makes its
optimiser (after the distillation and the centre); its comparison names the tensor that departs,
by how much, and how far the phrase embeddings turn."""
import copy
import importlib
import importlib.util
from pathlib import Path

import torch
from _tiny import tiny_backbone

from pearl.training.model import build_model
from pearl.training.train import TrainConfig, make_optimizer

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("train_update_check", ROOT / "perf" / "train_update_check.py")
check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check)
WORDS = "backbone.embeddings.word_embeddings.weight"
#: the module whose make_optimizer train() calls
TRAINER = importlib.import_module("pearl.training.train")


def test_the_rounding_yardstick_nudges_each_word_embedding_by_one_spacing_as_the_optimiser_is_made():
    model = build_model(tiny_backbone()[0], char_dim=16, num_labels=4)
    before = copy.deepcopy(model.state_dict())
    make_optimizer(model, TrainConfig())  # outside the block: nothing moves
    assert all(torch.equal(v, model.state_dict()[k]) for k, v in before.items())
    with check.nudged_at_start():
        TRAINER.make_optimizer(model, TrainConfig())
    after = model.state_dict()
    assert torch.equal(after[WORDS], torch.nextafter(before[WORDS], torch.tensor(float("inf"))))
    assert not torch.equal(after[WORDS], before[WORDS])
    assert all(torch.equal(before[k], after[k]) for k in before if k != WORDS)
    assert TRAINER.make_optimizer is make_optimizer  # restored


def test_departure_names_the_tensor_that_moved_and_how_far_the_embeddings_turn():
    module, tok = tiny_backbone()
    ref = build_model(module, char_dim=16, num_labels=4).eval()
    other = copy.deepcopy(ref)
    key = "backbone.encoder.layer.0.output.dense.weight"
    with torch.no_grad():
        other.state_dict()[key][0, 0] += 1e-3
    phrases = ["new york times", "green tree", "old man"]
    same = check.departure(ref, copy.deepcopy(ref), WORDS, ref.embed(tok, phrases), ref.embed(tok, phrases))
    assert same["max_abs_weight"] == 0 and same["max_float32_spacings"] == 0 and same["max_cosine_departure"] <= 1e-15
    gap = check.departure(ref, other, WORDS, ref.embed(tok, phrases), other.embed(tok, phrases))
    assert gap["largest"][0]["tensor"] == key and abs(gap["max_abs_weight"] - 1e-3) < 1e-6
    assert gap["max_float32_spacings_tensor"] == key and gap["max_float32_spacings"] > 1000
    assert gap["word_embeddings_max_abs"] == 0 and gap["max_cosine_departure"] > 0
