"""Print papermill's ``-p NAME VALUE`` arguments for the parameters a notebook declares.

Usage: python .ci/params.py NOTEBOOK.ipynb NAME=VALUE [...]
Each NAME=VALUE becomes ``-p NAME VALUE`` only when the notebook's ``parameters`` cell declares
NAME (read with ``papermill.inspect_notebook``), so ``make reproduce`` can offer PROFILE and
INTERACTIVE to every notebook and each gets only what it has. Values pass through as text
(papermill turns True/False/None and numbers into Python values); lists need ``-y`` instead.
Exits 1 when the parameters cell cannot be parsed cleanly (papermill logs "Unable to parse").
"""
import logging
import sys


def declared(notebook: str) -> set[str]:
    """Names in the notebook's parameters cell; raises ValueError on a line papermill skips."""
    import papermill as pm

    warnings = []

    class Catch(logging.Handler):
        def emit(self, record):
            warnings.append(record.getMessage())

    log = logging.getLogger("papermill.translators")
    handler = Catch(logging.WARNING)
    log.addHandler(handler)
    try:
        names = set(pm.inspect_notebook(notebook))
    finally:
        log.removeHandler(handler)
    if warnings:
        raise ValueError(f"{notebook}: " + "; ".join(warnings))
    return names


def arguments(notebook: str, offered: list[str]) -> list[str]:
    names = declared(notebook)
    out = []
    for item in offered:
        name, _, value = item.partition("=")
        if name in names:
            out += ["-p", name, value]
    return out


if __name__ == "__main__":
    try:
        print(" ".join(arguments(sys.argv[1], sys.argv[2:])))
    except ValueError as err:
        sys.exit(f"params.py: {err}")
