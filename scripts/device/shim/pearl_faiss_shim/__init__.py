"""Device-machine stand-in for faiss-cpu (not in the GPU image): exact inner-product search in torch on the GPU.

Flat index only; same results as faiss.IndexFlatIP up to ties. Importable as ``faiss`` only
through the alias that scripts/device/setup.sh writes on a machine without faiss.
"""
import numpy as np
import torch

METRIC_INNER_PRODUCT = 0


class IndexFlatIP:
    def __init__(self, d):
        self.d = d
        self.xb = None

    def add(self, x):
        x = torch.as_tensor(np.ascontiguousarray(x, dtype=np.float32), device="cuda")
        self.xb = x if self.xb is None else torch.cat([self.xb, x])

    @property
    def ntotal(self):
        return 0 if self.xb is None else len(self.xb)

    def search(self, q, k):
        q = torch.as_tensor(np.ascontiguousarray(q, dtype=np.float32), device="cuda")
        D, I = [], []
        for i in range(0, len(q), 4096):
            s = q[i:i + 4096] @ self.xb.T
            d, ix = torch.topk(s, min(k, s.shape[1]), dim=1)
            D.append(d.cpu()); I.append(ix.cpu())
        return torch.cat(D).numpy(), torch.cat(I).numpy().astype(np.int64)


def omp_set_num_threads(n):
    pass


def normalize_L2(x):
    x /= np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)
