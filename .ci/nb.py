"""Write a notebook from a plain Python file whose cells are separated by `# %%` lines.

Usage: python .ci/nb.py notebooks/src/NAME.py [...]   (writes notebooks/NAME.ipynb)
A cell starting with `# %% [markdown]` becomes Markdown (leading `# ` stripped); one starting
with `# %% parameters` is tagged `parameters` for papermill. Outputs are never written; cell ids
are the file's name and the cell's number, so an unchanged cell keeps its id.
"""
import os
import sys

import nbformat



def _cell(kind, lines):
    text = "\n".join(lines).strip("\n")
    if kind == "markdown":
        text = "\n".join(l[2:] if l.startswith("# ") else l.lstrip("#") for l in text.splitlines())
        return nbformat.v4.new_markdown_cell(text)
    cell = nbformat.v4.new_code_cell(text)
    if kind == "parameters":
        cell.metadata["tags"] = ["parameters"]
    return cell


def build(src):
    """The notebook for source file ``src``."""
    cells, kind, lines = [], None, []
    for line in open(src, encoding="utf8").read().splitlines():
        if line.startswith("# %%"):
            if kind is not None:
                cells.append(_cell(kind, lines))
            tag = line[4:].strip()
            kind, lines = ("markdown" if tag == "[markdown]" else "parameters" if tag == "parameters" else "code"), []
        else:
            lines.append(line)
    if kind is not None:
        cells.append(_cell(kind, lines))
    # cell ids from the file's name and the cell's place, not at random: regenerating a notebook
    # changes only the cells whose text changed, so two branches' notebooks merge like their sources
    stem = os.path.splitext(os.path.basename(str(src)))[0]
    for i, cell in enumerate(cells):
        cell["id"] = f"{stem[:50]}-{i:03d}"
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "pearl", "display_name": "PEARL companion", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    return nb


if __name__ == "__main__":
    for src in sys.argv[1:]:
        dst = src.replace("/src/", "/").replace(".py", ".ipynb")
        nbformat.write(build(src), dst)
        print(dst)
