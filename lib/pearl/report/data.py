"""Sentences on the training data and the figures: the corpus and its classes, the Wikipedia
sample and whole copy, augmentation coverage, hard negatives (sample and scale), Figures 1 and 4.

Each function returns ``{key: sentence}`` (see :mod:`pearl.report.timings`).
"""
from __future__ import annotations

from .common import exists, read_json, results, short

DATA = "results/01_data_building.json"


def _shares(shares: dict) -> str:
    return " / ".join(f"{v:.1f}" for v in shares.values())


def corpus() -> dict[str, str]:
    """``corpus.*``: notebook 01's corpus, its classes, types and the Wikipedia sample."""
    d1 = read_json("01_data_building.json")["metrics"]
    ours, paper = d1["class_shares_pct"]["WikiText-2 + WordNet"], d1["paper_class_shares_pct"]
    out = {
        "corpus.size": (f"{d1['corpus_size']:,} distinct phrases: {d1.get('corpus_phrases_wikitext2', 0):,} from "
                        f"WikiText-2 at min-frequency 1, plus WordNet"),
        "corpus.min_freq": f"A min-frequency of 2, as in the paper, leaves only {d1['distinct_phrases_by_min_freq']['2']:,}",
        "corpus.classes": f"NP / VP / PP / ADVP / ADJP = {_shares(ours)} %, against the paper's {_shares(paper)} %",
        "corpus.types": (f"OTHER is {d1['other_share_pct']['all']:.0f} % of phrases; {d1['labels_present']} of 95 "
                         f"labels occur"),
    }
    if (ws := d1.get("wikipedia_sample")) is not None:
        out["corpus.sample"] = (f"{ws['articles']:,} articles, {ws['tokens']:,} tokens: {ws['distinct_phrases']:,} distinct "
                                f"phrases, {ws['kept_phrases']:,} ({ws['kept_share_pct']:.1f} %) seen at least twice")
        out["corpus.sample_classes"] = (f"at least twice: NP / VP / PP / ADVP / ADJP = {_shares(ws['class_shares_pct']['kept'])}"
                                        f" %; {ws['types_present']} of the 95 phrase types occur")
        out["corpus.sample_build"] = "; ".join(
            f"{r['tokens_parsed']:,} tokens in {r['seconds']:,.0f} s with {r['n_process']} processes at a load average "
            f"of {r['load_average_end'][0]:.1f} on {r['cpu_count']} shared cores" for r in ws["build_runs"])
    return out


def whole_corpus() -> dict[str, str]:
    """``whole.*``: the whole Wikipedia copy's record (``scripts/whole_corpus.py``)."""
    if not exists("wikipedia_whole_corpus.json"):
        return {}
    record = read_json("wikipedia_whole_corpus.json")
    m = record["metrics"]
    kept, paper, runs = m["class_shares_pct"]["kept"], m["class_shares_pct"]["paper"], m["build_runs"]
    near = [c for c in kept if abs(kept[c] - paper[c]) <= 5]
    out = {
        "whole.size": (f"The whole corpus ({m['articles']:,} articles, {m['tokens']:,} tokens) holds "
                       f"{m['distinct_phrases']:,} distinct phrases, {m['kept_phrases']:,} ({m['kept_share_pct']:.1f} %) "
                       f"of them seen at least {'twice' if m['min_freq'] == 2 else str(m['min_freq']) + ' times'}"),
        "whole.classes": (f"at least twice there: NP / VP / PP / ADVP / ADJP = {_shares(kept)} %; {m['types_present']} "
                          f"of the 95 phrase types occur"),
        "whole.build": (f"It was parsed in {sum(r['seconds'] for r in runs) / 3600:.1f} hours by {len(runs)} build "
                        f"call{'s' * (len(runs) > 1)} with {'/'.join(sorted({str(r['n_process']) for r in runs}))} "
                        f"processes on {runs[0]['cpu_count']} cores ({m['parse_tokens_per_s']:,.0f} tokens/s); the merge "
                        f"took {record['timings_s']['merge']:.0f} s and peaked at "
                        f"{m['peak_rss_mb']['after_merge']['parent'] / 1024:.1f} GB"),
        "whole.near_paper": (f"Within five points of the paper's shares there: {' and '.join(near) or 'none'}; not: "
                             f"{', '.join(c for c in kept if c not in near) or 'none'}"),
    }
    if (top := m.get("most_frequent_by_class")) is not None:
        out["whole.top_vps"] = "Its most frequent VPs: " + ", ".join(f'"{p}" ({f:,})' for p, f in top["VP"][:8])
    return out


def augmentation() -> dict[str, str]:
    """``augment.*``: coverage per level, the rewrite paraphraser's coverage, hard negatives."""
    d2 = read_json("02_augmentation.json")["metrics"]
    cov, hn = d2["coverage"], d2["hard_negatives"]
    out = {"augment.coverage": (f"character {100 * cov['level_char']:.1f} %, token {100 * cov['level_token']:.1f} %, "
                                f"phrase {100 * cov['level_phrase']:.1f} %"),
           "augment.hard_negatives": (
               f"Mined for the {hn['anchors']:,} most frequent phrases, {hn['mean_negatives']:.1f} per phrase on "
               f"average ({hn['with_negatives']:,} phrases get some). Their mean cosine is "
               f"{hn['mean_cosine_hard_negative']:.2f}, against {hn['mean_cosine_random_pair']:.2f} for a random pair")}
    if exists("paraphrase_coverage.json"):
        pc = read_json("paraphrase_coverage.json")["metrics"]
        a, j = pc["coverage_pct"]["all"], pc["judged_precision"]
        out["augment.rewrites"] = (
            f"On {a['phrases']:,} corpus phrases drawn at random, the rules change {a['rules_pct']:.1f} %, date and "
            f"number formats bring that to {a['rules_formats_pct']:.1f} %, and one-word rewrites at cosine "
            f"{pc['threshold']} to {a['with_words_0.8_pct']:.1f} % (95 % interval "
            f"{a['with_words_0.8_ci95'][0]:.1f}–{a['with_words_0.8_ci95'][1]:.1f}); of {j['judged']} kept word "
            f"rewrites judged by hand, {j['true']} are true paraphrases ({j['ci95'][0]:.1f}–{j['ci95'][1]:.1f} %)")
    return out


def hard_negatives_scale() -> dict[str, str]:
    """``scale.*``: ``perf/hard_negative_mining.py``'s record: the pool, the sample, the scale run."""
    if not exists("perf/hard_negatives_scale.json"):
        return {}
    hs = read_json("perf/hard_negatives_scale.json")
    p, s = hs["pool"], hs["sample"]
    same = "identical" if s["identical_to_loop"] else "different"
    out = {
        "scale.pool": (f"The pool is every phrase seen at least {p['min_freq']} times in {p['corpus']}: {p['phrases']:,} "
                       f"phrases, whose augmentation tables (what may not be a hard negative) took "
                       f"{p['tables_s']:,.0f} s to build"),
        "scale.sample": (f"On {s['anchors']:,} random anchors, the per-anchor loop took {s['per_anchor_loop_s']:,.1f} s and "
                         f"exact blocking {s['exact_s']:,.1f} s (the loop takes {s['loop_over_exact']:.1f}x as long; "
                         f"{same} lists); the blocks compare {s['pairs']:,} pairs, {s['floor_s']:,.1f} s at the "
                         f"Levenshtein kernel's rate ({s['exact_over_floor']:.1f}x that)"),
        "scale.ann": (f"The approximate search took {s['ann_search_s']:,.1f} s after a {s['ann_build_s']:,.0f} s index "
                      f"build; its candidate lists hold {100 * s['candidate_recall']['recall']:.1f} % of the exact ones"),
    }
    if (neg := hs.get("negatives")) is not None:
        out["scale.recall"] = (f"recall@{neg['k']} of the hard negatives themselves is "
                               f"{100 * neg['recall_at_k']['recall']:.1f} % on {neg['anchors']:,} of those anchors")
    sc = hs.get("scale")
    if sc is not None and sc["complete"]:
        names = {"exact": "exact blocking", "ann": "the approximate search"}
        for method, m in sc["by_method"].items():
            out[f"scale.run_{method}"] = (
                f"The {sc['anchors']:,} most frequent phrases, mined end to end by {names[method]}: "
                f"{m['total_s'] / 60:.0f} minutes (candidates {m['candidates_s']:,.0f} s, exclusions "
                f"{m['exclusions_s']:,.0f} s, encoding its {m['needs_encoding']:,} phrases "
                f"{m['needs_encoding'] / sc['encode_phrases_per_s']:,.0f} s at the run's rate, selection "
                f"{m['select_s']:,.0f} s); {m['anchors_with_negatives']:,} anchors get negatives and "
                f"{100 * m['share_with_k']:.1f} % of all anchors get {hs['args']['k']}, of mean cosine "
                f"{m['mean_cosine_hard_negative']:.2f}")
        out["scale.pairs"] = (f"Exact blocking compares {sc['pairs']:,} pairs for these anchors, {sc['floor_s']:,.0f} s at "
                              f"the Levenshtein kernel's rate")
        out["scale.encoding"] = (
            f"Encoding {sc['encoded']:,} phrases took {sc['encode_s']:,.0f} s ({sc['encode_phrases_per_s']:,.0f} "
            f"phrases/s, {sc['encode_over_floor']:.2f}x its FLOP floor); a random pair's mean cosine is "
            f"{sc['mean_cosine_random_pair']:.2f}; peak RSS {sc['peak_rss_mb'] / 1024:.1f} GB, load average "
            f"{sc['load_average'][0]:.1f} on {hs['hardware']['cpu_count']} cores")
        if "candidate_recall" in sc:
            out["scale.recall_at_scale"] = (
                f"At scale the approximate candidate lists hold {100 * sc['candidate_recall']['recall']:.1f} % of the "
                f"exact ones, and recall@{hs['args']['k']} of the hard negatives is "
                f"{100 * sc['negatives_recall_at_k']['recall']:.1f} %")
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
        "figure1.cases": (f"Across {f5['figure1_cases']} cases, GloVe gets {got['glove']} right, MiniLM {got['minilm']} "
                          f"and the PEARL seeds {', '.join(str(v) for k, v in got.items() if k.startswith('pearl'))}"),
        "figure4.names": f"{f5['figure4_names']} AutoFJ names, {f5['figure4_names'] // 6} for each of six YAGO-4-like groups",
        "figure4.baselines": (f"kNN type accuracy is {emb.knn_accuracy['glove']:.3f} for GloVe and "
                              f"{emb.knn_accuracy['minilm']:.3f} for MiniLM; the silhouette is "
                              f"{emb.silhouette['glove']:.3f} and {emb.silhouette['minilm']:.3f}"),
        "figure4.pearl": (f"For the PEARL seeds the kNN accuracy is {seeds.knn_accuracy.min():.3f}–"
                          f"{seeds.knn_accuracy.max():.3f} and the silhouette {seeds.silhouette.min():.3f}–"
                          f"{seeds.silhouette.max():.3f}"),
        "figure4.tsne": f"MiniLM t-SNE silhouette {tsne.silhouette:.3f} in this run",
    }


def all_sentences() -> dict[str, str]:
    return {**corpus(), **whole_corpus(), **augmentation(), **hard_negatives_scale(), **figures()}
