"""attnlib.ledger.claim: formatting like the article, failing when a number drifts."""

import json

import pytest

from attnlib import ledger


@pytest.mark.parametrize(
    ("value", "expected", "text"),
    [
        (0.306596, "0.3066", "0.3066"),
        (4.1712e-09, "4.17e-09", "4.17e-09"),
        (2.0571e-5, "2.06e-5", "2.06e-05"),
        (-1.18364, "−1.1836", "-1.1836"),
        (-1e-9, "0.000", "0.000"),
        (22.66912, "22.669", "22.669"),
    ],
)
def test_format_like_copies_the_printed_precision(value, expected, text):
    assert ledger.format_like(value, expected) == text


def test_exact_claim_passes_and_records(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ATTNLIB_CLAIMS_DIR", str(tmp_path))
    assert ledger.claim("02_x/max_p", 0.30659, "0.3066", article="000", where="표") == 0.30659
    assert "0.3066" in capsys.readouterr().out
    (line,) = [ln for f in tmp_path.iterdir() for ln in f.read_text().splitlines()]
    rec = json.loads(line)
    assert rec["key"] == "02_x/max_p" and rec["ok"] and rec["ours"] == "0.3066"


def test_exact_claim_that_drifts_names_the_claim():
    with pytest.raises(ledger.ClaimError, match="02_x/max_p.*0.3067.*0.3066"):
        ledger.claim("02_x/max_p", 0.30671, "0.3066", article="000", where="표")


def test_erratum_that_agrees_is_an_error():
    with pytest.raises(ledger.ClaimError, match="erratum"):
        ledger.claim("05_x/w", 0.5, "0.5", article="000", where="§", status="erratum", note="n")
    assert ledger.claim("05_x/w", 0.7, "0.5", article="000", where="§", status="erratum",
                        note="variance vs std") == 0.7


@pytest.mark.parametrize(
    ("kwargs", "word"),
    [
        ({"key": "max_p"}, "key"),
        ({"expected": 0.3}, "expected"),
        ({"article": "001"}, "article"),
        ({"status": "roughly"}, "status"),
        ({"status": "shape"}, "note"),
        ({"value": float("nan")}, "NaN"),
    ],
)
def test_bad_claims_are_refused(kwargs, word):
    args = {"key": "02_x/k", "value": 0.3, "expected": "0.3", "article": "000", "where": "§"}
    args.update(kwargs)
    with pytest.raises((ValueError, TypeError, ledger.ClaimError), match=word):
        ledger.claim(args.pop("key"), args.pop("value"), args.pop("expected"), **args)
