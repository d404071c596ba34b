"""The paper's claims against this repository's committed results: each claim as data
(:mod:`.ledger`), our number for it read from the results files of notebooks 04-11
(:mod:`.ours`), and :mod:`.report`, which writes ``results/claims.*`` and the figure with the
verdicts of :mod:`pearl.claims.rule`.

What it leaves out: the verdict rule and its statistics (:mod:`pearl.claims.rule`, in the science).
"""
