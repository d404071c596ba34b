"""Figure 4 (t-SNE / UMAP of entity types): the paper samples 100 names for each of six YAGO 4
types. YAGO 4 is not available offline, so names are sampled from the AutoFJ tables (50 DBpedia
classes) mapped to the same six groups (:data:`YAGO_GROUPS`), projected with t-SNE and UMAP, and
what the eye sees is quantified with the silhouette score and a cross-validated kNN type
accuracy, both in the full embedding space and in each 2-D projection.

Left out: the paper's exact YAGO sample (unavailable offline) and any tuning of t-SNE/UMAP
beyond sensible defaults.
"""
from __future__ import annotations

import re
from typing import Sequence

import numpy as np

from ..data import autofj_names, read_autofj
from ..encode import encode
from ..models import label as model_label


def _wrap(text: str, width: int = 22) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(text, width, break_on_hyphens=False)) or text


#: AutoFJ data set (a DBpedia class) -> YAGO 4 top-level type, written down by hand.
#: A class goes where schema.org (YAGO 4's upper taxonomy) puts it; classes that fit two
#: groups (Hospital: Place and Organization; TelevisionStation: a LocalBusiness, so both) or
#: none (GivenName, species, seasons, devices, cases, satellites, enzymes, ...) are left out.
#: MedicalEntity has one source only: schema:Drug is the only medical class among the 50.
YAGO_GROUPS: dict[str, tuple[str, ...]] = {
    "Place": ("Country", "HistoricBuilding", "Museum", "Stadium", "SportFacility", "Venue",
              "ShoppingMall", "ClericalAdministrativeRegion"),
    "Person": ("ChristianBishop", "MemberOfParliament", "Monarch", "Noble", "Wrestler"),
    "MedicalEntity": ("Drug",),
    "Event": ("Election", "FootballMatch", "NaturalEvent", "SoccerTournament", "TennisTournament",
              "Tournament", "Race"),
    "Organization": ("BasketballTeam", "GovernmentAgency", "Legislature", "PoliticalParty",
                     "SoccerLeague", "SportsLeague", "RugbyLeague"),
    "CreativeWork": ("Artwork", "Magazine", "Song"),
}

# Wikipedia titles carry disambiguators such as "Mad (magazine)" or "Python (genus)" that
# spell out the type; we strip them so the figure measures the name, not the label.
_DISAMBIGUATOR = re.compile(r"\s*\([^)]*\)\s*$")


def type_sample(n_per_group: int = 100, seed: int = 0) -> list[tuple[str, str]]:
    """``n_per_group`` distinct entity names per YAGO group as ``(name, group)``, seeded.

    Names come from the left and right tables of every AutoFJ data set of the group,
    disambiguators stripped; a name found under two groups is dropped (it is ambiguous).
    """

    known = set(autofj_names())
    pools: dict[str, set[str]] = {}
    for group, datasets in YAGO_GROUPS.items():
        unknown = set(datasets) - known
        if unknown:
            raise ValueError(f"YAGO_GROUPS names AutoFJ data sets that do not exist: {sorted(unknown)}")
        pool = set()
        for ds in datasets:
            left, right, _ = read_autofj(ds)
            pool.update(n for n in (_DISAMBIGUATOR.sub("", t).strip() for t in left + right) if n and n != "nan")
        pools[group] = pool
    seen: dict[str, int] = {}
    for pool in pools.values():
        for n in pool:
            seen[n] = seen.get(n, 0) + 1
    rng = np.random.default_rng(seed)
    out = []
    for group, pool in pools.items():
        names = sorted(n for n in pool if seen[n] == 1)  # sorted: same seed, same sample
        if len(names) < n_per_group:
            raise ValueError(f"group {group} has only {len(names)} names; ask for fewer per group")
        out += [(names[i], group) for i in sorted(rng.choice(len(names), n_per_group, replace=False))]
    return out


def sample_groups(sample: Sequence[tuple[str, str]]) -> list[str]:
    """The group of each name of a :func:`type_sample`, in order (Figure 4's colours)."""
    return [group for _, group in sample]


def project(vectors: np.ndarray, method: str, seed: int = 0) -> np.ndarray:
    """2-D projection by ``"tsne"`` (scikit-learn) or ``"umap"`` (umap-learn), cosine metric, seeded."""
    n = len(vectors)
    if method == "tsne":
        from sklearn.manifold import TSNE

        return TSNE(n_components=2, perplexity=min(30.0, (n - 1) / 3), metric="cosine", init="pca",
                    random_state=seed).fit_transform(vectors)
    if method == "umap":
        import umap

        return umap.UMAP(n_components=2, n_neighbors=min(15, n - 1), metric="cosine", random_state=seed,
                         n_jobs=1).fit_transform(vectors)
    raise ValueError(f"unknown projection {method!r}: use 'tsne' or 'umap'")


def separation(points: np.ndarray, labels: Sequence[str], metric: str, k: int = 10, folds: int = 5,
               seed: int = 0) -> dict:
    """Silhouette score and cross-validated kNN type accuracy (stratified, shuffled with ``seed``)."""
    from sklearn.metrics import silhouette_score
    from sklearn.model_selection import StratifiedKFold, cross_val_score
    from sklearn.neighbors import KNeighborsClassifier

    labels = np.asarray(labels)
    folds = min(folds, int(np.unique(labels, return_counts=True)[1].min()))
    cv = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    knn = KNeighborsClassifier(n_neighbors=min(k, len(labels) * (folds - 1) // folds - 1), metric=metric)
    acc = cross_val_score(knn, points, labels, cv=cv).mean()
    return {"silhouette": float(silhouette_score(points, labels, metric=metric)), "knn_accuracy": float(acc)}


def figure4_data(models: dict, sample: Sequence[tuple[str, str]], methods=("tsne", "umap"), seed: int = 0):
    """Per model: the embeddings' projections and a table of separation scores.

    Returns ``(table, projections)``; ``table`` has one row per (model, space) where space is
    ``embedding`` (full dimension, cosine) or a projection (2-D, Euclidean), with the count of
    names embedded as zero vectors (out of the model's vocabulary);
    ``projections[model][method]`` is an ``(n, 2)`` array.
    """
    import pandas as pd

    names = [n for n, _ in sample]
    labels = [g for _, g in sample]
    rows, projections = [], {}
    for label, model in models.items():
        vecs = encode(model, names)
        # names a model cannot see at all (GloVe: every word out of vocabulary) embed as zero
        # vectors; they have no direction, so t-SNE scatters them. Counted, not hidden.
        zero = int((np.linalg.norm(vecs, axis=1) < 1e-6).sum())
        rows.append(dict(model=label, space="embedding", zero_vectors=zero,
                         **separation(vecs, labels, "cosine", seed=seed)))
        projections[label] = {}
        for m in methods:
            xy = project(vecs, m, seed=seed)
            projections[label][m] = xy
            rows.append(dict(model=label, space=m, zero_vectors=zero,
                             **separation(xy, labels, "euclidean", seed=seed)))
    return pd.DataFrame(rows), projections


#: the note under Figure 4 that says which space each number is measured in
READING = ("Under each model's name: silhouette (cosine) and 10-NN type accuracy (5-fold) of the full embeddings. "
           "Under each panel: the same measured on that 2-D projection (Euclidean), which t-SNE and UMAP "
           "make look more separated than the embeddings are.")


def plot_figure4(projections: dict, labels: Sequence[str], table=None):
    """One column per model, one row per projection (t-SNE, UMAP); colour = YAGO group. When
    ``table`` is given: the embeddings' silhouette and kNN accuracy under each model's name,
    the projection's under each panel, and a note (:data:`READING`) saying which is which; a
    further note under the panels says how many names each model embeds as the zero vector
    (GloVe: every word out of vocabulary): such points have no direction, and t-SNE puts them on
    the ring around the others. Zero-vector points are not marked one by one."""
    import matplotlib.pyplot as plt

    models = list(projections)
    methods = list(projections[models[0]])
    groups = list(YAGO_GROUPS)
    labels = np.asarray(labels)
    fig, axes = plt.subplots(len(methods), len(models), figsize=(2.9 * len(models) + 0.4, 2.9 * len(methods) + 1.4),
                             squeeze=False, layout="constrained")
    for j, m in enumerate(models):
        for i, meth in enumerate(methods):
            ax, xy = axes[i, j], projections[m][meth]
            for g, colour in zip(groups, plt.get_cmap("tab10").colors):
                sel = labels == g
                ax.scatter(xy[sel, 0], xy[sel, 1], s=5, color=colour, label=g, alpha=0.8)
            if i == 0:
                title = _wrap(model_label(m), 30)
                if table is not None:  # the embeddings' own separation, which the projections exaggerate
                    e = in_space(table[table["model"] == m]).iloc[0]
                    title += f"\nfull embeddings:\nsilhouette {e.silhouette:.3f} · kNN acc {e.knn_accuracy:.2f}"
                ax.set_title(title, fontsize=9)
            if j == 0:
                ax.set_ylabel("t-SNE" if meth == "tsne" else "UMAP" if meth == "umap" else meth, fontsize=10)
            if table is not None:
                r = table[(table["model"] == m) & (table["space"] == meth)].iloc[0]
                ax.set_xlabel(f"2-D: silhouette {r.silhouette:.2f} · kNN acc {r.knn_accuracy:.2f}", fontsize=8)
            ax.set_xticks([]), ax.set_yticks([])
    handles, names = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, names, loc="outside right upper", fontsize=8, markerscale=2.5,
               title=_wrap(f"{len(labels)} AutoFJ entity names in six YAGO 4 groups", 20), title_fontsize=9)
    if table is not None:
        zero = table[(table["space"] == "embedding") & (table["zero_vectors"] > 0)]
        notes = [f"{model_label(r.model)}: {r.zero_vectors} of {len(labels)} names have no word in the model's "
                 "vocabulary and embed as the zero vector; having no direction, they have no cosine neighbours, "
                 "and t-SNE spreads them on the ring around the other points." for r in zero.itertuples()]
        notes.insert(0, READING)
        # supxlabel: constrained layout keeps room for it
        fig.supxlabel("\n".join(_wrap(n, 40 * len(models)) for n in notes), fontsize=8, ha="left", x=0.01)
    return fig


def in_space(table, space: str = "embedding"):
    """The rows of :func:`figure4_data`'s table in one ``space`` (``"embedding"``, ``"tsne"``, ``"umap"``)."""
    return table[table["space"] == space]
