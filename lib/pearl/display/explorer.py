"""The similarity explorer: an ipywidgets app for teaching what phrase embeddings do.

Type a query; candidates (typed one per line, or the query's nearest neighbours in a
vocabulary, found with faiss) are ranked by cosine similarity, one ranked table with bars
per model, side by side, updated as you type (debounced). The teaching view applies the
character / token / phrase-level augmentations of PEARL to the query and shows how far
each variant moves in embedding space (cosine to the original query, per model).

>>> app = Explorer({"minilm": load_model("minilm")}, "The New York Times",
...                ["NYTimes", "New York Post"])               # doctest: +SKIP
>>> display(app.widget)        # live, in Jupyter or Voila      # doctest: +SKIP
>>> display(app.snapshot())    # static HTML, for papermill    # doctest: +SKIP

Responsiveness: every phrase is encoded once per model and kept in an LRU cache, so a
keystroke costs one query encoding per model (plus the variants of the teaching view);
:func:`measure_latency` times that path. Bars are drawn in HTML, not matplotlib: a
figure per keystroke would cost more than the encoding.

Left out: editing models at run time, saving sessions, and any server of its own (use
Voila to serve the notebook).
"""
from __future__ import annotations

import html
import statistics
import threading
import time
from typing import Callable, Mapping, Sequence

from ..encode import Encoder
from .similarity import (
    MAX_CANDIDATES,
    MAX_QUERY_CHARS,
    Debouncer,
    EmbeddingCache,
    NeighbourIndex,
    QueryVariants,
    check_query,
    rank,
    ranking_html,
    variant_scores,
    variants_html,
)


class Explorer:
    """The app. ``models`` maps display names to encoders; the first one picks neighbours.

    ``augment`` maps a query to ``{operation: variant}`` (e.g. ``Augmenter(...).variants``)
    for the teaching view; ``vocabulary`` enables the "nearest neighbours" candidate mode.
    """

    def __init__(self, models: Mapping[str, Encoder], query: str, candidates: Sequence[str],
                 vocabulary: Sequence[str] | None = None, augment: Callable[[str], dict] | None = None,
                 k: int = 10, debounce_s: float = 0.25, timer=threading.Timer):
        import ipywidgets as w

        if not models:
            raise ValueError("the explorer needs at least one model")
        self.caches = {label: EmbeddingCache(m) for label, m in models.items()}
        self.augment = augment
        self.neighbours = NeighbourIndex(next(iter(self.caches.values())), vocabulary) if vocabulary else None
        self.updates = 0
        self.left_out = 0  # typed candidates past MAX_CANDIDATES in the last update
        self.paused = False  # True: edits do not schedule updates (used while timing)
        self._lock = threading.Lock()
        self.query = w.Text(value=query, description="query", continuous_update=True,
                            layout=w.Layout(width="480px"))
        self.candidates = w.Textarea(value="\n".join(candidates), description="candidates",
                                     layout=w.Layout(width="480px", height="140px"))
        options = ["typed candidates"] + (["nearest in vocabulary"] if self.neighbours else [])
        self.source = w.ToggleButtons(options=options, value=options[0])
        self.k = w.IntSlider(value=k, min=1, max=50, description="k")
        self.ranking = w.HTML()
        self.teaching = w.HTML()
        self.status = w.HTML()
        self.debounce = Debouncer(debounce_s, self._safe_update, timer=timer)
        for widget in (self.query, self.candidates, self.source, self.k):
            widget.observe(self._on_edit, names="value")
        self.update()

    def _on_edit(self, _change) -> None:
        if not self.paused:
            self.debounce()

    def _safe_update(self) -> None:
        # runs on a timer thread: an exception there would vanish, so show it on the page
        try:
            self.update()
        except Exception as err:  # noqa: BLE001 - any failure must reach the user
            self.status.value = f'<b style="color:#c00">update failed: {html.escape(repr(err))}</b>'

    # the state --------------------------------------------------------------------
    def current_candidates(self, query: str) -> list[str]:
        if self.source.value == "nearest in vocabulary" and self.neighbours is not None:
            return self.neighbours.search(query, self.k.value)
        typed = [c.strip()[:MAX_QUERY_CHARS] for c in self.candidates.value.splitlines() if c.strip()]
        self.left_out = max(0, len(typed) - MAX_CANDIDATES)  # said in the status line
        return typed[:MAX_CANDIDATES]

    def rankings(self) -> dict[str, list[tuple[str, float]]]:
        query = check_query(self.query.value)
        if query is None:
            return {}
        cands = self.current_candidates(query)
        return {label: rank(cache, query, cands) for label, cache in self.caches.items()}

    def update(self) -> None:
        """Recompute everything the user sees (called, debounced, on every edit)."""
        with self._lock:
            t0 = time.perf_counter()
            query = check_query(self.query.value)
            if query is None:
                self.ranking.value = "<i>type a query</i>"
                self.teaching.value = ""
            else:
                ranked = self.rankings()
                self.ranking.value = ('<div style="display:flex;flex-wrap:wrap">'
                                      + "".join(ranking_html(m, r) for m, r in ranked.items()) + "</div>")
                if self.augment is not None:
                    self.teaching.value = variants_html(variant_scores(self.caches, query, self.augment(query)))
            self.updates += 1
            cache = next(iter(self.caches.values()))
            cut = (f" · the first {MAX_CANDIDATES:,} candidates ranked, {self.left_out:,} left out"
                   if self.left_out else "")
            self.status.value = (f"<small>update {self.updates}: {1000 * (time.perf_counter() - t0):.0f} ms · "
                                 f"cache {cache.hits} hits / {cache.misses} misses{cut}</small>")

    # the views --------------------------------------------------------------------
    @property
    def widget(self):
        import ipywidgets as w

        controls = [self.query, self.source, self.k, self.candidates] if self.neighbours else \
            [self.query, self.candidates]
        tabs = w.Tab(children=[w.VBox([self.ranking, self.status]), self.teaching])
        tabs.set_title(0, "ranking")
        tabs.set_title(1, "augmentations")
        return w.VBox(controls + [tabs])

    def view(self, static: bool):
        """:meth:`snapshot` when ``static`` (papermill, a tiny run), else the live :attr:`widget`."""
        return self.snapshot() if static else self.widget

    def snapshot(self):
        """Static HTML of the current state: what papermill (``INTERACTIVE=False``) shows."""
        from IPython.display import HTML

        return HTML(f"<p><b>query:</b> {html.escape(self.query.value)}</p>{self.ranking.value}"
                    f"<h4>augmentations of the query</h4>{self.teaching.value}")


#: the model sets the notebook offers (``MODELS_PRESET``): the default backbone and its PEARL models,
#: or the raw masked LM pretrained here before and after training (the paper's Table-4 regime)
PRESETS = ("minilm", "raw-lm")


def preset_models(preset: str = "minilm") -> list[str]:
    """Model names of a preset: ``"minilm"`` MiniLM and every trained PEARL seed on it;
    ``"raw-lm"`` the raw masked LM ``mlm-wiki``, then its PEARL and SimCSE models of seed 0 (those
    notebook 09 has trained; the untrained LM alone before that). Only folders that verify are named."""
    from ..backbones import mlm
    from ..models import folder_name, verified_folders
    from .figure1 import default_models

    if preset == "minilm":
        return default_models(with_glove=False)
    if preset == "raw-lm":
        return [mlm.NAME] + [str(f) for method in ("pearl", "simcse")
                             for f in verified_folders(folder_name(method, mlm.NAME, 0))]
    raise ValueError(f"unknown preset {preset!r}; choose one of {', '.join(PRESETS)}")


def models_line(names: Sequence[str], preset: str = "minilm") -> str:
    """The models the explorer found (``names``, as :func:`preset_models` gives them), in plain words;
    with no PEARL model among them, where none was found and the one command that adds one."""
    from .. import paths
    from ..models import noted_label, parse_folder_name

    shown = ", ".join(noted_label(n) for n in names)  # a SMOKE model says so
    if any((parse_folder_name(str(n)) or {}).get("method") == "pearl" for n in names):
        return f"Models found: {shown}. Each ranks the candidates in its own column, PEARL beside its backbone."
    adds = ("`make model` (one PEARL model from the offline data, at the cpu profile)" if preset == "minilm" else
            "notebook 09, which trains it (make reproduce runs it)")
    return (f"Models found: {shown}, and no PEARL model in {paths.models_dir()}, so there is nothing to compare with. "
            f"To add one, run {adds} in the repository, then reload this page.")


def summary_line(vocabulary: Sequence[str], variants: QueryVariants) -> str:
    """One line on the explorer's vocabulary, and whether notebook 02's augmentation lexicons were found."""
    lexicons = "loaded" if variants.lexicons is not None else "absent (make model builds them)"
    return f"Vocabulary: {len(vocabulary)} AutoFJ names · augmentation lexicons: {lexicons}"


#: the query "typed" one character pair at a time by :func:`latency_study`
TYPED = "Massachusetts Institute of Technology"


def latency_study(run, app: Explorer, models: Mapping, vocabulary: Sequence[str], variants: QueryVariants,
                  candidates: int, repeats: int, static: bool):
    """Notebook 06's latency measurement, printed and saved with ``run`` (the
    notebook run's record): MiniLM ranking ``candidates`` names of the ``vocabulary`` as
    :data:`TYPED` is typed, with the teaching view and without it, plus ``app``'s top five per model.
    Returns the results path; ``None`` and nothing measured in a live session (``static`` False),
    where the user's typing shares the kernel."""
    if not static:
        return None
    from ..models import load_model

    queries = [TYPED[:i] for i in range(3, len(TYPED) + 1, 2)]  # the query as it is being typed
    minilm = models.get("minilm") or load_model("minilm")
    bench = Explorer({"minilm": minilm}, queries[0], vocabulary[:candidates], augment=variants, debounce_s=0)
    latency = measure_latency(bench, queries, repeats=repeats)
    ranking_only = Explorer({"minilm": bench.caches["minilm"].model}, queries[0], vocabulary[:candidates], debounce_s=0)
    latency_ranking = measure_latency(ranking_only, queries, repeats=repeats)
    print("with teaching view:", latency, "\nranking only:      ", latency_ranking)
    path = run.save({"update_latency_ms": latency, "update_latency_ranking_only_ms": latency_ranking,
                     "latency_candidates": candidates, "latency_goal_ms": 200,
                     "rankings": {m: r[:5] for m, r in app.rankings().items()}})
    print("wrote", path)
    return path


def measure_latency(app: Explorer, queries: Sequence[str], repeats: int = 1) -> dict:
    """Milliseconds per update for a changed query, candidates already cached.

    Times :meth:`Explorer.update` (encoding, ranking, HTML, teaching view) directly; the
    debounce wait and the browser's rendering come on top. Before each update the caches
    forget everything but the candidates, so every query (and its variants) is encoded
    afresh, as when the user types a new character.
    """
    app.update()  # warm: candidates encoded and cached
    keep = app.current_candidates(check_query(app.query.value) or "")
    times = []
    for _ in range(repeats):
        for q in queries:
            for cache in app.caches.values():
                cache.keep_only(keep)
            app.paused = True  # no debounced second update during timing
            app.query.value = q
            app.paused = False
            t0 = time.perf_counter()
            app.update()
            times.append(1000 * (time.perf_counter() - t0))
    times.sort()
    return {"updates": len(times), "median_ms": round(statistics.median(times), 1),
            "p90_ms": round(times[int(0.9 * (len(times) - 1))], 1), "max_ms": round(times[-1], 1)}
