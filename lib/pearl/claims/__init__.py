"""The verdict of a measured difference against a paper's claim: one fixed rule with its
statistics (:mod:`.rule`).

What it leaves out: the claims themselves and where our numbers come from (the harness's
``harness.claims``, which reads a repository's committed records), training and scoring.
"""
