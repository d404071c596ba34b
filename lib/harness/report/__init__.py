"""The findings report, ``results/REPORT.md``, generated from the results files.

:mod:`~harness.report.build` fills the template ``template.md`` (prose, placeholders) with
sentences formatted from ``results/`` (:mod:`~harness.report.timings`, :mod:`~harness.report.data`,
:mod:`~harness.report.findings`, :mod:`~harness.report.ledger_lines`), includes tables verbatim from
``results/*.md``, quotes benchmark logs whose every number it checks (:mod:`~harness.report.quotes`),
and writes the README's headline block. ``python -m harness.report.build`` (``make report``) rewrites
both; ``tests/harness/report/test_report_build.py`` fails when either differs from what the files give.
"""
