"""harness.report.data: the whole corpus's build calls in words, when calls killed before they recorded
themselves parsed some of its chunks."""
from harness.report import data


def run(chunks, seconds):
    return {"chunks_parsed": chunks, "seconds": seconds}


def test_recorded_calls_that_parsed_every_chunk():
    assert data._parsed_by([run(600, 3600), run(15, 1800)], 615) == ("It was parsed in 1.5 hours by 2 build calls", "")


def test_chunks_parsed_by_calls_that_left_no_record_are_said_so():
    assert data._parsed_by([run(332, 3734.5)], 615) == (
        "332 of its 615 chunks were parsed in 1.0 hours by 1 build call",
        ", the others by calls killed before they recorded themselves")
