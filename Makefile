# Two commands do everything: `make reproduce` (regenerate every table and figure) and
# `make test` (unit tests + every notebook at SMOKE size). Both build .venv when missing.
# `make lab` opens the notebooks in JupyterLab, `make model` trains one PEARL model (the teaching path),
# `make explorer` serves notebook 06 with Voila.
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
KERNEL := pearl
STAMP := $(VENV)/.installed
PROFILE ?= cpu
# lab and explorer listen on 127.0.0.1 only; an empty LAB_TOKEN lets Jupyter pick a random one
LAB_PORT ?= 8888
LAB_TOKEN ?=
EXPLORER_PORT ?= 8866
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)

# offline data beside the checkout, when present (pearl.paths also finds it on its own)
ifneq ($(wildcard ../shared/data),)
export PEARL_DATA ?= $(abspath ../shared/data)
endif
# keep Jupyter, IPython and matplotlib from writing into the home folder
export JUPYTER_CONFIG_DIR := $(CURDIR)/.cache/jupyter/config
export JUPYTER_DATA_DIR := $(CURDIR)/.cache/jupyter/data
export JUPYTER_RUNTIME_DIR := $(CURDIR)/.cache/jupyter/runtime
export IPYTHONDIR := $(CURDIR)/.cache/ipython
export MPLCONFIGDIR := $(CURDIR)/.cache/matplotlib
export HF_HUB_DISABLE_TELEMETRY := 1
export TOKENIZERS_PARALLELISM := false
export PYTHONHASHSEED := 0
# kernels import this checkout's lib, even when .venv is shared with another checkout
export PYTHONPATH := $(CURDIR)/lib$(if $(PYTHONPATH),:$(PYTHONPATH))
$(shell mkdir -p .cache/jupyter/config .cache/jupyter/data .cache/jupyter/runtime .cache/ipython .cache/matplotlib)

# the batch run, in dependency order: every notebook of notebooks/ORDER except those of
# notebooks/SEPARATE, which have a target of their own (make methods, make short-text): with them the cpu
# profile no longer fits in 3 hours on 2 cores (README, "How long")
SEPARATE := $(shell cat notebooks/SEPARATE)
NOTEBOOKS := $(filter-out $(SEPARATE),$(shell cat notebooks/ORDER))

.PHONY: setup test test-all notebooks reproduce rehearse study views composition budget batch-composition methods short-text extras html site report lab model explorer lock sysdeps

setup: $(STAMP)

$(STAMP): requirements.lock pyproject.toml lib/harness/pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	# torch first, pinned: an unpinned torch pulled in by another package is a multi-GB CUDA build
	$(PY) -m pip install -q torch==2.13.0
	# both editable: the science with its notebooks extra (the notebook, site and test tools:
	# pyproject.toml), and the harness, a distribution of its own (lib/harness/pyproject.toml)
	$(PY) -m pip install -q -c requirements.lock -e ".[notebooks]" -e lib/harness
	$(PY) -m ipykernel install --prefix $(VENV) --name $(KERNEL) --display-name "PEARL companion"
	touch $(STAMP)

# WordNet (Debian wordnet-base), Chromium for the browser tests, MathJax for the site's formulas
# (libjs-mathjax; without it they show as TeX source); best effort, root only
sysdeps:
	@if [ ! -f /usr/share/wordnet/data.noun ] || ! command -v chromium >/dev/null || [ ! -f /usr/share/javascript/mathjax/MathJax.js ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends wordnet-base chromium libjs-mathjax fonts-mathjax >/dev/null) \
	      || echo "sysdeps: apt-get failed; WordNet-based and browser tests will skip with a reason"; \
	  else echo "sysdeps: not root or no apt-get; install wordnet-base, chromium and libjs-mathjax yourself"; fi; \
	fi

test: $(STAMP) sysdeps
	$(PY) -m pytest -m "not slow" -q

# notebooks/NN_*.ipynb from their sources notebooks/src/NN_*.py (jupytext's percent format; the
# parameters cell is marked `# %% tags=["parameters"]`). --update keeps the committed notebook's
# cell ids (an unchanged cell keeps its id, so two branches' notebooks merge like their sources),
# --set-kernel the project's kernel; tests/test_notebooks.py checks that sources and notebooks agree
notebooks: $(STAMP)
	@for src in notebooks/src/*.py; do \
	  $(VENV)/bin/jupytext --quiet --update --set-kernel $(KERNEL) --to ipynb -o notebooks/$$(basename $$src .py).ipynb $$src || exit 1; \
	done

test-all: $(STAMP) sysdeps
	$(PY) -m pytest -q

# The commit is recorded once, at the start (PEARL_RUN_COMMIT, PEARL_RUN_DIRTY: tracked files
# changed before the run), so results written by earlier notebooks do not mark later ones dirty.
# Each notebook gets PROFILE / INTERACTIVE only if its parameters cell declares them (harness.batch).
# Restarted after a kill, it skips the notebooks finished on the same inputs (their records say
# so: batch_resume) and goes on from the first unfinished one; FRESH=1 runs every notebook.
reproduce: $(STAMP) sysdeps
	@mkdir -p results/executed
	@export PEARL_RUN_COMMIT="$$(git rev-parse HEAD)" \
	  PEARL_RUN_DIRTY="$$(git status --porcelain --untracked-files=no | cut -c4- | paste -sd, -)" \
	  PEARL_RUN_UNTRACKED="$$(git status --porcelain --untracked-files=all | grep '^??' | cut -c4- | paste -sd, -)"; \
	echo "== commit $$PEARL_RUN_COMMIT$${PEARL_RUN_DIRTY:+ (tracked files changed at start: $$PEARL_RUN_DIRTY)}"; \
	$(PY) -m harness.batch --profile $(PROFILE) $(if $(FRESH),--fresh) $(if $(EXTRAS),--extras) $(NOTEBOOKS)
	$(MAKE) --no-print-directory html
	$(MAKE) --no-print-directory site

# A dress rehearsal of make reproduce PROFILE=gpu on the CPU: every notebook of notebooks/ORDER
# on the gpu profile's code paths (Wikipedia corpus on a few articles, every phrase's hard
# negatives, epochs-based schedule, DataLoader workers, three seeds, every table and the claims)
# at SMOKE size, in the scratch root REHEARSAL_OUT (never results/ or models/). Its wall time is
# in results/perf/rehearsal.json (with the load average it ran under);
# RECORD=1 writes that record anew. RESUME=1 continues a killed one.
REHEARSAL_OUT ?= $(CURDIR)/.cache/rehearsal
rehearse: $(STAMP) sysdeps
	@$(if $(RESUME),,rm -rf "$(REHEARSAL_OUT)";) mkdir -p "$(REHEARSAL_OUT)"
	@export PEARL_RUN_COMMIT="$$(git rev-parse HEAD)" \
	  PEARL_RUN_DIRTY="$$(git status --porcelain --untracked-files=no | cut -c4- | paste -sd, -)" \
	  PEARL_RUN_UNTRACKED="$$(git status --porcelain --untracked-files=all | grep '^??' | cut -c4- | paste -sd, -)"; \
	PEARL_OUTPUT="$(REHEARSAL_OUT)" $(PY) -m harness.batch --rehearse $(if $(RECORD),--record results/perf/rehearsal.json)

# The discrepancy study (notebook 13) at a larger design than make reproduce's "core" one:
# DESIGN=reduced (8 configurations, about 2 hours on 2 cores) or DESIGN=whole (12). It needs the
# corpus and tables of notebooks 01 and 02 (a make reproduce first); models already trained are reused.
# Through the batch runner like make reproduce (same provenance); it always runs, and its executed copy
# is results/executed/13_discrepancy_$(DESIGN).ipynb, apart from the batch's (harness.batch --param).
DESIGN ?= reduced
study: $(STAMP) sysdeps
	@export PEARL_RUN_COMMIT="$$(git rev-parse HEAD)" \
	  PEARL_RUN_DIRTY="$$(git status --porcelain --untracked-files=no | cut -c4- | paste -sd, -)" \
	  PEARL_RUN_UNTRACKED="$$(git status --porcelain --untracked-files=all | grep '^??' | cut -c4- | paste -sd, -)"; \
	$(PY) -m harness.batch --profile $(PROFILE) --param DESIGN=$(DESIGN) 13_discrepancy.ipynb

# The two views of the PEARL embedding (scripts/views_mechanism.py: one cpu-profile training per
# backbone and join, read at three moments, and the development subset; about 2 hours on 2 cores)
# and the gain against the training budget (scripts/budget_curve.py; BUDGETS are multiples of
# the cpu profile's 4,800 phrase views). Both need notebooks 01 and 02's corpus and tables; both
# resume from their results/<name>/*.jsonl lines, and --summarise writes their tables and figure.
BACKBONE ?= minilm
BUDGETS ?= 0.25,1,4
SEEDS ?= 0,1,2
views: $(STAMP) sysdeps
	for b in minilm me5-small; do $(PY) scripts/views_mechanism.py --backbone $$b || exit 1; done
	$(PY) scripts/views_mechanism.py --summarise

# The view composition swept (scripts/composition.py): the old fixed character weights against the
# rule of pearl.training.composition, one cpu-profile training per backbone read at step 0 and
# trained; resumes from results/composition/sweep.jsonl (DEV=1 adds the development subset's average).
composition: $(STAMP) sysdeps
	for b in minilm me5-small; do $(PY) scripts/composition.py --backbone $$b $(if $(DEV),--dev) || exit 1; done
	$(PY) scripts/composition.py --summarise

budget: $(STAMP) sysdeps
	$(PY) scripts/budget_curve.py --backbone $(BACKBONE) --budgets $(BUDGETS) --seeds $(SEEDS)
	$(PY) scripts/budget_curve.py --summarise

# The PEARL authors' batch layout (each hard negative a row with its own positive and type label)
# against today's: MiniLM at the cpu profile, SEEDS for each arm, scored on the sweep suite
# (scripts/batch_composition.py, named before the term batch layout; about an hour on 2 cores; resumes from results/batch_composition/runs.jsonl).
batch-composition: $(STAMP) sysdeps
	$(PY) scripts/batch_composition.py --seeds $(SEEDS)

# PEARL against SimCSE, Phrase-BERT and PAUSE on one trainer (notebook 11: 13 models, about 50
# minutes on 2 cores), apart from make reproduce but through it (same provenance, HTML and site).
# It needs the corpus and tables of notebooks 01 and 02 and reuses notebook 03's PEARL models.
# Notebook 12 reads its results file: run make methods before make reproduce (or run notebook 12
# again: make reproduce NOTEBOOKS=12_claims.ipynb FRESH=1; a resumed batch does not see that
# notebook 11's record changed) to have the claims read the new one.
methods: $(STAMP) sysdeps
	$(MAKE) --no-print-directory reproduce NOTEBOOKS=11_methods.ipynb

# More models on Table 2's short texts (notebook 14): the Table-3 character arms (§6's claim) and
# me5-small with its PEARL seeds (E5-small's stand-in), apart from make reproduce like make methods.
# It reuses the models of notebooks 08 and 09 (trains them when missing) and, like make methods,
# feeds notebook 12: run notebook 12 again afterwards to have the claims read its record.
short-text: $(STAMP) sysdeps
	$(MAKE) --no-print-directory reproduce NOTEBOOKS=14_short_text_arms.ipynb

# The arms beyond the paper's tables that make reproduce leaves out to stay within its time:
# notebook 08's "- all augmentations" (the paper's §5.2 sentence, claim C20; its Table 3 has no such
# row) and its extra seeds of the arms that a claim compares (EXTRA_SEEDS: C18's 12 more runs),
# and notebook 09's two encoders cut from MiniLM (its first 2 layers, its token embeddings).
# Notebooks 08 and 09 run again with EXTRAS=True (the models and scores they had are reused), then 12.
extras: $(STAMP) sysdeps
	$(MAKE) --no-print-directory reproduce EXTRAS=1 NOTEBOOKS="08_ablations.ipynb 09_backbones.ipynb 12_claims.ipynb"

# every executed notebook as HTML beside it (results/executed/NN_*.html, git-ignored)
html: $(STAMP)
	$(VENV)/bin/jupyter nbconvert --to html --log-level=WARN $(addprefix results/executed/,$(NOTEBOOKS))

# the static site in site/: first the executed notebooks of the last batch run (results/executed/,
# git-ignored) are kept, labelled and stripped, in results/notebooks/ (committed: a fresh clone's site
# shows their outputs), and results/REPORT.md with the README's headline is rewritten from the results
# files; each page then comes from the run's copy, else the committed one, else the notebook unexecuted. Open site/index.html, or serve it: python -m http.server -d site -b 127.0.0.1
site: $(STAMP)
	$(PY) -m harness.report.build
	$(PY) -m harness.executed
	$(PY) -m harness.site

# results/REPORT.md, its pages results/report/*.md and the README's headline block, from the results files (tests/report checks them)
report: $(STAMP)
	$(PY) -m harness.report.build

# JupyterLab at the repository root (notebooks/, README, results/, figures/), offering only the
# "PEARL companion" kernel (pearl): the venv's default python3 kernel cannot import the project
lab: $(STAMP)
	@echo "== JupyterLab on http://127.0.0.1:$(LAB_PORT)/lab (notebooks in notebooks/; kernel \"PEARL companion\"; Ctrl-C stops it)"
	$(VENV)/bin/jupyter lab --no-browser --ServerApp.ip=127.0.0.1 --ServerApp.port=$(LAB_PORT) \
	  --ServerApp.port_retries=0 --ServerApp.root_dir=. --MappingKernelManager.default_kernel_name=$(KERNEL) \
	  --KernelSpecManager.allowed_kernelspecs=$(KERNEL) --KernelSpecManager.ensure_native_kernel=False \
	  $(if $(LAB_TOKEN),--IdentityProvider.token=$(LAB_TOKEN)) $(ROOT_FLAG)

# One PEARL model, the teaching path's: notebooks 01-03's library calls at the cpu profile for seed 0
# (WikiText-2 and WordNet's phrases, their augmentation tables and hard negatives, one training), a
# progress bar per stage, what exists reused (harness.model, harness.one_model). Its time is in the model's
# make_model.json; RECORD=1 also writes it to results/perf/make_model.json, which the README reads.
model: $(STAMP) sysdeps
	$(PY) -m harness.model $(if $(RECORD),--record results/perf/make_model.json)

# the similarity explorer (notebook 06) as a web app; with no PEARL model yet, make model runs first
# (harness.model --if-missing). A preheated kernel runs the notebook (loads the models) when the server
# starts, not when the page is asked for: with it the page showed its first ranking 2.6 s after the
# request, against 55 s without (one run each, machine loaded). The template pearl-offline
# (notebooks/jupyter/voila/templates/) is Voila's lab template without its two CDN stylesheets
explorer: $(STAMP) sysdeps
	$(PY) -m harness.model --if-missing
	@echo "== Voila on http://127.0.0.1:$(EXPLORER_PORT)/ (the first page waits until the models are loaded)"
	JUPYTER_PATH=$(CURDIR)/notebooks/jupyter $(VENV)/bin/voila notebooks/06_explorer.ipynb --no-browser \
	  --Voila.ip=127.0.0.1 --port=$(EXPLORER_PORT) --template=pearl-offline \
	  --preheat_kernel=True --pool_size=1 \
	  --show_tracebacks=True

lock: $(STAMP)
	$(PY) .ci/lock.py
