# %% [markdown]
# # 12 · What the paper claims and what holds here
#
# Each claim of the paper (and the neighbours' claims this companion tests) is quoted in
# `harness.claims.ledger` with the paper's number for it: from the sentence itself, or the
# difference of two printed cells of its tables (`pearl.benchmark.paper`). Our number comes from
# the committed results files of notebooks 04–11 (`harness.claims.ours`; per-seed scores where
# the notebooks kept them): a difference with its **95 % confidence interval** by Welch's t, with
# one noise model per reference (seeds on both sides; the untrained backbone's own spread over its
# classifier seeds on Table 2; an exact number where the backbone is scored once,
# deterministically), its p-value against 0 and against the paper's value, and the **minimum
# detectable effect** (the smallest true difference the test finds 80 % of the time at α = 0.05).
# The paper's value is set beside its **like-for-like** value (the same datasets and averaging as
# ours, from its printed cells), and the verdict reads that one. Each claim about E5-small has a
# row on MiniLM and one on me5-small, the two offline stand-ins (`backbone`).
#
# The verdicts read each row's **family interval**: one family per sentence of the paper (the rows
# that test it, on every stand-in and metric; the `family` column names it), each bound of the
# interval a one-sided test at 0.05 / m for the family's m rows with a noise model (the 90 %
# interval of TOST when the sentence has one row). A row of another sentence never moves a verdict.
# An effect is *reproduced* when that interval lies within a margin of the paper's value, *not
# reproduced at this budget* when it excludes the paper's size but not 0, *below resolution* when
# the margin is at least the claimed effect; the margins are data with their reasons
# (`harness.claims.ledger.MARGINS`), not the paper's printed gaps. The rule's table is printed below
# from `pearl.claims.rule.TABLE`. Rows that do not test the paper's claim (the same test as another
# row, or a cost measured under a listed deviation) are shown apart and kept out of the tally and
# of their sentence's family.
#
# *Not testable here* gives the reason (a base-size backbone, the paper's competitors or its real
# retrieval dictionaries are not offline), or names the run that would test it.
#
# This notebook trains and scores nothing: it reads `results/` (the committed files, or
# `RESULTS_FROM`). At SMOKE size it still reads them, and labels its outputs SMOKE.

# %% tags=["parameters"]
SMOKE: bool = False
RESULTS_FROM: str = ""  # a results folder to read; "" for the repository's results/

# %%
# the parameters above, checked against their types (a list passed with -p fails here); the run's
# record and its scale (SMOKE: tiny sizes, outputs labelled, never in place of full-size ones)
from harness.preamble import start

run = start("12_claims", globals(), __annotations__)

import pandas as pd

from pearl.benchmark import paper
from harness.claims import ours, report
from harness.outputs import save_figure

# at full size a SMOKE results file is refused as evidence, naming it; each file read is listed with its commit and scale
results = ours.Results(RESULTS_FROM or None, guard=run.scale.guard)

# %% [markdown]
# ## The ledger

# %%
with run.timer("build"):
    ledger = report.build(results)
report.counts(ledger), report.by_backbone(ledger)

# %%
from pearl.tabular import render

print(render(report.RULE, "md"))

# %%
pd.set_option("display.max_colwidth", 60)
ledger[["id", "backbone", "quantity", "paper", "paper_like_for_like", "ours", "ci_low", "ci_high", "p", "p_vs_paper",
        "p_adj", "verdict"]].round(3)

# %% [markdown]
# Why each verdict, in words:

# %%
print(report.reasons(ledger))

# %% [markdown]
# ## The paper's effect against ours
#
# One row per testable claim: the paper's like-for-like number (×), ours with its 95 % interval
# (a bar; none where there is no noise model), colour by verdict. Claims that give a direction
# only show an arrow at zero.

# %%
report.save(ledger, guard=run.scale.guard, sources=results.sources())
fig = report.plot(ledger)
save_figure(fig, "claims", smoke=run.scale.smoke)
fig

# %% [markdown]
# ## The paper's own slips
#
# Where the paper's printed numbers disagree with its own rows. The paper's numbers are kept as
# printed everywhere in this companion; these are recorded, not corrected.

# %%
paper.slips()

# %%
path = run.save(metrics={"counts": report.counts(ledger), "by_backbone": report.by_backbone(ledger), "claims": len(ledger),
                         "verdicts": dict(zip(ledger["id"], ledger["verdict"]))}, sources=results.sources())
print("wrote", path)
