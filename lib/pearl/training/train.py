"""The PEARL training loop (§3.4, §4.2): contrastive + phrase-type objectives, then weight averaging;
with ``objective`` the same loop trains SimCSE, Phrase-BERT, PAUSE or any registered objective
(:mod:`pearl.training.objectives`).

>>> result = train(TrainConfig.of("pearl", steps=500, lr=1e-4), corpus, hard_negs, augmenter)  # doctest: +SKIP

What a run does:

1. builds the model (:func:`pearl.training.model.build_model`) with ``torch.manual_seed(seed)`` and,
   when it has a character encoder, initialises it by distilling the backbone's own
   vectors of the training vocabulary (:func:`pearl.training.char_encoder.distill_init`);
2. Adam (``lr``, 3e-5 in the paper), the learning rate decayed by ``gamma`` = 0.98 every
   ``decay_every`` = 2,000 steps; the word embeddings get sparse gradients and a row-wise update
   (``embedding_update="rows"``, :mod:`pearl.training.optim`: dense Adam's weights up to float
   rounding, without a dense gradient of the whole vocabulary per length bucket); batches from :mod:`pearl.training.batches` (tokenised in the
   collate, optionally in DataLoader workers, or with ``feed="arrays"`` drawn once before the loop and
   gathered by index, the same batches: :mod:`pearl.training.arrays`; ``batch_composition``, the batch layout: a phrase's hard negatives as extra
   candidates of the loss, or as rows of their own with a positive and a type label, as the authors' loader); bf16 autocast and optional ``torch.compile``
   on CUDA, fp32 on CPU; a tqdm bar and a loss log (``result.log``, also ``log.csv``), the loss read
   back from the device every ``log_every`` steps;
3. every ``checkpoint_every`` steps writes ``checkpoint.pt`` (model, optimiser, scheduler,
   step = sampler state, RNG states, log) with its sha256 beside it, keeping the one before
   (:mod:`pearl.checkpoint`); a run started on a folder holding one resumes from it
   after checking the digest (a damaged one stops the run with the choice: delete the folder,
   or ``resume_from`` the last good one) and reaches the same final weights as an
   uninterrupted run, also when killed repeatedly (tested on CPU);
4. **weight averaging** against catastrophic forgetting: the backbone becomes
   ``average * fine_tuned + (1 - average) * original`` (``average=1`` switches it off).
   The character encoder and the type head have no pre-trained original of their own, so
   they are kept as trained.

Data parallel: launch with ``torchrun --nproc_per_node N`` (any backend); each process
encodes its shard, the embeddings are all-gathered with gradients so InfoNCE sees the
whole global batch, and DDP averages the gradients: the update equals one process on the
same global batch (tested with 2 CPU processes and gloo).
"""
from __future__ import annotations

import dataclasses
import math
import random
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from torch import nn

from .. import checkpoint
from ..corpus.phrases import LABELS
from ..encode import pick_device
from ..models import load_backbone
from ..atomic import write_atomic
from .batches import AugmenterFactory, BatchPlan, Collator, StepDataset, anchors_per_batch, identity_augmenter
from .optim import RowAdam, sparse_embedding_grads
from .model import PearlModel, average_and_centre, build_model, distill_char_encoder, training_vocab
from . import objectives
from .settings import RANGES, check_fields


@dataclass
class TrainConfig:
    backbone: str = "minilm"
    steps: int | None = None  # stop after this many steps; None = ``epochs`` full passes
    epochs: int = 2
    batch_size: int = 32  # 512 in the paper (GPU)
    lr: float = 3e-5
    gamma: float = 0.98
    decay_every: int = 2000
    seed: int = 0
    hard_negatives: int = 2  # per phrase; 0 = switched off
    # the batch layout (pearl.training.batches.LAYOUTS; the field keeps its first name, which the stored
    # models' recipe keys and train_config hold): "extra_negatives": a phrase's hard negatives are extra
    # candidates of the loss; "reference": rows of the batch with their own positive and type label, as
    # the authors' loader
    batch_composition: str = "extra_negatives"
    use_char: bool = True
    use_type_head: bool = True
    char_dim: int = 64
    char_weight: float = 0.5  # the asked weight w; the model joins at the applied scale a (PearlModel.char_scale)
    # the share of the embedding's total variance (training vocabulary) the character part may hold:
    # caps char_weight w into the applied scale a (pearl.training.composition; chosen in
    # results/composition.md); None: no cap (a = w)
    max_char_share: float | None = 0.01
    # centre the phrase part on the training vocabulary's mean: None lets the rule decide (an
    # anisotropic backbone only, pearl.training.composition); True or False forces it
    centre: bool | None = None
    char_distill_steps: int = 300
    char_distill_vocab: int = 8000
    type_weight: float = 1.0
    head_lr: float | None = None  # the type head's lr; None = ``lr`` (see :func:`param_groups`)
    temperature: float = 0.07  # of the similarity scores (every objective but Phrase-BERT's distances)
    objective: str = "pearl"  # a key of pearl.training.objectives.OBJECTIVES
    settings: object = None  # the objective's own settings (its dataclass); None = its defaults
    average: float = 0.5  # weight of the fine-tuned backbone in the final weight averaging
    max_length: int = 32
    length_buckets: int = 4  # backbone runs on this many length-sorted slices (less padding)
    checkpoint_every: int = 0
    num_workers: int = 0
    device: str | None = None
    compile: bool = False
    bf16: bool | None = None  # bf16 autocast; None = on CUDA only (False: fp32 on a GPU too)
    # "rows": the word embeddings get a sparse gradient and a row-wise Adam update, giving the dense
    # update's weights up to float rounding (pearl.training.optim); "dense": every row every step
    embedding_update: str = "rows"
    # how batches reach the model, the same batches either way: "collate" builds each in the step
    # (pearl.training.batches.Collator), "arrays" draws every step once before the loop and gathers
    # each by index (pearl.training.arrays; num_workers processes draw)
    feed: str = "collate"
    # read the loss back from the device every this many steps (1: every step); between, a CUDA step
    # never waits for the host
    log_every: int = 1

    @classmethod
    def of(cls, objective: str = "pearl", **values) -> TrainConfig:
        """A config from flat ``values``: shared fields and ``objective``'s own settings by name
        (``TrainConfig.of("pause", label_share=0.05, lr=1e-4)``); another objective's are refused."""
        shared = {f.name for f in dataclasses.fields(cls)} - {"objective", "settings"}
        settings, rest = objectives.split(objective, values, shared)
        return cls(objective=objective, settings=settings, **rest)

    def __post_init__(self):
        self.check()  # bad settings fail here, with the fix, not steps into a run

    def check(self) -> None:
        """Refuse a shared field outside :data:`pearl.training.settings.RANGES`, an unknown objective,
        or settings of another objective's kind; missing settings become the objective's defaults."""
        check_fields(self, RANGES)
        self.settings = objectives.settings_for(self.objective, self.settings)
        if self.batch_composition == "reference" and self.objective != "pearl":
            raise ValueError(f"TrainConfig.batch_composition = 'reference' is the PEARL authors' batches; objective "
                             f"{self.objective!r} uses its negatives its own way: use 'extra_negatives'")

    def record(self) -> dict:
        """The config as one flat dict (pearl.json's ``train_config``, checkpoints, the runner's keys)."""
        return objectives.record(self)


@dataclass
class TrainResult:
    model: PearlModel
    tokenizer: object
    config: TrainConfig
    log: list = field(default_factory=list)
    seconds: float = 0.0
    steps: int = 0  # run by this call: a resumed run's from its checkpoint's step (``first_step``) on
    first_step: int = 0


def uses_bf16(device: str, cfg: TrainConfig) -> bool:
    """bf16 autocast on CUDA unless ``cfg.bf16`` is False; always fp32 on CPU (bf16 matmuls
    there are slower on most CPUs and would change the tested CPU numbers).

    >>> uses_bf16("cuda:0", TrainConfig()), uses_bf16("cuda", TrainConfig(bf16=False)), uses_bf16("cpu", TrainConfig(bf16=True))
    (True, False, False)
    """
    return device.startswith("cuda") and cfg.bf16 is not False


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def param_groups(model: PearlModel, cfg: TrainConfig) -> list[dict]:
    """Adam groups: the type head at ``head_lr`` (when set), everything else at ``lr``.

    Why: the head is new and reads unit-norm vectors, so its logits start near 0; at the
    backbone's lr it stays near the uniform guess for the few hundred steps of a CPU run and
    passes the backbone no useful signal. The paper's 15K steps at 3e-5 leave it time to learn.
    """
    head = list(model.type_head.parameters()) if model.type_head is not None and cfg.head_lr else []
    ids = {id(p) for p in head}
    groups = [{"params": [p for p in model.parameters() if id(p) not in ids], "lr": cfg.lr}]
    if head:
        groups.append({"params": head, "lr": cfg.head_lr})
    return groups


def make_optimizer(model: PearlModel, cfg: TrainConfig) -> torch.optim.Adam:
    """Adam over :func:`param_groups`: :class:`pearl.training.optim.RowAdam` when
    ``cfg.embedding_update`` is "rows" (the word embeddings, given sparse gradients by
    :func:`pearl.training.optim.sparse_embedding_grads`, are updated row-wise), else torch's own."""
    # fused: one kernel over all parameters. Torch's CPU default loops over them one tensor at a
    # time; for MiniLM (22M parameters, half of them the word embeddings, updated densely every
    # step) that loop took 16 % of a cpu-profile step (py-spy), 0.23 s against 0.03 s fused
    # (perf/train_throughput.py prints both)
    kind = RowAdam if cfg.embedding_update == "rows" else torch.optim.Adam
    return kind(param_groups(model, cfg), lr=cfg.lr, fused=True)


def reference_rows(cfg: TrainConfig, hard_negatives: dict | None, index: dict[str, int]) -> dict:
    """The :class:`pearl.training.batches.Collator` arguments of the batch layout ``cfg.batch_composition``: none for
    the default; for ``"reference"`` the rows a batch holds and the type label index of every phrase
    the hard negatives carry (:class:`pearl.corpus.hard_negatives.HardNegatives`; ``index``: label -> index)."""
    if cfg.batch_composition == "extra_negatives":
        return {}
    types = getattr(hard_negatives, "types", {})
    return {"layout": cfg.batch_composition, "rows": cfg.batch_size,
            "types": {p: index[t] for p, t in types.items() if t in index}}


def compute_loss(model: nn.Module, batch: dict, cfg: TrainConfig, world: int = 1,
                 total: int | None = None, lazy: bool = False) -> tuple[torch.Tensor, dict]:
    """The loss of one (local) batch; with ``world > 1`` embeddings are gathered across processes.
    ``total``: the run's number of steps (PAUSE's annealing needs it). ``lazy`` leaves the parts
    as detached tensors (no wait for the device; :func:`read_parts` reads them), else floats."""
    out = model(**batch["inputs"], buckets=cfg.length_buckets)
    b, e = batch["n"], out.embedding
    orig, aug, neg = e[:b], e[b : 2 * b], e[2 * b :]
    if world > 1:
        from torch.distributed.nn.functional import all_gather

        # every process computes the same global loss; all_gather's backward sums the
        # gradients of the W copies and DDP divides by W, which leaves the exact gradient
        with warnings.catch_warnings():  # deprecated in favour of a private API; still the public one
            warnings.simplefilter("ignore", FutureWarning)
            orig, aug, neg = (torch.cat(all_gather(x.contiguous())) for x in (orig, aug, neg))
    labelled = batch.get("labelled")  # PAUSE: flags of the global batch (every rank builds it whole)
    loss, parts = objectives.contrastive(cfg, model, orig, aug, neg, labelled, batch.get("step", 0), total)
    if out.type_logits is not None and cfg.type_weight:
        labels = batch["labels"].to(e.device).repeat(2)
        ce_sum = nn.functional.cross_entropy(out.type_logits[: 2 * b].float(), labels, reduction="sum")
        ce = ce_sum / (2 * b)  # local mean; DDP's average over W equal shards gives the global mean
        parts["type"] = ce.detach()
        loss = loss + cfg.type_weight * ce
    parts["loss"] = loss.detach()
    return loss, parts if lazy else read_parts(parts)


def read_parts(parts: dict) -> dict:
    """``parts`` with every tensor read back as a float (the one wait for the device)."""
    return {k: v.item() if torch.is_tensor(v) else v for k, v in parts.items()}


def batches(cfg: TrainConfig, plan: BatchPlan, collator: Collator, total: int, start: int, end: int,
            run_dir: Path | None, inputs: str | None, device: str) -> torch.utils.data.Dataset:
    """Steps ``start .. end-1`` as a dataset of batches: the Collator's, or (``cfg.feed == "arrays"``)
    gathered from the run's arrays (:mod:`pearl.training.arrays`), drawn once for all ``total`` steps
    by ``cfg.num_workers`` processes and kept in ``run_dir/arrays`` (a resume reads them back)."""
    if cfg.feed == "collate":
        return StepDataset(plan, collator, start, end)
    from . import arrays

    drawing = {k: v for k, v in cfg.record().items() if k in DRAWING}
    keep = run_dir is not None and collator.rank == 0  # one writer: other ranks of data parallel draw in memory
    data = arrays.prepare(collator, plan, total, run_dir / "arrays" if keep else None,
                          {"config": drawing, "inputs": inputs, "phrases": plan.n}, workers=cfg.num_workers)
    # on a GPU few shapes (multiples of 8); on a CPU the Collator's exact widths
    cuda = device.startswith("cuda")
    steps = arrays.StepArrays(data, collator.use_char, collator.rank, collator.world, pad_multiple=8 if cuda else 1,
                              buckets=cfg.length_buckets if cuda else 1)
    return arrays.StepArraysDataset(steps, start, end)


#: the config fields that decide a run's drawn batches (with the inputs, the tokenizer and the steps)
DRAWING = ("batch_size", "hard_negatives", "batch_composition", "epochs", "objective", "seed", "max_length", "use_char")


def train(cfg: TrainConfig, corpus: list[tuple[str, str]], hard_negatives: dict | None,
          augmenter: AugmenterFactory, labels: list[str] | None = None, run_dir: str | Path | None = None,
          stop_at: int | None = None, progress: bool = True, backbone=None,
          resume_from: str | Path | None = None) -> TrainResult:
    """Train PEARL (or a neighbour: ``cfg.objective``) on ``corpus`` (``(phrase, type label)`` rows),
    the positives drawn by ``augmenter`` (:func:`pearl.training.methods.augmenter_for`).

    ``run_dir`` holds checkpoints and ``log.csv`` (resumes from ``checkpoint.pt`` there, or from
    the checkpoint file ``resume_from``; either must match its sha256 digest);
    ``stop_at`` stops early without averaging (to simulate a killed run in tests);
    ``backbone`` = ``(module, tokenizer)`` overrides ``cfg.backbone`` (tests use a tiny one).
    """
    import torch.distributed as dist
    from tqdm.auto import tqdm

    cfg.check()  # again: a config changed after it was made
    if labels is None:
        labels = list(LABELS)
    index = {label: i for i, label in enumerate(labels)}
    unknown = sorted({t for _, t in corpus if t not in index})
    if unknown:
        raise ValueError(f"corpus labels not in the label set: {unknown[:5]}; rebuild the corpus (01_data_building)")
    phrases = [p for p, _ in corpus]
    world = dist.get_world_size() if dist.is_available() and dist.is_initialized() else 1
    rank = dist.get_rank() if world > 1 else 0
    device = pick_device(cfg.device)
    if world > 1 and device == "cuda":
        device = f"cuda:{rank % torch.cuda.device_count()}"

    module, tokenizer = backbone if backbone is not None else load_backbone(cfg.backbone)
    seed_everything(cfg.seed)  # after loading: building a backbone on first use (me5-small, mlm-wiki) draws random numbers
    model = build_model(module, cfg.use_char, cfg.use_type_head, cfg.char_dim, len(labels), cfg.char_weight)
    original = {k: v.detach().clone() for k, v in model.backbone.state_dict().items()}
    run_dir = Path(run_dir) if run_dir is not None else None
    if run_dir is None and resume_from is not None:
        run_dir = Path(resume_from).parent
    ckpt_path = run_dir / checkpoint.LATEST if run_dir is not None else None
    resume = checkpoint.load(run_dir, resume_from) if run_dir is not None else None
    vocab = training_vocab(phrases, cfg.char_distill_vocab)
    # a resumed run has its centre, its character scale and its distilled character encoder in the checkpoint
    if model.char_encoder is not None and resume is None:
        vectors = model.phrase_vectors(tokenizer, vocab, cfg.max_length)  # one pass serves both
        if cfg.char_distill_steps:
            distill_char_encoder(model, vocab, vectors, cfg)
        # after distilling: the rule reads the character part the training starts from
        model.compose(tokenizer, vocab, cfg.char_weight, cfg.max_char_share, cfg.centre, cfg.max_length, vectors)
    model.to(device).train()

    plan = BatchPlan(len(corpus), anchors_per_batch(cfg.batch_size, cfg.hard_negatives, cfg.batch_composition),
                     cfg.seed, cfg.epochs)
    total = plan.steps(cfg.steps)
    objective = objectives.get(cfg.objective)
    if objective.positives == "self":  # the phrase itself is the positive, whatever factory was passed
        augmenter = identity_augmenter
    labelled = (objective.prepare(cfg, model.backbone, len(corpus)) if objective.prepare else {}).get("labelled")
    collator = Collator(tokenizer, phrases, [index[t] for _, t in corpus],
                        hard_negatives, augmenter, cfg.hard_negatives,
                        cfg.max_length, model.char_encoder is not None, cfg.seed, rank, world, labelled,
                        **reference_rows(cfg, hard_negatives, index))
    optimizer = make_optimizer(model, cfg)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=cfg.decay_every, gamma=cfg.gamma)
    start, log = 0, []
    inputs = checkpoint.inputs_digest(corpus, collator.hard_negatives or None, getattr(augmenter, "lexicons", None)) \
        if ckpt_path is not None and (cfg.checkpoint_every or resume is not None or cfg.feed == "arrays") \
        else None  # ~1 s on a cpu-profile corpus
    if resume is not None:
        checkpoint.refuse_other_run(resume, resume_from or ckpt_path, run_dir, cfg, inputs,
                                    "corpus, hard negatives or augmentation lexicons")
        model.load_state_dict(resume["model"])
        optimizer.load_state_dict(resume["optimizer"])
        scheduler.load_state_dict(resume["scheduler"])
        start, log = resume["step"], resume["log"]
        checkpoint.set_rng_state(resume["rng"])

    net: nn.Module = model
    compiled = device.startswith("cuda") and cfg.compile
    if compiled:
        model.backbone = torch.compile(model.backbone, dynamic=True)
    if world > 1:
        net = nn.parallel.DistributedDataParallel(model, device_ids=[device] if device.startswith("cuda") else None)
    use_bf16 = uses_bf16(device, cfg)
    end = min(total, stop_at) if stop_at is not None else total
    loader = torch.utils.data.DataLoader(batches(cfg, plan, collator, total, start, end, run_dir, inputs, device),
                                         batch_size=None, num_workers=cfg.num_workers if cfg.feed == "collate" else 0,
                                         pin_memory=device.startswith("cuda") and cfg.feed == "arrays",
                                         # its own generator: creating the iterator must not draw
                                         # from the global RNG (that would break exact resume)
                                         generator=torch.Generator().manual_seed(cfg.seed))
    t0, pending = time.perf_counter(), []
    bar = tqdm(loader, total=end - start, initial=0, desc=f"{cfg.objective} seed {cfg.seed}", disable=not progress or rank)
    # compiled, the word embeddings keep dense gradients (RowAdam then updates them as torch's Adam
    # does): inductor cannot compile a sparse embedding backward and breaks the graph there
    with sparse_embedding_grads(model.backbone, cfg.embedding_update == "rows" and not compiled):  # restored after
        for batch in bar:
            batch["inputs"] = {k: v.to(device, non_blocking=True) if torch.is_tensor(v) else v
                               for k, v in batch["inputs"].items()}
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=use_bf16):
                loss, parts = compute_loss(net, batch, cfg, world, total, lazy=True)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            scheduler.step()
            step = batch["step"] + 1
            pending.append({"step": step, **parts, "lr": scheduler.get_last_lr()[0]})
            saving = ckpt_path is not None and cfg.checkpoint_every and step % cfg.checkpoint_every == 0 and rank == 0
            if len(pending) >= cfg.log_every or saving or step == end:
                for entry in map(read_parts, pending):  # the first read waits for the device, the rest are ready
                    if not math.isfinite(entry["loss"]):
                        raise FloatingPointError(f"loss is {entry['loss']} at step {entry['step']}: lower lr (now {cfg.lr})")
                    log.append(entry)
                pending.clear()
                bar.set_postfix(loss=f"{log[-1]['loss']:.3f}")
            if saving:
                checkpoint.save_state(run_dir, model, optimizer, scheduler, step, log, cfg, inputs)
    seconds = time.perf_counter() - t0
    if ckpt_path is not None and cfg.checkpoint_every and rank == 0 and log and log[-1]["step"] % cfg.checkpoint_every:
        checkpoint.save_state(run_dir, model, optimizer, scheduler, log[-1]["step"], log, cfg, inputs)  # the last step too
    model = model._orig_mod if hasattr(model, "_orig_mod") else model
    if hasattr(model.backbone, "_orig_mod"):
        model.backbone = model.backbone._orig_mod
    if stop_at is None or stop_at >= total:
        average_and_centre(model, tokenizer, original, phrases, cfg)
    if run_dir is not None and rank == 0:
        import pandas as pd

        write_atomic(run_dir / "log.csv", pd.DataFrame(log).to_csv(index=False))
    return TrainResult(model.eval(), tokenizer, cfg, log, seconds, end - start, start)
