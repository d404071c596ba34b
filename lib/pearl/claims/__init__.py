"""The paper's claims and what holds here: each claim as data (:mod:`.ledger`), our number for it
computed from the committed results files (:mod:`.ours`), and one fixed verdict rule with its
statistics (:mod:`.rule`); :mod:`.report` writes ``results/claims.*`` and the figure.

What it leaves out: training and scoring (the results files come from notebooks 03-11).
"""
