# %% [markdown]
# # 00 · Template: the house style of every notebook
#
# Every notebook of this companion follows the same five steps:
#
# 1. a **`parameters` cell** of plain typed literals (papermill overrides them; `SMOKE=True`
#    gives a tiny CPU run used by `make test`);
# 2. **imports from `pearl`** only — all logic lives in the tested library under `lib/`;
# 3. **compute**, timing each step with `run.time(...)`;
# 4. **show** a table or figure;
# 5. **save** under `results/` (tables `tableN.{csv,md}`, one `<notebook>.json` with metrics and
#    provenance) and `figures/` (`figureN.{png,pdf}`).
#
# This template encodes a few phrases with the default backbone and saves their cosine matrix.

# %% tags=["parameters"]
SMOKE: bool = False
MODEL: str = "minilm"
PHRASES: list = ["The New York Times", "NYTimes", "New York Post", "nytimes.com"]

# %%
# the parameters above, checked against their types (a list passed with -p fails here); the run's
# record and its scale (SMOKE: tiny sizes, outputs labelled, never in place of full-size ones)
from harness.preamble import start

run = start("00_template", globals(), __annotations__)

import pandas as pd

from pearl.display.similarity import mean_offdiagonal
from pearl.encode import encode
from pearl.models import load_model

# %%
with run.timer("encode"):
    model = load_model(MODEL)
    vectors = encode(model, PHRASES)
cosine = pd.DataFrame(vectors @ vectors.T, index=PHRASES, columns=PHRASES).round(3)
cosine

# %% [markdown]
# A metric that is undefined for this input (the mean over pairs of one phrase is a mean over
# nothing) is saved as `null` with its reason, never as `NaN`: results files are strict JSON.

# %%
n = len(PHRASES)
path = run.save(metrics={"mean_offdiagonal_cosine": mean_offdiagonal(cosine.values)},
                undefined={"mean_offdiagonal_cosine": f"needs at least two phrases (got {n})"})
print("wrote", path)
