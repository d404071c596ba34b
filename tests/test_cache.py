"""The embedding cache: same vectors as encoding afresh, never re-encodes an unchanged model,
never serves a changed model old vectors, survives interrupted writes and bad files."""
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch
from _tiny import tiny_backbone

from pearl.cache import EmbeddingStore, cached
from pearl.encode import Encoder, encode
from pearl.backbones.fingerprint import fingerprint

PHRASES = ["The New York Times", "NYTimes", "in 2008", "café au lait", "NYTimes"]


def tiny_encoder(seed=0):
    model, tok = tiny_backbone(seed, dropout=0.0)
    return Encoder(name=f"tiny{seed}", dim=32, model=model.eval(), tokenizer=tok, max_length=32)


def test_cached_vectors_equal_fresh_ones_and_are_encoded_once(tmp_path):
    raw = tiny_encoder()
    first = cached(raw, tmp_path / "e.sqlite")
    np.testing.assert_array_equal(encode(first, PHRASES), encode(raw, PHRASES))
    assert first.extra["vectors"].encoded == 4  # distinct phrases only
    again = cached(tiny_encoder(), tmp_path / "e.sqlite")  # a new process would see the same file
    np.testing.assert_array_equal(encode(again, PHRASES), encode(raw, PHRASES))
    assert again.extra["vectors"].encoded == 0
    np.testing.assert_array_equal(encode(again, PHRASES, normalize=False), encode(raw, PHRASES, normalize=False))


def test_a_changed_model_never_gets_old_vectors(tmp_path):
    path = tmp_path / "e.sqlite"
    encode(cached(tiny_encoder(), path), PHRASES)
    changed = tiny_encoder()
    with torch.no_grad():
        changed.model.embeddings.word_embeddings.weight[:, 0] += 0.5  # new weights, same name
    assert fingerprint(changed) != fingerprint(tiny_encoder())
    fresh = cached(changed, path)
    got = encode(fresh, PHRASES)
    assert fresh.extra["vectors"].encoded == 4
    np.testing.assert_array_equal(got, encode(changed, PHRASES))
    assert not np.allclose(got, encode(tiny_encoder(), PHRASES))


def test_a_character_weight_set_after_loading_never_gets_or_poisons_old_vectors(tmp_path):
    """Before: setting the applied ``char_scale`` on a loaded PEARL model returned the old weight's vectors for
    phrases already cached, and stored the new weight's under the old key (a clean run then got them).
    Now the applied weight is in the fingerprint: fresh vectors, and the old entries stay right."""
    from _tiny import tiny_exported
    from pearl.models import load_model

    path = tmp_path / "e.sqlite"
    _, _, folder = tiny_exported(tmp_path / "pearl-tiny-seed0")
    loaded = cached(load_model(folder, device="cpu", cache=False), path)
    before = encode(loaded, PHRASES)
    loaded.extra["inner"].model.char_scale.fill_(0.9)  # the model's applied scale, a buffer
    after = encode(loaded, PHRASES)
    plain = load_model(folder, device="cpu", cache=False)
    plain.model.char_scale.fill_(0.9)
    np.testing.assert_array_equal(after, encode(plain, PHRASES))
    assert not np.allclose(after, before)
    clean = cached(load_model(folder, device="cpu", cache=False), path)  # a later clean run
    np.testing.assert_array_equal(encode(clean, PHRASES), before)
    wrapper = cached(clean, path)  # a wrapper with no model of its own keeps the memo it copied
    fingerprint(clean.extra["inner"])
    assert fingerprint(Encoder(name="w", dim=clean.dim, fn=wrapper.fn, extra=dict(clean.extra["inner"].extra))) \
        == fingerprint(clean.extra["inner"])


def test_an_interrupted_write_leaves_no_partial_entry(tmp_path):
    store = EmbeddingStore(tmp_path / "e.sqlite")
    vecs = np.ones((3, 4), np.float32)

    def rows_then_crash():
        yield ("fp", "a", vecs[0].tobytes())
        yield ("fp", "b", vecs[1].tobytes())
        raise KeyboardInterrupt("killed mid-write")

    with pytest.raises(KeyboardInterrupt):
        with store.db:
            store.db.executemany("INSERT INTO vectors VALUES (?, ?, ?)", rows_then_crash())
    assert store.count() == 0  # the transaction never committed: nothing half-written is read
    store.put("fp", ["a", "b", "c"], vecs)
    assert store.count("fp") == 3 and set(store.get("fp", ["a", "c", "zz"], 4)) == {"a", "c"}


def test_a_process_killed_while_writing_leaves_a_readable_cache(tmp_path):
    """SIGKILL during a large write: the file opens, and holds all or none of that batch."""
    path = tmp_path / "e.sqlite"
    code = textwrap.dedent(f"""
        import numpy as np, sys
        from pearl.cache import EmbeddingStore
        store = EmbeddingStore({str(path)!r})
        store.put("fp", ["warm"], np.ones((1, 64), np.float32))
        print("ready", flush=True)
        texts = [f"t{{i}}" for i in range(400_000)]
        store.put("fp", texts, np.ones((len(texts), 64), np.float32))
    """)
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert proc.stdout.readline().strip() == "ready"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    store = EmbeddingStore(path)
    assert store.count("fp") in (1, 400_001)
    assert set(store.get("fp", ["warm"], 64)) == {"warm"}


def test_a_corrupt_file_warns_and_falls_back_to_encoding(tmp_path):
    path = tmp_path / "e.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.warns(UserWarning, match="delete the file"):
        enc = cached(tiny_encoder(), path)
        got = encode(enc, PHRASES)
    np.testing.assert_array_equal(got, encode(tiny_encoder(), PHRASES))


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores folder permissions")
def test_a_read_only_folder_warns_and_falls_back(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    with pytest.warns(UserWarning, match="unusable"):
        got = encode(cached(tiny_encoder(), folder / "e.sqlite"), PHRASES)
    np.testing.assert_array_equal(got, encode(tiny_encoder(), PHRASES))


def test_a_read_only_file_warns_and_falls_back(tmp_path):
    """As root, permissions do not stop writes; an unwritable database does (sqlite's read-only open)."""
    path = tmp_path / "e.sqlite"
    encode(cached(tiny_encoder(), path), PHRASES[:2])
    store = EmbeddingStore(path)
    store.db.close()
    store.db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    with pytest.warns(UserWarning, match="unusable"):
        store.put("fp", ["x"], np.ones((1, 32), np.float32))
    assert store.db is None  # from now on: encode without the cache


def test_a_stored_vector_of_the_wrong_size_is_a_miss(tmp_path):
    store = EmbeddingStore(tmp_path / "e.sqlite")
    store.put("fp", ["a"], np.ones((1, 8), np.float32))
    assert store.get("fp", ["a"], 8) and not store.get("fp", ["a"], 16)


def test_the_cache_can_be_switched_off(monkeypatch):
    monkeypatch.setenv("PEARL_EMBEDDING_CACHE", "0")
    enc = cached(tiny_encoder())
    assert enc.extra["vectors"].store is None
    np.testing.assert_array_equal(encode(enc, PHRASES), encode(tiny_encoder(), PHRASES))


def test_scores_are_reused_only_while_model_data_and_code_are_unchanged(tmp_path, monkeypatch):
    from pearl import cache
    from pearl.benchmark import scoring

    monkeypatch.setenv("PEARL_EMBEDDING_CACHE", str(tmp_path / "e.sqlite"))
    quiet = dict(size="tiny", log=lambda _: None)
    first = scoring.run_model("tiny", tiny_encoder(), ["bird", "turney"], **quiet)
    again = scoring.run_model("tiny", tiny_encoder(), ["bird", "turney"], **quiet)
    assert [r["score"] for r in again] == [r["score"] for r in first]
    assert all(r["details"].get("score_reused") for r in again)
    assert not any(r["details"].get("score_reused") for r in first)
    changed = tiny_encoder()
    with torch.no_grad():
        changed.model.embeddings.word_embeddings.weight[:, 0] += 0.5
    assert not any(r["details"].get("score_reused") for r in scoring.run_model("tiny", changed, ["bird"], **quiet))
    monkeypatch.setattr(cache, "scoring_version", lambda task: "other scoring code")
    monkeypatch.setattr(scoring, "scoring_version", lambda task: "other scoring code")
    assert not any(r["details"].get("score_reused") for r in scoring.run_model("tiny", tiny_encoder(), ["bird"], **quiet))
    fresh = scoring.run_model("tiny", tiny_encoder(), ["bird"], reuse_scores=False, **quiet)
    assert not fresh[0]["details"].get("score_reused")


def test_the_store_serves_other_threads(tmp_path):
    """The explorer encodes from its debounce thread: the cache must work there, not switch off."""
    import threading
    import warnings

    enc = cached(tiny_encoder(), tmp_path / "e.sqlite")
    encode(enc, PHRASES[:2])
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        worker = threading.Thread(target=lambda: out.update(v=encode(enc, PHRASES)))
        worker.start()
        worker.join()
    np.testing.assert_array_equal(out["v"], encode(tiny_encoder(), PHRASES))
    assert enc.extra["vectors"].store.db is not None


def test_scoring_version_is_per_task(tmp_path):
    """A change to the probe re-scores the two PPDB tasks only; one to shared code re-scores all."""
    import shutil
    from pathlib import Path

    from pearl import cache
    from pearl.benchmark.tasks import TASKS

    assert set(cache.TASK_CODE) <= set(TASKS)
    root = tmp_path / "pearl"
    shutil.copytree(Path(cache.__file__).parent, root, ignore=shutil.ignore_patterns("__pycache__"))
    before = {t: cache.scoring_version(t, root) for t in TASKS}
    assert before == {t: cache.scoring_version(t) for t in TASKS}  # the copy is the package
    assert len(set(before.values())) == len(TASKS)  # the task's name is in its version
    with open(root / "benchmark" / "probe.py", "a") as fh:
        fh.write("\n# a changed probe\n")
    after = {t: cache.scoring_version(t, root) for t in TASKS}
    assert {t for t in TASKS if after[t] != before[t]} == {"ppdb", "ppdb_filtered"}
    with open(root / "benchmark" / "evaluate.py", "a") as fh:
        fh.write("\n# changed shared code\n")
    assert all(cache.scoring_version(t, root) != after[t] for t in TASKS)


def test_a_changed_clustering_protocol_rescores_the_two_clustering_tasks_only(tmp_path):
    import shutil
    from pathlib import Path

    from pearl import cache
    from pearl.benchmark.tasks import TASKS

    root = tmp_path / "pearl"
    shutil.copytree(Path(cache.__file__).parent, root, ignore=shutil.ignore_patterns("__pycache__"))
    before = {t: cache.scoring_version(t, root) for t in TASKS}
    with open(root / "benchmark" / "clustering.py", "a") as fh:
        fh.write("\n# a changed protocol\n")
    assert {t for t in TASKS if cache.scoring_version(t, root) != before[t]} == {"conll", "bc5cdr"}


def test_a_stored_vector_takes_little_more_disk_than_its_bytes(tmp_path):
    # SQLite's default 4 KB pages pushed each 1.8 KB row to an overflow page: 4.7 KB a vector,
    # about 27 GB for the ~5.7M vectors of one cpu-profile make reproduce (an estimate)
    store = EmbeddingStore(tmp_path / "e.sqlite")
    texts = [f"phrase number {i} of a dictionary" for i in range(3000)]
    store.put("f" * 64, texts, np.random.default_rng(0).random((len(texts), 448), dtype=np.float32))
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    payload = sum(64 + len(t) + 448 * 4 for t in texts)
    assert os.path.getsize(tmp_path / "e.sqlite") < 1.4 * payload


def test_a_flipped_byte_in_a_stored_vector_is_re_encoded_with_one_warning(tmp_path):
    """SQLite's own integrity check passes over a changed byte inside a row: the vector's checksum does not."""
    path = tmp_path / "e.sqlite"
    encode(cached(tiny_encoder(), path), PHRASES)
    db = sqlite3.connect(path)
    for text in ("NYTimes", "in 2008"):
        (blob,) = db.execute("SELECT vec FROM vectors WHERE text = ?", (text,)).fetchone()
        raw = bytearray(blob)
        raw[5] ^= 0x01  # one bit of the second float
        db.execute("UPDATE vectors SET vec = ? WHERE text = ?", (bytes(raw), text))
    db.commit()
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    db.close()
    again = cached(tiny_encoder(), path)
    with pytest.warns(UserWarning, match=r"does not match its checksum") as caught:
        got = encode(again, PHRASES)
    assert len([w for w in caught if "checksum" in str(w.message)]) == 1  # warned once, not per vector
    # the two re-encoded in a batch of their own: equal to float rounding, not bit for bit (the GEMM
    # path depends on the batch's shape on some CPUs); the flipped bit moves its float by over 2**-16 of it
    np.testing.assert_allclose(got, encode(tiny_encoder(), PHRASES), rtol=1e-6, atol=1e-7)
    assert again.extra["vectors"].encoded == 2  # the two damaged ones, encoded again
    third = cached(tiny_encoder(), path)
    encode(third, PHRASES)
    assert third.extra["vectors"].encoded == 0  # and replaced


def test_the_fingerprint_covers_config_tokenizer_pearl_settings_and_pooling():
    from tokenizers import normalizers

    base = fingerprint(tiny_encoder())
    changes = []
    e = tiny_encoder()
    e.model.config.hidden_act = "relu"
    changes.append(e)
    e = tiny_encoder()
    e.model.config.layer_norm_eps = 1e-3
    changes.append(e)
    e = tiny_encoder()
    e.tokenizer.backend_tokenizer.normalizer = normalizers.BertNormalizer(lowercase=False)
    changes.append(e)
    e = tiny_encoder()
    e.tokenizer.init_kwargs["do_lower_case"] = False
    changes.append(e)
    e = tiny_encoder()
    e.extra["pearl"] = {"char_scale": 0.5}
    changes.append(e)
    e = tiny_encoder()
    e.forward = lambda batch, texts: None  # a pooling of its own
    changes.append(e)
    prints = [fingerprint(c) for c in changes]
    assert base not in prints and len(set(prints)) == len(prints)
    e = tiny_encoder()
    e.tokenizer("a phrase", truncation=True, max_length=5)  # per-call state is not part of the model
    assert fingerprint(e) == base


def _saved_tiny(folder):
    from pearl.backbones import weights

    model, tok = tiny_backbone(0, dropout=0.0)
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    weights.write_manifest(folder)
    return folder


def _edit(path, change):
    import json

    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


@pytest.mark.parametrize("file, change", [
    ("config.json", lambda c: c.update(hidden_act="relu")),
    ("config.json", lambda c: c.update(layer_norm_eps=1e-3)),
    ("tokenizer.json", lambda t: t["normalizer"].update(lowercase=False)),
    ("tokenizer_config.json", lambda t: t.update(do_lower_case=False)),
])
def test_an_edited_model_file_changes_the_fingerprint(tmp_path, file, change):
    """Each file edited with the weights unchanged (and the folder's digests recorded again, as its
    owner would): the loaded model has another fingerprint, so it never gets the old vectors."""
    from pearl.backbones import weights
    from pearl.models import load_model

    folder = _saved_tiny(tmp_path / "m")
    before = fingerprint(load_model(folder, device="cpu", cache=False))
    _edit(folder / file, change)
    weights.write_manifest(folder)
    assert fingerprint(load_model(folder, device="cpu", cache=False)) != before


def test_an_edited_pearl_json_changes_the_fingerprint(tmp_path):
    from _tiny import tiny_exported
    from pearl.backbones import weights
    from pearl.models import load_model

    _, _, folder = tiny_exported(tmp_path / "pearl-tiny-seed0")
    before = fingerprint(load_model(folder, device="cpu", cache=False))

    def reweigh(info):
        info["char_scale"] = 0.9
        info["settings_sha256"] = weights.settings_digest(info)  # as if exported so

    _edit(folder / "pearl.json", reweigh)
    assert fingerprint(load_model(folder, device="cpu", cache=False)) != before
