"""encode(): equal to sentence-transformers, and a defined behaviour for every bad input."""
import numpy as np
import pytest
import torch
from pearl.encode import Encoder, check_phrases, encode, mean_pool
from pearl.models import default_backbone_path, resolve

PHRASES = ["The New York Times", "NYTimes", "nytimes.com", "New York Post", "a", "The New York Times"]


def test_matches_sentence_transformers(minilm):
    from sentence_transformers import SentenceTransformer

    st = SentenceTransformer(str(default_backbone_path()), device="cpu")
    ours = encode(minilm, PHRASES, batch_size=2)  # small batches: padding across lengths
    theirs = st.encode(PHRASES, normalize_embeddings=True)
    assert ours.shape == (len(PHRASES), 384) and ours.dtype == np.float32
    assert np.abs(ours - theirs).max() <= 1e-5


def test_order_and_duplicates_preserved(minilm):
    vecs = encode(minilm, PHRASES)
    np.testing.assert_array_equal(vecs[0], vecs[-1])
    single = encode(minilm, ["nytimes.com"])
    assert np.abs(vecs[2] - single[0]).max() < 1e-5
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)


def test_empty_list_gives_empty_array_of_right_width(minilm):
    out = encode(minilm, [])
    assert out.shape == (0, 384) and out.dtype == np.float32


@pytest.mark.parametrize("bad", [[""], ["   "], [None], ["ok", "\t\n"], [3.0]])
def test_bad_phrases_raise_clear_valueerror(minilm, bad):
    with pytest.raises(ValueError, match="phrase"):
        encode(minilm, bad)


def test_a_bare_string_is_refused():
    with pytest.raises(ValueError, match="wrap it"):
        check_phrases("The New York Times")


def test_none_in_place_of_the_list_names_the_fix(minilm):
    with pytest.raises(ValueError, match=r"takes a list of phrases, got NoneType None: pass a list of strings"):
        encode(minilm, None)


@pytest.mark.parametrize("phrase", ["\u200b", "\u200b\u200d", "\x85\x80", "\ufeff"])
def test_a_phrase_the_tokenizer_reduces_to_no_token_is_refused(minilm, phrase):
    """Characters the tokenizer deletes (zero-width, C1 controls): such phrases would all get one vector."""
    with pytest.raises(ValueError, match=r"phrase 1 .* holds no token for this model.*Drop it"):
        encode(minilm, ["fine", phrase])


def test_the_string_baseline_says_it_gives_similarities_not_vectors():
    from pearl.backbones.baselines import CharJaccard

    with pytest.raises(TypeError, match=r"char3gram-jaccard gives similarities, not vectors.*\.matrix\("):
        encode(CharJaccard(), ["The New York Times"])


def test_very_long_emoji_and_non_latin_are_encoded(minilm):
    """Long inputs are truncated to the model's 256 word pieces; odd scripts give finite unit vectors."""
    long = "word " * 2000  # 10,000 characters
    out = encode(minilm, [long, long[:5000], "😀🎉", "東京都", "Ελληνικά", "e\u0301te\u0301"])
    assert np.isfinite(out).all()
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-5)
    # truncation: both long strings exceed 256 pieces, so they embed identically
    assert np.abs(out[0] - out[1]).max() < 1e-5


def test_mean_pool_ignores_padding():
    import torch

    hidden = torch.tensor([[[1.0, 1.0], [3.0, 3.0], [100.0, 100.0]]])
    mask = torch.tensor([[1, 1, 0]])
    assert mean_pool(hidden, mask).tolist() == [[2.0, 2.0]]


def test_function_encoders_share_the_path():
    enc = Encoder(name="toy", dim=2, fn=lambda ps: np.array([[len(p), 1.0] for p in ps]))
    out = encode(enc, ["ab", "abcd", "ab"])
    np.testing.assert_allclose(out[0], np.array([2, 1]) / np.sqrt(5), rtol=1e-6)
    np.testing.assert_array_equal(out[0], out[2])


def test_alias_resolves_offline():
    assert resolve("minilm") == str(default_backbone_path())
    assert resolve("intfloat/e5-small-v2") == "intfloat/e5-small-v2"  # a hub name, loaded when connected


def test_pad_batch_matches_the_tokenizer_on_either_side(minilm):
    """Token-length batching pads exactly as ``tokenizer(..., padding=True)`` would."""
    from pearl.encode import pad_batch

    tok, texts = minilm.tokenizer, ["a", "The New York Times", "nytimes.com"]
    enc = tok(texts)
    for side in ("right", "left"):
        tok.padding_side = side
        try:
            ref = tok(texts, padding=True, return_tensors="pt")
            ours = pad_batch(tok, enc, [0, 1, 2], ref["input_ids"].shape[1])
            assert ours.keys() == ref.keys()
            for key in ref:
                assert ours[key].tolist() == ref[key].tolist(), (side, key)
        finally:
            tok.padding_side = "right"


def test_batches_follow_token_length_not_character_length(minilm):
    """Each batch holds phrases of one token length, so no batch carries padding."""
    import dataclasses

    seen = []

    class Recorder(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, **batch):
            seen.append(batch["attention_mask"])
            return self.inner(**batch)

    # character length and token length disagree: sorted by characters, the batches would be
    # (20 chars / 4 tokens, 9 / 7) and (9 / 7, 8 / 4), both padded
    phrases = ["internationalization", "a b c d e", "new york", "x y z w v"]
    recorder = dataclasses.replace(minilm, model=Recorder(minilm.model))
    out = encode(recorder, phrases, batch_size=2)
    assert [bool(m.all()) for m in seen] == [True, True]  # no padding in either batch
    np.testing.assert_allclose(out, encode(minilm, phrases, batch_size=1), atol=1e-5)


@pytest.mark.parametrize("phrase", ["New\x00York", "\x00", "tab\x0bbed", "bell\x07", "del\x7f"])
def test_control_characters_are_refused_naming_index_and_fix(phrase):
    with pytest.raises(ValueError, match=r"phrase 1 holds control character U\+00.. at position \d+.*re\.sub"):
        check_phrases(["fine", phrase])


def test_whitespace_controls_and_c1_mojibake_are_accepted():
    """Tab/newline are whitespace to the tokenizer; C1 controls occur in AutoFJ's mis-decoded titles."""
    phrases = ["New\tYork", "New York\n", "Wrightâ\x80\x99s mountain tree frog"]
    assert check_phrases(phrases) == phrases


def test_quiet_loading_stops_transformers_own_progress_bars(capfd):
    """transformers draws "Loading weights" on stderr (on a served explorer page, in make model's log);
    after quiet_loading() it draws nothing."""
    from transformers.utils import logging

    from pearl.encode import load_hf_model, quiet_loading

    logging.enable_progress_bar()
    try:
        load_hf_model(default_backbone_path())
        assert "Loading weights" in capfd.readouterr().err  # the bar the page showed
        quiet_loading()
        load_hf_model(default_backbone_path())
        assert "Loading weights" not in capfd.readouterr().err
    finally:
        logging.enable_progress_bar()


def test_a_lone_surrogate_is_refused_naming_index_position_and_fix():
    """Before: a phrase holding a lone surrogate failed deep in the tokenizer with a UnicodeEncodeError."""
    from pearl.encode import check_phrases

    with pytest.raises(ValueError, match=r"phrase 1 holds a lone surrogate U\+DC80 at position 1 .*Decode its source as UTF-8"):
        check_phrases(["fine", "a\udc80b"])


def test_a_device_this_machine_lacks_is_named_with_what_there_is():
    """Before: ``cuda:7`` on a CPU passed the settings check and failed in torch once a run moved its model."""
    from pearl.encode import pick_device

    missing = f"cuda:{torch.cuda.device_count() + 6}"
    with pytest.raises(ValueError, match=rf"device '{missing}': this machine has .*CUDA device.*'cpu', or None to choose"):
        pick_device(missing)
    assert pick_device("cpu") == "cpu" and pick_device(None) in ("cpu", "cuda", "mps")
