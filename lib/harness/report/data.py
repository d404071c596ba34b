"""Sentences on the training data and the figures: the corpus and its classes, the Wikipedia
sample and whole copy, augmentation coverage, hard negatives (sample and scale), Figures 1 and 4.

Each function returns ``{key: sentence}`` (see :mod:`harness.report.timings`).
"""
from __future__ import annotations

from .common import exists, num, read_json, results, short, strict

DATA = "results/01_data_building.json"


def _shares(shares: dict) -> str:
    return " / ".join(f"{num(v, '.1f')}" for v in shares.values())


def corpus() -> dict[str, str]:
    """``corpus.*``: notebook 01's corpus, its classes, types and the Wikipedia sample."""
    d1 = read_json("01_data_building.json")["metrics"]
    ours, paper = d1["class_shares_pct"]["WikiText-2 + WordNet"], d1["paper_class_shares_pct"]
    out = {
        "corpus.size": (f"{num(d1['corpus_size'], ',')} distinct phrases: "
                        f"{num(d1.get('corpus_phrases_wikitext2', 0), ',')} from "
                        f"WikiText-2 at min-frequency 1, plus WordNet"),
        "corpus.min_freq": "A min-frequency of 2, as in the paper, leaves only "
                           f"{num(d1['distinct_phrases_by_min_freq']['2'], ',')}",
        "corpus.classes": f"NP / VP / PP / ADVP / ADJP = {_shares(ours)} %, against the paper's {_shares(paper)} %",
        "corpus.types": (f"OTHER is {num(d1['other_share_pct']['all'], '.0f')} % of phrases; "
                         f"{num(d1['labels_present'])} of 95 "
                         f"labels occur"),
    }
    if (ws := d1.get("wikipedia_sample")) is not None:
        out["corpus.sample"] = (f"{num(ws['articles'], ',')} articles, {num(ws['tokens'], ',')} tokens: "
                                f"{num(ws['distinct_phrases'], ',')} distinct "
                                f"phrases, {num(ws['kept_phrases'], ',')} ({num(ws['kept_share_pct'], '.1f')} %) seen "
                                "at least twice")
        out["corpus.sample_classes"] = ("at least twice: NP / VP / PP / ADVP / ADJP = "
                                        f"{_shares(ws['class_shares_pct']['kept'])}"
                                        f" %; {num(ws['types_present'])} of the 95 phrase types occur")
        out["corpus.sample_build"] = "; ".join(
            f"{num(r['tokens_parsed'], ',')} tokens in {num(r['seconds'], ',.0f')} s with {num(r['n_process'])} "
            "processes at a load average "
            f"of {num(r['load_average_end'][0], '.1f')} on {num(r['cpu_count'])} shared "
            "cores" for r in ws["build_runs"])
    return out


def _parsed_by(runs: list[dict], chunks: int) -> tuple[str, str]:
    """Who parsed the whole corpus, as a sentence's head and tail: the recorded build calls, and the chunks
    that calls killed before they recorded themselves parsed (a killed build keeps the chunks it wrote)."""
    parsed, calls = sum(r["chunks_parsed"] for r in runs), f"{len(runs)} build call{'s' * (len(runs) > 1)}"
    hours = num(sum(r["seconds"] for r in runs) / 3600, ".1f")
    if parsed >= chunks:
        return f"It was parsed in {hours} hours by {calls}", ""
    return (f"{num(parsed, ',')} of its {num(chunks, ',')} chunks were parsed in {hours} hours by {calls}",
            ", the others by calls killed before they recorded themselves")


def whole_corpus() -> dict[str, str]:
    """``whole.*``: the whole Wikipedia copy's record (``scripts/whole_corpus.py``)."""
    if not exists("wikipedia_whole_corpus.json"):
        return {}
    record = read_json("wikipedia_whole_corpus.json")
    m = record["metrics"]
    kept, paper, runs = m["class_shares_pct"]["kept"], m["class_shares_pct"]["paper"], m["build_runs"]
    near = [c for c in kept if abs(kept[c] - paper[c]) <= 5]
    head, tail = _parsed_by(runs, m["chunks"])
    out = {
        "whole.size": (f"The whole corpus ({num(m['articles'], ',')} articles, {num(m['tokens'], ',')} tokens) holds "
                       f"{num(m['distinct_phrases'], ',')} distinct phrases, {num(m['kept_phrases'], ',')} "
                       f"({num(m['kept_share_pct'], '.1f')} %) "
                       f"of them seen at least {'twice' if m['min_freq'] == 2 else str(m['min_freq']) + ' times'}"),
        "whole.classes": (f"at least twice there: NP / VP / PP / ADVP / ADJP = {_shares(kept)} %; "
                          f"{num(m['types_present'])} "
                          f"of the 95 phrase types occur"),
        "whole.build": (f"{head} with {'/'.join(sorted({str(r['n_process']) for r in runs}))} "
                        f"processes on {num(runs[0]['cpu_count'])} cores ({num(m['parse_tokens_per_s'], ',.0f')} "
                        f"tokens/s){tail}; the merge "
                        f"took {num(record['timings_s']['merge'], '.0f')} s and peaked at "
                        f"{num(m['peak_rss_mb']['after_merge']['parent'] / 1024, '.1f')} GB"),
        "whole.near_paper": (f"Within five points of the paper's shares there: {' and '.join(near) or 'none'}; not: "
                             f"{', '.join(c for c in kept if c not in near) or 'none'}"),
    }
    if (top := m.get("most_frequent_by_class")) is not None:
        out["whole.top_vps"] = "Its most frequent VPs: " + ", ".join(f'"{p}" ({num(f, ",")})' for p, f in top["VP"][:8])
    return out


def augmentation() -> dict[str, str]:
    """``augment.*``: coverage per level, the rewrite paraphraser's coverage, hard negatives."""
    d2 = read_json("02_augmentation.json")["metrics"]
    cov, hn = d2["coverage"], d2["hard_negatives"]
    out = {"augment.coverage": (f"character {num(100 * cov['level_char'], '.1f')} %, token "
                                f"{num(100 * cov['level_token'], '.1f')} %, "
                                f"phrase {num(100 * cov['level_phrase'], '.1f')} %"),
           "augment.hard_negatives": (
               f"Mined for the {num(hn['anchors'], ',')} most frequent phrases, {num(hn['mean_negatives'], '.1f')} "
               "per phrase on "
               f"average ({num(hn['with_negatives'], ',')} phrases get some). Their mean cosine is "
               f"{num(hn['mean_cosine_hard_negative'], '.2f')}, against {num(hn['mean_cosine_random_pair'], '.2f')} "
               "for a random pair")}
    if exists("paraphrase_coverage.json"):
        pc = read_json("paraphrase_coverage.json")["metrics"]
        a, j = pc["coverage_pct"]["all"], pc["judged_precision"]
        out["augment.rewrites"] = (
            f"On {num(a['phrases'], ',')} corpus phrases drawn at random, the rules change "
            f"{num(a['rules_pct'], '.1f')} %, date and "
            f"number formats bring that to {num(a['rules_formats_pct'], '.1f')} %, and one-word rewrites at cosine "
            f"{num(pc['threshold'])} to {num(a['with_words_0.8_pct'], '.1f')} % (95 % interval "
            f"{num(a['with_words_0.8_ci95'][0], '.1f')}–{num(a['with_words_0.8_ci95'][1], '.1f')}); of "
            f"{num(j['judged'])} kept word "
            f"rewrites judged by hand, {num(j['true'])} are true paraphrases "
            f"({num(j['ci95'][0], '.1f')}–{num(j['ci95'][1], '.1f')} %)")
    return out


def hard_negatives_scale() -> dict[str, str]:
    """``scale.*``: ``perf/hard_negative_mining.py``'s record: the pool, the sample, the scale run."""
    if not exists("perf/hard_negatives_scale.json"):
        return {}
    hs = read_json("perf/hard_negatives_scale.json")
    p, s = hs["pool"], hs["sample"]
    same = "identical" if s["identical_to_loop"] else "different"
    out = {
        "scale.pool": (f"The pool is every phrase seen at least {num(p['min_freq'])} times in {p['corpus']}: "
                       f"{num(p['phrases'], ',')} "
                       f"phrases, whose augmentation lexicons (what may not be a hard negative) took "
                       f"{num(p['tables_s'], ',.0f')} s to build"),
        "scale.sample": (f"On {num(s['anchors'], ',')} random anchors, the per-anchor loop took "
                         f"{num(s['per_anchor_loop_s'], ',.1f')} s and "
                         f"exact blocking {num(s['exact_s'], ',.1f')} s (the loop takes "
                         f"{num(s['loop_over_exact'], '.1f')}x as long; "
                         f"{same} lists); the blocks compare {num(s['pairs'], ',')} pairs, "
                         f"{num(s['floor_s'], ',.1f')} s at the "
                         f"Levenshtein kernel's rate ({num(s['exact_over_floor'], '.1f')}x that)"),
        "scale.ann": (f"The approximate search took {num(s['ann_search_s'], ',.1f')} s after a "
                      f"{num(s['ann_build_s'], ',.0f')} s index "
                      f"build; its candidate lists hold {num(100 * s['candidate_recall']['recall'], '.1f')} % of the "
                      "exact ones"),
    }
    if (neg := hs.get("negatives")) is not None:
        out["scale.recall"] = (f"recall@{num(neg['k'])} of the hard negatives themselves is "
                               f"{num(100 * neg['recall_at_k']['recall'], '.1f')} % on {num(neg['anchors'], ',')} of "
                               "those anchors")
    sc = hs.get("scale")
    if sc is not None and sc["complete"]:
        names = {"exact": "exact blocking", "ann": "the approximate search"}
        for method, m in sc["by_method"].items():
            out[f"scale.run_{method}"] = (
                f"The {num(sc['anchors'], ',')} most frequent phrases, mined end to end by {names[method]}: "
                f"{num(m['total_s'] / 60, '.0f')} minutes (candidates {num(m['candidates_s'], ',.0f')} s, exclusions "
                f"{num(m['exclusions_s'], ',.0f')} s, encoding its {num(m['needs_encoding'], ',')} phrases "
                f"{num(m['needs_encoding'] / sc['encode_phrases_per_s'], ',.0f')} s at the run's rate, selection "
                f"{num(m['select_s'], ',.0f')} s); {num(m['anchors_with_negatives'], ',')} anchors get negatives and "
                f"{num(100 * m['share_with_k'], '.1f')} % of all anchors get {num(hs['args']['k'])}, of mean cosine "
                f"{num(m['mean_cosine_hard_negative'], '.2f')}")
        out["scale.pairs"] = (f"Exact blocking compares {num(sc['pairs'], ',')} pairs for these anchors, "
                              f"{num(sc['floor_s'], ',.0f')} s at "
                              f"the Levenshtein kernel's rate")
        out["scale.encoding"] = (
            f"Encoding {num(sc['encoded'], ',')} phrases took {num(sc['encode_s'], ',.0f')} s "
            f"({num(sc['encode_phrases_per_s'], ',.0f')} "
            f"phrases/s, {num(sc['encode_over_floor'], '.2f')}x its FLOP floor); a random pair's mean cosine is "
            f"{num(sc['mean_cosine_random_pair'], '.2f')}; peak RSS {num(sc['peak_rss_mb'] / 1024, '.1f')} GB, load "
            "average "
            f"{num(sc['load_average'][0], '.1f')} on {num(hs['hardware']['cpu_count'])} cores")
        if "candidate_recall" in sc:
            out["scale.recall_at_scale"] = (
                f"At scale the approximate candidate lists hold {num(100 * sc['candidate_recall']['recall'], '.1f')} "
                "% of the "
                f"exact ones, and recall@{num(hs['args']['k'])} of the hard negatives is "
                f"{num(100 * sc['negatives_recall_at_k']['recall'], '.1f')} %")
    return out


def figures() -> dict[str, str]:
    """``figure1.*`` and ``figure4.*``: notebook 05's record and ``results/figure4.csv``."""
    import pandas as pd

    f5 = read_json("05_figures.json")["metrics"]
    got = {short(k): v for k, v in f5["figure1_cases_with_aliases_first"].items()}
    f4 = pd.read_csv(results() / "figure4.csv")
    f4["model"] = f4["model"].map(short)
    emb = f4[f4.space == "embedding"].set_index("model")
    seeds = emb[emb.index.str.startswith("pearl")]
    tsne = f4[(f4.space == "tsne") & (f4.model == "minilm")].iloc[0]
    return {
        "figure1.cases": (f"Across {num(f5['figure1_cases'])} cases, GloVe gets {num(got['glove'])} right, MiniLM "
                          f"{num(got['minilm'])} "
                          f"and the PEARL seeds {', '.join(str(v) for k, v in got.items() if k.startswith('pearl'))}"),
        "figure4.names": f"{num(f5['figure4_names'])} AutoFJ names, {num(f5['figure4_names'] // 6)} for each of six "
                         "YAGO-4-like groups",
        "figure4.baselines": (f"kNN type accuracy is {num(emb.knn_accuracy['glove'], '.3f')} for GloVe and "
                              f"{num(emb.knn_accuracy['minilm'], '.3f')} for MiniLM; the silhouette is "
                              f"{num(emb.silhouette['glove'], '.3f')} and {num(emb.silhouette['minilm'], '.3f')}"),
        "figure4.pearl": (f"For the PEARL seeds the kNN accuracy is {num(seeds.knn_accuracy.min(), '.3f')}–"
                          f"{num(seeds.knn_accuracy.max(), '.3f')} and the silhouette "
                          f"{num(seeds.silhouette.min(), '.3f')}–"
                          f"{num(seeds.silhouette.max(), '.3f')}"),
        "figure4.tsne": f"MiniLM t-SNE silhouette {num(tsne.silhouette, '.3f')} in this run",
    }


def all_sentences() -> dict[str, str]:
    """Every sentence above; those of a function whose results file lacks a number are *no result* (:func:`strict`)."""
    return {**strict(corpus, "corpus.", sources=("01_data_building.json",)),
            **strict(whole_corpus, "whole.", sources=("wikipedia_whole_corpus.json",)),
            **strict(augmentation, "augment.", sources=("02_augmentation.json", "paraphrase_coverage.json")),
            **strict(hard_negatives_scale, "scale.", sources=("hard_negatives_scale.json",)),
            **strict(figures, "figure1.", "figure4.", sources=("05_figures.json", "figure4.csv"))}
