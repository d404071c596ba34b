"""The harness around :mod:`pearl`: what runs the notebooks and shows their results.

Every notebook's first cell (:mod:`harness.preamble`, with the parameter check
:mod:`harness.params`), the scale a run works at and its output root (:mod:`harness.scale`), the
guard of every output (:mod:`harness.outputs`: a SMOKE run never replaces a full-size one), ``make
model`` (:mod:`harness.one_model`, its command line :mod:`harness.model`), a notebook run's record (:mod:`harness.record`), the files a batch
run read (:mod:`harness.batch_inputs`), what the notebooks read of the committed records
(:mod:`harness.committed`) and the tables and figures drawn again from them (:mod:`harness.redraw`),
the claims ledger (:mod:`harness.claims`), the findings report (:mod:`harness.report`), the
executed notebooks kept (:mod:`harness.executed`) and the static site (:mod:`harness.site`,
:mod:`harness.site_text`).

What it leaves out: the science (corpus, training, benchmark, backbones, experiments, the verdict
rule), which is :mod:`pearl`. This package imports ``pearl``; ``pearl`` never imports it
(``tests/test_architecture.py``).
"""
