"""Training profiles and the augmentation switches of the training notebook."""
import numpy as np
import pytest
from pearl.training.recipe import PROFILES, augmenter_factory, config_for


def test_profiles_and_overrides():
    cfg, data = config_for("gpu")
    assert data == {"max_phrases": None, "anchors_only": False}
    assert (cfg.batch_size, cfg.lr, cfg.epochs, cfg.steps) == (512, 3e-5, 2, None)
    cfg, _ = config_for("cpu", lr=1e-3, steps=None)  # None keeps the profile's value
    assert cfg.lr == 1e-3 and cfg.steps == PROFILES["cpu"]["steps"]
    with pytest.raises(ValueError, match="choose from"):
        config_for("tpu")


def test_all_augmentation_levels_off_is_the_identity():
    rng = np.random.default_rng(0)
    assert augmenter_factory(0, 0, 0)(rng)("The New York Times") == "The New York Times"
    only_char = augmenter_factory(1, 0, 0)(rng)
    out = only_char("The New York Times")
    from rapidfuzz.distance import OSA

    assert out != "The New York Times" and OSA.distance(out, "The New York Times") == 1  # one character edit
