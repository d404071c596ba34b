"""The CUDA-only branches of pearl.training.train (bf16 autocast, torch.compile) on a CPU: the
device is forced to read as CUDA and torch.compile is replaced by a wrapper with the same
``_orig_mod`` attribute, so the code around both branches runs (the decision, the autocast
context, the compiled backbone's forward and backward, the unwrapping before averaging and
export). The rehearsal (``make rehearse``) runs the gpu profile's other branches."""
import torch
from _tiny import CFG, LABELS, swap_augmenter, tiny_backbone, tiny_corpus, tiny_hard_negatives

from pearl.training import train as train_mod
from pearl.training.train import TrainConfig, train


class _Cuda(str):
    """A device name that reads as CUDA to the trainer's checks and as the CPU to torch."""

    def startswith(self, prefix, *args):
        return prefix == "cuda" or str.startswith(self, prefix, *args)


class _Compiled(torch.nn.Module):
    """What torch.compile returns: a module that runs the original, kept as ``_orig_mod``."""

    def __init__(self, module):
        super().__init__()
        self._orig_mod = module
        self.calls = 0

    def forward(self, *args, **kwargs):
        self.calls += 1
        return self._orig_mod(*args, **kwargs)


def _train(monkeypatch, **kw):
    seen = {}
    real_autocast = torch.autocast

    def autocast(device_type, dtype=None, enabled=True, **rest):
        seen.setdefault("autocast", []).append((device_type, dtype, enabled))
        return real_autocast("cpu", dtype=torch.bfloat16, enabled=False)  # the CPU runs the step in fp32

    def compile_(module, **options):
        seen["compiled"] = _Compiled(module)
        seen["options"] = options
        return seen["compiled"]

    monkeypatch.setattr(train_mod, "pick_device", lambda _: _Cuda("cpu"))
    monkeypatch.setattr(torch, "autocast", autocast)
    monkeypatch.setattr(torch, "compile", compile_)
    corpus = tiny_corpus(16)
    cfg = TrainConfig(steps=3, **{**CFG, **kw})
    result = train(cfg, corpus, tiny_hard_negatives(corpus), swap_augmenter, labels=LABELS, progress=False,
                   backbone=tiny_backbone())
    return result, seen


def test_on_cuda_every_step_runs_under_bf16_autocast(monkeypatch):
    result, seen = _train(monkeypatch)
    assert seen["autocast"] == [("cuda", torch.bfloat16, True)] * 3
    assert result.steps == 3 and all(torch.isfinite(torch.tensor(r["loss"])) for r in result.log)


def test_bf16_off_keeps_cuda_steps_in_fp32(monkeypatch):
    _, seen = _train(monkeypatch, bf16=False)
    assert seen["autocast"] == [("cuda", torch.bfloat16, False)] * 3


def test_compile_wraps_the_backbone_on_cuda_and_is_unwrapped_before_export(monkeypatch):
    result, seen = _train(monkeypatch, compile=True)
    assert seen["options"] == {"dynamic": True}
    assert seen["compiled"].calls > 0  # the steps ran through the compiled backbone
    assert not hasattr(result.model.backbone, "_orig_mod")  # averaged and exported as the plain module
    assert result.model.backbone is seen["compiled"]._orig_mod


def test_compile_is_ignored_on_the_cpu(monkeypatch):
    monkeypatch.setattr(torch, "compile", lambda *a, **k: (_ for _ in ()).throw(AssertionError("compiled on a CPU")))
    corpus = tiny_corpus(16)
    result = train(TrainConfig(steps=2, compile=True, **CFG), corpus, tiny_hard_negatives(corpus), swap_augmenter,
                   labels=LABELS, progress=False, backbone=tiny_backbone())
    assert result.steps == 2
