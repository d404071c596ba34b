"""Training engineering: a killed run resumes to the same weights; 2-process DDP (gloo) gives
the gradients of one process on the same global batch; weight averaging."""
import os
import socket

import pytest
import torch
import torch.multiprocessing as mp
from _tiny import (
    CFG,
    LABELS,
    swap_augmenter,
    tiny_backbone,
    tiny_corpus,
    tiny_hard_negatives,
    tiny_train,
)
from pearl.training.model import average_weights
from pearl.training.optim import sparse_embedding_grads
from pearl.training.train import TrainConfig, compute_loss, train


def test_resume_equals_uninterrupted(tmp_path):
    full = tiny_train(tmp_path / "full", steps=6)
    tiny_train(tmp_path / "killed", steps=6, stop_at=4)  # "killed" after the checkpoint of step 4
    assert (tmp_path / "killed" / "checkpoint.pt").is_file()
    resumed = tiny_train(tmp_path / "killed", steps=6)
    assert resumed.steps == 2 and resumed.first_step == 4 and full.first_step == 0
    assert [r["step"] for r in resumed.log] == list(range(1, 7))
    a, b = full.model.state_dict(), resumed.model.state_dict()
    assert a.keys() == b.keys()
    for k in a:
        torch.testing.assert_close(a[k], b[k], rtol=0, atol=0, msg=k)
    assert [r["loss"] for r in full.log] == [r["loss"] for r in resumed.log]


def test_a_backbone_built_on_first_use_leaves_the_run_as_it_was(monkeypatch):
    """A backbone folder made on first use (me5-small converted, mlm-wiki pretrained) builds a model,
    whose initialisation draws from torch's generator: the run must be the one it is when the
    folder already exists."""
    import pearl.training.train as trainer

    def built_on_first_use(name):
        module = tiny_backbone()  # seeds torch's generator itself, as a pretraining does,
        torch.rand(1000)  # and draws from it, as a model's initialisation does
        return module

    corpus = tiny_corpus(32)
    cfg = TrainConfig(steps=2, **{**CFG, "seed": 1})
    kept = train(cfg, corpus, tiny_hard_negatives(corpus), swap_augmenter, labels=LABELS, progress=False,
                 backbone=tiny_backbone())
    monkeypatch.setattr(trainer, "load_backbone", built_on_first_use)
    built = train(cfg, corpus, tiny_hard_negatives(corpus), swap_augmenter, labels=LABELS, progress=False)
    assert [r["loss"] for r in built.log] == [r["loss"] for r in kept.log]


def test_resume_on_another_corpus_or_lexicons_is_refused(tmp_path):
    """The checkpoint keeps the digest of what the run trains on; resuming on other phrases, or
    with other augmentation lexicons, stops with the fix instead of training on silently."""
    from pearl.corpus.augment import AugmentLexicons
    from pearl.training.methods import augmenter_factory

    corpus = tiny_corpus(32)
    cfg = TrainConfig(steps=6, checkpoint_every=2, **CFG)

    def run(rows, lexicons, stop_at=None):
        return train(cfg, rows, tiny_hard_negatives(rows), augmenter_factory(lexicons=lexicons), labels=LABELS,
                     run_dir=tmp_path, stop_at=stop_at, progress=False, backbone=tiny_backbone())

    lexicons = AugmentLexicons(wordnet={"green": ["verdant"]})
    run(corpus, lexicons, stop_at=2)
    with pytest.raises(ValueError, match=r"trained on another corpus, hard negatives or augmentation lexicons: delete"):
        run(corpus[:-1] + [("something else", corpus[-1][1])], lexicons)
    with pytest.raises(ValueError, match="augmentation lexicons"):
        run(corpus, AugmentLexicons(wordnet={"green": ["emerald"]}))
    assert run(corpus, lexicons).steps == 4  # the same inputs resume


def test_weight_averaging_is_the_midpoint():
    backbone, _ = tiny_backbone()
    original = {k: v.clone() for k, v in backbone.state_dict().items()}
    with torch.no_grad():
        for p in backbone.parameters():
            p.add_(1.0)
    average_weights(backbone, original, 0.5)
    w = "embeddings.word_embeddings.weight"
    torch.testing.assert_close(backbone.state_dict()[w], original[w] + 0.5)


def _global_batch():
    from pearl.training.batches import BatchPlan, Collator

    corpus = tiny_corpus(32)
    _, tok = tiny_backbone()
    phrases = [p for p, _ in corpus]

    def collator(rank, world):
        return Collator(tok, phrases, [LABELS.index(t) for _, t in corpus], tiny_hard_negatives(corpus),
                        swap_augmenter, k=2, rank=rank, world=world)

    plan = BatchPlan(32, 8, seed=0)
    return collator, plan.indices(0)


def _model():
    from pearl.training.model import build_model

    backbone, _ = tiny_backbone()
    torch.manual_seed(0)
    # eval(): no dropout, whose masks differ between one process and two by construction
    return build_model(backbone, char_dim=16, num_labels=len(LABELS)).eval()


def _ddp_worker(rank, world, port, out, sparse):
    import torch.distributed as dist

    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.set_num_threads(1)
    model = _model()
    with sparse_embedding_grads(model.backbone, sparse):
        ddp = torch.nn.parallel.DistributedDataParallel(model)
        collator, indices = _global_batch()
        loss, _ = compute_loss(ddp, collator(rank, world)(0, indices), TrainConfig(), world)
        loss.backward()
    if rank == 0:
        torch.save({n: p.grad.to_dense() for n, p in model.named_parameters()}, out)
    dist.destroy_process_group()


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse word-embedding gradient"])
def test_ddp_two_processes_match_one(tmp_path, sparse):
    """Also with the sparse gradient of the row-wise update (embedding_update="rows", the default)."""
    collator, indices = _global_batch()
    model = _model()
    loss, _ = compute_loss(model, collator(0, 1)(0, indices), TrainConfig(), 1)
    loss.backward()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out = tmp_path / "grads.pt"
    mp.spawn(_ddp_worker, args=(2, port, str(out), sparse), nprocs=2, join=True)
    ddp_grads = torch.load(out)
    for name, p in model.named_parameters():
        torch.testing.assert_close(ddp_grads[name], p.grad, rtol=1e-4, atol=1e-6, msg=name)
    assert any(float(g.abs().sum()) > 0 for g in ddp_grads.values())


def test_bad_inputs_name_the_fix():
    corpus = tiny_corpus(32)
    with pytest.raises(ValueError, match="not in the label set"):
        train(TrainConfig(steps=1, **CFG), [(p, "NP-NOPE") for p, _ in corpus], None, swap_augmenter,
              labels=LABELS, progress=False, backbone=tiny_backbone())
    with pytest.raises(ValueError, match="fewer than one batch"):
        train(TrainConfig(steps=1, **{**CFG, "batch_size": 64}), corpus, None, swap_augmenter, labels=LABELS,
              progress=False, backbone=tiny_backbone())


def test_unknown_objective_is_refused(tmp_path):
    with pytest.raises(ValueError, match="unknown objective"):
        tiny_train(tmp_path, steps=1, objective="simclr")


def test_type_head_gets_its_own_learning_rate():
    from pearl.training.model import build_model
    from pearl.training.train import param_groups

    model = build_model(tiny_backbone()[0], use_char=True, use_type_head=True, char_dim=16, num_labels=len(LABELS))
    head = {id(p) for p in model.type_head.parameters()}
    groups = param_groups(model, TrainConfig(lr=1e-4, head_lr=1e-2))
    assert [g["lr"] for g in groups] == [1e-4, 1e-2]
    assert {id(p) for p in groups[1]["params"]} == head
    assert sum(len(g["params"]) for g in groups) == len(list(model.parameters()))
    assert len(param_groups(model, TrainConfig(lr=1e-4))) == 1  # head_lr None: the paper's single lr


def test_bf16_only_on_cuda_and_can_be_switched_off():
    from pearl.training.train import TrainConfig, uses_bf16

    assert uses_bf16("cuda", TrainConfig()) and uses_bf16("cuda:1", TrainConfig(bf16=True))
    assert not uses_bf16("cuda", TrainConfig(bf16=False))  # the fp32 replay of the cpu profile on a GPU
    assert not uses_bf16("cpu", TrainConfig()) and not uses_bf16("cpu", TrainConfig(bf16=True))


def test_reference_batches_train_with_the_types_the_hard_negatives_carry():
    """The reference batch layout on hard negatives that are none of the training phrases: a plain
    dict has no types for them and is refused with the fix; HardNegatives carries them and trains."""
    from pearl.corpus.hard_negatives import HardNegatives

    full = tiny_corpus(32)
    corpus = full[:16]
    pools = {p: [full[16 + (i + j) % 16][0] for j in range(3)] for i, (p, _) in enumerate(corpus)}
    cfg = TrainConfig(steps=2, batch_composition="reference", **CFG)
    with pytest.raises(ValueError, match=r"16 hard negatives have none .*load_training_data"):
        train(cfg, corpus, pools, swap_augmenter, labels=LABELS, progress=False, backbone=tiny_backbone())
    result = train(cfg, corpus, HardNegatives(pools, full), swap_augmenter, labels=LABELS, progress=False,
                   backbone=tiny_backbone())
    assert [r["step"] for r in result.log] == [1, 2] and all(r["type"] > 0 for r in result.log)
