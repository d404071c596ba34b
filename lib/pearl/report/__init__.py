"""The findings report, ``results/REPORT.md``, generated from the results files.

:mod:`~pearl.report.build` fills the template ``template.md`` (prose, placeholders) with
sentences formatted from ``results/`` (:mod:`~pearl.report.timings`, :mod:`~pearl.report.data`,
:mod:`~pearl.report.findings`, :mod:`~pearl.report.ledger_lines`), includes tables verbatim from
``results/*.md``, quotes benchmark logs whose every number it checks (:mod:`~pearl.report.quotes`),
and writes the README's headline block. ``python -m pearl.report.build`` (``make report``) rewrites
both; ``tests/report/test_report_build.py`` fails when either differs from what the files give.
"""
