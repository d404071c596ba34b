# %% [markdown]
# # 12 · What the paper claims and what holds here
#
# Each claim of the paper (and the neighbours' claims this companion tests) is quoted in
# `pearl.claims.ledger` with the paper's number for it: from the sentence itself, or the
# difference of two printed cells of its tables (`pearl.benchmark.paper`). Our number comes from
# the committed results files of notebooks 04–11 (`pearl.claims.ours`; per-seed scores where
# the notebooks kept them): a difference, its seed std, a t-test over seeds, and the **minimum
# detectable effect**, the smallest true difference that test finds 80 % of the time at
# α = 0.05. One fixed rule (`pearl.claims.rule`) turns them into a verdict:
#
# - *reproduced*: in the paper's direction, beyond the noise, at least half the paper's size;
# - *direction only*: in its direction, beyond the noise (or with no noise to test), smaller;
# - *not reproduced*: the opposite direction beyond the noise, or no effect where the test
#   could have seen the paper's;
# - *underpowered*: within the noise, and the paper's effect is smaller than what our seeds
#   can detect;
# - *not testable here*: with the reason (a base-size backbone, the paper's competitors or its
#   real retrieval dictionaries are not offline).
#
# This notebook trains and scores nothing: it reads `results/` (the committed files, or
# `RESULTS_FROM`). At SMOKE size it still reads them, and labels its outputs SMOKE.

# %% parameters
SMOKE: bool = False
RESULTS_FROM: str = ""  # a results folder to read; "" for the repository's results/

# %%
# the parameters above, checked against their types (a list passed with -p fails here)
from pearl.provenance import check_params

check_params(globals(), __annotations__)

import pandas as pd

from pearl.benchmark import paper
from pearl.claims import ours, report
from pearl.provenance import Run, save_figure

run = Run("12_claims", dict(SMOKE=SMOKE, RESULTS_FROM=RESULTS_FROM))
results = ours.Results(RESULTS_FROM or None)

# %% [markdown]
# ## The ledger

# %%
with run.timer("build"):
    ledger = report.build(results)
report.counts(ledger)

# %%
pd.set_option("display.max_colwidth", 60)
ledger[["id", "section", "quantity", "paper", "ours", "std", "n", "p", "mde", "verdict"]].round(3)

# %% [markdown]
# Why each verdict, in words:

# %%
print(report.reasons(ledger))

# %% [markdown]
# ## The paper's effect against ours
#
# One row per testable claim: the paper's number (×), ours with its 95 % t interval over seeds
# (a bar; none where there is no seed noise), colour by verdict. Claims that give a direction
# only show an arrow at zero.

# %%
report.save(ledger)
fig = report.plot(ledger)
save_figure(fig, "claims")
fig

# %% [markdown]
# ## The paper's own slips
#
# Where the paper's printed numbers disagree with its own rows. The paper's numbers are kept as
# printed everywhere in this companion; these are recorded, not corrected.

# %%
paper.slips()

# %%
path = run.save(metrics={"counts": report.counts(ledger), "claims": len(ledger),
                         "verdicts": dict(zip(ledger["id"], ledger["verdict"]))})
print("wrote", path)
