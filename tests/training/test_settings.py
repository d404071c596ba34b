"""The training settings' ranges (pearl.training.settings.RANGES) on the cases the old checks let through."""
import pytest
from pearl.training.train import TrainConfig


@pytest.mark.parametrize("weight", [0.0, 1.0, 1.5])
def test_a_char_weight_outside_0_1_names_the_setting_and_its_range(weight):
    """0 silently dropped the character part (use_char=False says that), 1 or more gave it as
    large a share of the cosine as the unit phrase part or larger; all passed the old ">= 0"."""
    with pytest.raises(ValueError, match=rf"^TrainConfig\.char_weight = {weight!r} is out of range: it must be a weight "
                                         r"in \(0, 1\).*use_char=False"):
        TrainConfig(char_weight=weight)
    assert TrainConfig(char_weight=0.25).char_weight == 0.25 and TrainConfig(use_char=False).char_weight == 0.5


def test_a_batch_composition_outside_its_choices_names_the_setting_and_the_choices():
    with pytest.raises(ValueError, match=r"^TrainConfig\.batch_composition = 'paper' is out of range: it must be "
                                         r"'extra_negatives' or 'reference'"):
        TrainConfig(batch_composition="paper")
    assert TrainConfig().batch_composition == "extra_negatives"  # today's batches stay the default


def test_the_reference_batch_layout_is_refused_for_another_objective():
    """SimCSE, Phrase-BERT and PAUSE use their negatives their own way (PAUSE's labels are per phrase)."""
    with pytest.raises(ValueError, match=r"batch_composition = 'reference' is the PEARL authors' batches; objective "
                                         r"'phrase_bert'.*use 'extra_negatives'"):
        TrainConfig.of("phrase_bert", batch_composition="reference")
