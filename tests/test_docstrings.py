"""No measurement in the library's docstrings or the notebooks' prose: a measured time, size,
rate, speed-up, score or share goes stale the next time the code runs, so prose says what and why
and points at the results file that holds the number. Definitions stay (the masking recipe's
15 %, a 95 % interval, 80 % power, a setting's share of the data, the batch's time limit), and so
do the paper's own numbers in a sentence that names the paper, when the paper's text prints them;
doctest values are checked by doctest."""
import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NUM = r"(?<![\w.])(?<![A-Za-z]-)\d[\d,]*(?:\.\d+)?"
#: what a measurement looks like: a number with a unit of time, size, rate or score, a speed-up,
#: or a share; ranges ("10 to 15 points", "2-2.5x") are caught by their last number
MEASURED = re.compile(
    NUM + r"\s?(?:"
    r"(?:ms|s|sec|seconds?|min|minutes?|h|hours?)\b(?!-)"  # times ("s-" is a plural's hyphenation)
    r"|(?:KB|MB|GB|TB|KiB|MiB|GiB)\b"  # sizes
    r"|\w*/s\b"  # rates: phrases/s, it/s
    r"|(?:x|×|times)\s+(?:faster|slower|the\b)"  # speed-ups and ratios
    r"|points?\b|pts\b|NMI\b"  # score differences
    r"|%)"  # shares
)
#: definitions, not measurements: the confidence and power of a test, BERT's masking recipe
DEFINITION = re.compile(
    r"\d+ ?% (?:confidence |prediction )?(?:interval|power)|\d+ ?% of the time"
    r"|15 % of the non-special tokens|(?:80|10) % (?:become|a random token|stay)|other 85 %"
    r"|\d+ ?% of (?:its|the) (?:training phrases|positive pairs|phrases|corpus)"
    r"|in \d+ hours"  # make reproduce's limit
)
#: a sentence that quotes the paper
PAPER = re.compile(r"\bpaper|§")


def paper_text() -> str | None:
    """The paper's text (HAL copy) beside the checkout or the data folder; None when absent."""
    import os

    places = [Path(os.environ["PEARL_DATA"]).parent / "papers"] if os.environ.get("PEARL_DATA") else []
    places += [ROOT.parent / "shared" / "papers", ROOT.parent.parent / "shared" / "papers"]
    return next(((p / "pearl_eacl2024_hal.md").read_text() for p in places if (p / "pearl_eacl2024_hal.md").is_file()),
                None)


PAPER_TEXT = paper_text()


def quotes_the_paper(sentence: str, hit: str) -> bool:
    """``hit`` is the paper's number in a sentence naming the paper (any such sentence when the
    paper's text is not here to check against)."""
    if not PAPER.search(sentence) or not re.search(r"%|points?|pts|NMI", hit):
        return False  # the paper prints scores and shares, never our times, sizes or rates
    number = re.match(r"[\d,.]+", hit).group().replace(",", "")
    return PAPER_TEXT is None or re.search(rf"(?<![\d.]){re.escape(number)}(?![\d])", PAPER_TEXT) is not None


def prose(text: str) -> str:
    """``text`` without doctest examples (``>>>`` lines and the output under them), code spans
    and definitions."""
    kept, in_example = [], False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith((">>>", "...")):
            in_example = True
            continue
        in_example = in_example and bool(stripped)
        if not in_example:
            kept.append(line)
    text = re.sub(r"``[^`]*``|`[^`]*`", " ", " ".join(kept))
    return DEFINITION.sub(" ", re.sub(r"\s+", " ", text))


def measured(text: str) -> list[str]:
    """
    >>> measured("trains in about 140 s (``1x`` is 150 x 32), with a 95 % interval; 2.5x faster")
    ['140 s', '2.5x faster']
    >>> measured(">>> f(3)\\n3 s\\n\\nshare 84.8 % of phrases, 1,104 phrases/s")
    ['84.8 %', '1,104 phrases/s']
    """
    text = prose(text)
    found = []
    for sentence in re.split(r"(?<=[.;:!?])\s+(?=[A-Z(\"])", text):
        found += [m.group() for m in MEASURED.finditer(sentence) if not quotes_the_paper(sentence, m.group())]
    return found


def docstrings(path: Path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            if text := ast.get_docstring(node, clean=False):
                yield getattr(node, "name", "module"), text


def notebook_prose(path: Path) -> str:
    """The markdown cells of a percent-format notebook source (``# %% [markdown]``)."""
    cells = re.split(r"^# %%", path.read_text(), flags=re.M)
    return "\n".join(re.sub(r"^# ?", "", c, flags=re.M) for c in cells if c.startswith(" [markdown]"))


def test_no_measured_number_in_a_library_docstring():
    found = [f"{p.relative_to(ROOT)} {name}: {hits}" for p in sorted((ROOT / "lib").rglob("*.py"))
             for name, text in docstrings(p) if (hits := measured(text))]
    assert found == [], "measurements in docstrings (say where the results file holds them):\n" + "\n".join(found)


def test_no_measured_number_in_the_notebooks_prose():
    found = [f"{p.name}: {hits}" for p in sorted((ROOT / "notebooks" / "src").glob("*.py"))
             if (hits := measured(notebook_prose(p)))]
    assert found == [], "measurements in notebook prose (format them from the record in a code cell):\n" + \
        "\n".join(found)


def test_the_check_catches_a_measurement_and_spares_a_definition():
    assert measured('"""Scoring takes 628 s a model (MiniLM), 3.3x the floor."""') == ["628 s", "3.3x the"]
    assert measured("a 95 % confidence interval; ``0.25x`` is 75 x 16") == []
    assert measured("1.8x the phrases/s of one two-thread training") == ["1.8x the"]
    assert measured("The paper's VP share is 0.4 %. Ours is 0.7 %.") == ["0.7 %"]
    assert measured("At the paper's scale, 418 steps took 47 s.") == ["47 s"]  # 47 is in the paper, as a score
    assert measured("A Figure-5 point, 79.6-79.7 % alike") == ["79.7 %"]
