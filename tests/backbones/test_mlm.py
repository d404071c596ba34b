"""The ``mlm-wiki`` raw masked LM (pearl.backbones.mlm, pearl.backbones.mlm_pretrain, pearl.backbones.mlm_config): masked-token
prediction only, deterministic, resumable after any kill, refusing another run's checkpoint,
range-checked, registered as a backbone. Every run here is tiny and reads a tiny WikiExtractor corpus."""
import dataclasses
import hashlib
import json
import lzma
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from _wiki_tiny import make

from pearl import checkpoint, models
from pearl.backbones import mlm
from pearl.backbones import mlm_config as cfg
from pearl.backbones import mlm_pretrain as pre

HERE = Path(__file__).resolve().parent

TINY = dataclasses.replace(pre.CONFIG, layers=1, hidden=16, heads=2, intermediate=32, max_tokens=12, batch=4,
                           steps=6, stride=2, heldout_articles=5, eval_sequences=6, eval_every=3, log_every=1,
                           checkpoint_every=2, lr=1e-3)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return make(tmp_path_factory.mktemp("wiki"), files=2, per_file=5)


@pytest.fixture(scope="module")
def tok():
    return pre.tokenizer(TINY.max_tokens)


@pytest.fixture(scope="module")
def built(corpus, tmp_path_factory):
    base = tmp_path_factory.mktemp("mlm")
    return mlm.build(TINY, target=base / "mlm-wiki", run_dir=base / "run", progress=False, corpus=corpus)


def test_masking_is_berts_15_percent_80_10_10(tok):
    ids = torch.randint(1000, len(tok), (400, 64))
    ids[:, 0], ids[:, -1] = tok.cls_token_id, tok.sep_token_id
    inputs, labels = pre.mask_tokens(ids, tok, torch.Generator().manual_seed(0))
    chosen = labels != -100
    assert not chosen[:, 0].any() and not chosen[:, -1].any()  # special tokens are never predicted
    assert torch.equal(labels[chosen], ids[chosen])  # the labels are the original tokens
    assert torch.equal(inputs[~chosen], ids[~chosen])  # nothing else is touched
    share = chosen.sum().item() / (400 * 62)
    masked = (inputs[chosen] == tok.mask_token_id).float().mean().item()
    kept = (inputs[chosen] == ids[chosen]).float().mean().item()
    assert abs(share - 0.15) < 0.01 and abs(masked - 0.8) < 0.02 and abs(kept - 0.1) < 0.02
    assert abs(1 - masked - kept - 0.1) < 0.02  # the rest: a random token


def test_objective_is_masked_token_prediction_only(corpus, tok, tmp_path, monkeypatch):
    """The loss is BertForMaskedLM's own masked-LM cross-entropy, and it is the only loss a
    pretraining step backpropagates: no next-sentence, contrastive or other sentence-level term."""
    torch.manual_seed(0)
    model = pre.new_model(TINY, len(tok), tok.pad_token_id)
    ids = torch.randint(1000, len(tok), (4, TINY.max_tokens))
    inputs, labels = pre.mask_tokens(ids, tok, torch.Generator().manual_seed(1))
    model.eval()
    ours, _, n = pre.masked_lm_loss(model, inputs, labels)
    assert torch.allclose(ours, model(input_ids=inputs, labels=labels).loss, atol=1e-6)  # transformers' MLM loss
    assert n == (labels != -100).sum().item()
    assert type(model).__name__ == "BertForMaskedLM"
    assert not any("seq_relationship" in k for k in model.state_dict())  # no next-sentence head

    losses, real = [], pre.masked_lm_loss

    def spy(model, inputs, labels):
        out = real(model, inputs, labels)
        if torch.is_grad_enabled():
            losses.append((out[0], (labels != -100).float().mean().item()))
        return out

    backward = torch.Tensor.backward
    seen = []
    monkeypatch.setattr(pre, "masked_lm_loss", spy)
    monkeypatch.setattr(torch.Tensor, "backward", lambda self, *a, **k: (seen.append(self), backward(self, *a, **k))[1])
    pre.pretrain(TINY, tmp_path / "run", corpus=corpus, progress=False)
    assert len(seen) == TINY.steps and all(s is l for s, (l, _) in zip(seen, losses))
    assert all(0 < share < 0.5 for _, share in losses)  # a minority of positions carries labels
    assert TINY.mask_prob == pre.CONFIG.mask_prob == 0.15


def test_same_seed_same_weights(built, corpus, tmp_path):
    again = mlm.build(TINY, target=tmp_path / "m", run_dir=tmp_path / "run", progress=False, corpus=corpus)
    assert mlm.meta(again)["weights_sha256"] == mlm.meta(built)["weights_sha256"]
    assert (again / "model.safetensors").read_bytes() == (built / "model.safetensors").read_bytes()
    other = mlm.build(dataclasses.replace(TINY, seed=1), target=tmp_path / "s1", run_dir=tmp_path / "r1",
                      progress=False, corpus=corpus)
    assert mlm.meta(other)["weights_sha256"] != mlm.meta(built)["weights_sha256"]


def test_resumed_run_gives_the_uninterrupted_weights(built, corpus, tmp_path):
    run = tmp_path / "run"
    first = pre.pretrain(TINY, run, corpus=corpus, progress=False, stop_after=3)  # as if killed after step 3
    assert first["step"] == 3 and not first["done"] and (run / "checkpoint.pt").is_file()
    rest = pre.pretrain(TINY, run, corpus=corpus, progress=False)
    assert rest["done"] and mlm.weights_sha256(rest["model"]) == mlm.meta(built)["weights_sha256"]
    assert [r["step"] for r in rest["log"]] == list(range(1, TINY.steps + 1))
    with pytest.raises(checkpoint.OtherRunError, match=rf"another configuration \(lr differ\): delete {run} "):
        pre.pretrain(dataclasses.replace(TINY, lr=5e-4), run, corpus=corpus, progress=False)


def _kill(run, corpus, step, where="between"):
    """Pretrain TINY in a child process that SIGKILLs itself while writing the checkpoint of ``step``."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "OMP_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, str(HERE / "_mlm_killable.py"), str(run), str(corpus),
                           json.dumps(dataclasses.asdict(TINY)), str(step), where],
                          env=env, capture_output=True, text=True, timeout=300, check=False)


@pytest.mark.parametrize("step", [4, 2])
def test_killed_between_a_checkpoint_and_its_digest_resumes_to_the_uninterrupted_weights(built, corpus, tmp_path,
                                                                                      step):
    """SIGKILL after the checkpoint of ``step`` is written and before its digest: the next run passes
    over it (saying so) for the one before, or starts again when it was the first, and ends bit for
    bit on the uninterrupted run's weights, loss curve and held-out scores."""
    run = tmp_path / "run"
    killed = _kill(run, corpus, step)
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    latest = run / checkpoint.LATEST
    assert torch.load(latest, weights_only=False)["step"] == step  # the new checkpoint is whole on disk...
    assert "digest" in checkpoint.problem(latest)  # ...but its digest is the one before's, or none
    before = "the last good checkpoint .*checkpoint.prev.pt" if step > TINY.checkpoint_every else "starts again from step 0"
    with pytest.warns(UserWarning, match=rf"checkpoint.pt (does not match|has no digest).*{before}"):
        rest = pre.pretrain(TINY, run, corpus=corpus, progress=False)
    assert rest["done"] and mlm.weights_sha256(rest["model"]) == mlm.meta(built)["weights_sha256"]
    assert rest["log"] == mlm.meta(built)["loss_curve"] and rest["evals"] == mlm.meta(built)["heldout"]
    assert checkpoint.problem(latest) is None  # a good latest checkpoint again


def _reworded(corpus: Path, folder: Path) -> Path:
    """A copy of the WikiExtractor folder ``corpus`` with other words in its first file (sums updated)."""
    shutil.copytree(corpus, folder)
    first = sorted(folder.glob("*.xz"))[0]
    first.write_bytes(lzma.compress(lzma.decompress(first.read_bytes()).replace(b"war", b"peace")))
    (folder / "SHA256SUMS").write_text("".join(f"{hashlib.sha256(p.read_bytes()).hexdigest()}  ./{p.name}\n"
                                               for p in sorted(folder.glob("*.xz"))))
    return folder


def test_a_resume_on_another_corpus_is_refused_naming_the_folder_and_the_fix(corpus, tmp_path):
    """The checkpoint keeps the digest of the token ids the run reads: resuming on other text stops
    with the fix, as train() does, instead of finishing as a hybrid of two corpora."""
    run = tmp_path / "run"
    pre.pretrain(TINY, run, corpus=corpus, progress=False, stop_after=2)
    other = _reworded(corpus, tmp_path / "other")
    with pytest.raises(checkpoint.OtherRunError, match=rf"{run / 'checkpoint.pt'} was trained on another corpus or "
                                                       rf"vocabulary .*: delete {run} to start afresh"):
        pre.pretrain(TINY, run, corpus=other, progress=False)
    assert pre.pretrain(TINY, run, corpus=corpus, progress=False)["done"]  # the same corpus resumes


def _bad_value(name: str):
    """A value just outside ``Config.<name>``'s range."""
    return {"mask_prob": 0.0, "lr": 0.0, "clip": 0.0, "warmup": 1.5, "weight_decay": -0.01, "seed": -1, "stride": 1,
            "heldout_per_article": -1, "max_tokens": 2}.get(name, 0)


@pytest.mark.parametrize("name", sorted(cfg.RANGES))
def test_every_config_setting_is_range_checked_naming_setting_value_and_range(name):
    bad = _bad_value(name)
    with pytest.raises(ValueError, match=rf"^Config\.{name} = {re.escape(repr(bad))} is out of range: it must be "):
        dataclasses.replace(TINY, **{name: bad})
    with pytest.raises(ValueError, match=rf"Config\.{name} = True"):
        dataclasses.replace(TINY, **{name: True})  # a switch is no number


def test_the_range_table_covers_every_setting_and_the_heads_divide_the_width():
    assert set(cfg.RANGES) == {f.name for f in dataclasses.fields(pre.Config)}
    assert pre.CONFIG == cfg.CONFIG and pre.Config is cfg.Config  # the defaults and TINY pass
    with pytest.raises(ValueError, match=r"Config\.hidden = 18 is out of range: it must be a multiple of heads \(4\)"):
        dataclasses.replace(TINY, hidden=18, heads=4)


def test_folder_records_curve_heldout_and_label(built):
    meta = mlm.meta(built)
    assert meta["objective"].startswith("masked-token prediction only")
    assert [r["step"] for r in meta["heldout"]] == [3, 6] and all(0 <= r["accuracy"] <= 100 for r in meta["heldout"])
    assert len(meta["loss_curve"]) == TINY.steps and meta["train_tokens"] == TINY.train_tokens
    assert meta["label"] == mlm.label(TINY) and "pretrained here on" in meta["label"]
    assert "stand-in for a raw language model such as BERT" in mlm.LABEL
    assert not list(built.parent.glob(f".{built.name}.tmp"))  # written whole, no temporary folder left
    head, tok = mlm.load_mlm(built)
    assert head.cls.predictions.decoder.weight.data_ptr() == head.bert.embeddings.word_embeddings.weight.data_ptr()


def test_registered_as_a_backbone(built, monkeypatch):
    monkeypatch.setattr(mlm, "folder", lambda config=pre.CONFIG: built)  # no 20-minute pretraining in a test
    assert models.resolve("mlm-wiki") == str(built)
    assert models.backbone_short("mlm-wiki") == "mlmwiki"
    name = models.folder_name("pearl", "mlm-wiki", 0)
    assert name == "pearl-mlmwiki-seed0" and models.parse_folder_name(name)["backbone"] == "mlmwiki"
    assert models.label("mlm-wiki") == mlm.LABEL and "PEARL seed 0" in models.label(name)
    assert mlm.LABEL in models.label(name) and models.backbone_label("mlm-wiki") == mlm.LABEL
    backbone, tokenizer = models.load_backbone("mlm-wiki")
    assert type(backbone).__name__ == "BertModel" and backbone.config.hidden_size == TINY.hidden
    enc = models.load_model("mlm-wiki", cache=False)
    from pearl.encode import encode

    assert encode(enc, ["new york city", "a cat"]).shape == (2, TINY.hidden)
