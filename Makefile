# Two commands do everything: `make reproduce` (regenerate every table and figure) and
# `make test` (unit tests + every notebook at SMOKE size). Both build .venv when missing.
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
KERNEL := pearl
STAMP := $(VENV)/.installed
PROFILE ?= cpu

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
$(shell mkdir -p .cache/jupyter/config .cache/jupyter/data .cache/jupyter/runtime .cache/ipython .cache/matplotlib)

# the batch run, in dependency order; later issues' notebooks join this list
NOTEBOOKS := $(shell cat notebooks/ORDER)

.PHONY: setup test test-all reproduce lock sysdeps clean-results

setup: $(STAMP)

$(STAMP): requirements.lock pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	# torch first, pinned: an unpinned torch pulled in by another package is a multi-GB CUDA build
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -c requirements.lock -e .
	$(PY) -m ipykernel install --prefix $(VENV) --name $(KERNEL) --display-name "PEARL companion"
	touch $(STAMP)

# WordNet (Debian wordnet-base) and Chromium for the browser test; best effort, root only
sysdeps:
	@if [ ! -f /usr/share/wordnet/data.noun ] || ! command -v chromium >/dev/null; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends wordnet-base chromium >/dev/null) \
	      || echo "sysdeps: apt-get failed; WordNet-based and browser tests will skip with a reason"; \
	  else echo "sysdeps: not root or no apt-get; install wordnet-base and chromium yourself"; fi; \
	fi

test: $(STAMP) sysdeps
	$(PY) -m pytest -m "not slow" -q

test-all: $(STAMP) sysdeps
	$(PY) -m pytest -q

reproduce: $(STAMP) sysdeps
	@mkdir -p results/executed
	@for nb in $(NOTEBOOKS); do \
	  echo "== $$nb (PROFILE=$(PROFILE))"; \
	  $(VENV)/bin/papermill -k $(KERNEL) --cwd notebooks notebooks/$$nb results/executed/$$nb -p PROFILE $(PROFILE) -p INTERACTIVE False || exit 1; \
	done

lock: $(STAMP)
	$(PY) .ci/lock.py
