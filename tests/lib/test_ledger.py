"""attnlib.ledger.claim: formatting like the article, failing when a number drifts."""

import json

import pytest

from attnlib import claims, ledger


@pytest.mark.parametrize(
    ("value", "expected", "text"),
    [
        (0.306596, "0.3066", "0.3066"),
        (4.1712e-09, "4.17e-09", "4.17e-09"),
        (2.0571e-5, "2.06e-5", "2.06e-05"),
        (-1.18364, "−1.1836", "-1.1836"),
        (-1e-9, "0.000", "0.000"),
        (22.66912, "22.669", "22.669"),
        (0.0121, "+0.012", "+0.012"),
        (-0.0613, "-0.061", "-0.061"),
        (1073741824, "1073741824", "1073741824"),
        (438_800.0, "44만", "44만"),  # the article's 「44만」: 10⁴s to its digits
    ],
)
def test_format_like_copies_the_printed_precision(value, expected, text):
    assert ledger.format_like(value, expected) == text


def test_exact_claim_passes_and_records(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ATTNLIB_CLAIMS_DIR", str(tmp_path))
    assert ledger.claim("02_collapse/max_p_scaled", 0.30659) == 0.30659
    assert capsys.readouterr().out == "✔ 나눈 쪽의 최대 확률: 0.3066  (글: 0.3066)\n"
    (line,) = [ln for f in tmp_path.iterdir() for ln in f.read_text().splitlines()]
    rec = json.loads(line)
    assert rec["key"] == "02_collapse/max_p_scaled" and rec["ok"] and rec["ours"] == "0.3066"


def test_vector_claim_compares_every_number():
    ledger.claim("12_row_sum/r", [-1.18361, 0.16482])
    with pytest.raises(ledger.ClaimError, match="12_row_sum/r.*0.1649"):
        ledger.claim("12_row_sum/r", [-1.18361, 0.16488])


def test_exact_claim_that_drifts_names_the_claim():
    with pytest.raises(ledger.ClaimError, match="02_collapse/max_p_scaled.*0.3067.*0.3066"):
        ledger.claim("02_collapse/max_p_scaled", 0.30671)


def test_erratum_that_agrees_is_an_error(monkeypatch):
    spec = claims.ArticleClaim("05_devices/test", "000", "본문", "초기 점수 분산", ("1.000",),
                               status="erratum", note="분산이 아니라 표준편차")
    monkeypatch.setitem(claims.CLAIMS, spec.key, spec)
    with pytest.raises(ledger.ClaimError, match="erratum"):
        ledger.claim(spec.key, 1.0)
    assert ledger.claim(spec.key, 2.8284) == 2.8284


def test_erratum_in_words_is_held_with_a_not_equal_sign(capsys):
    ledger.holds("05_devices/init_factor", True, "점수 분산 8.0")
    out = capsys.readouterr().out
    assert out.startswith("≠ W_Q, W_K 의 분산을 1/⁴√d_k 배 줄이면 초기 점수 분산이 1: "
                          "점수 분산 8.0  (글: 「초기 점수의 분산은")
    with pytest.raises(ValueError, match="holds"):
        ledger.claim("05_devices/init_factor", 8.0)
    with pytest.raises(ledger.ClaimError, match="erratum"):
        ledger.holds("05_devices/init_factor", False, "점수 분산 1.0")


def test_shape_claim_takes_a_summary():
    ledger.claim("13_peaked/norm_table", "봉우리 ×8")
    with pytest.raises(TypeError, match="value"):
        ledger.claim("02_collapse/max_p_scaled", "0.3066")


@pytest.mark.parametrize(
    ("key", "value", "word"),
    [
        ("02_collapse/nope", 0.3, "key"),
        ("04_experiment/table", 0.3, "unchecked"),
        ("12_row_sum/r", 0.3, "2 printed numbers"),
        ("02_collapse/max_p_scaled", float("nan"), "NaN"),
        ("02_collapse/max_p_scaled", object(), "value"),
    ],
)
def test_bad_claims_are_refused(key, value, word):
    with pytest.raises((KeyError, ValueError, TypeError, ledger.ClaimError), match=word):
        ledger.claim(key, value)


def test_every_listed_claim_is_well_formed():
    for key, spec in claims.CLAIMS.items():
        assert key == spec.key and spec.article in ledger.ARTICLES
        assert spec.status in ("exact", "shape", "erratum", "unchecked", "roundoff", "qualified",
                               "confirmed")
        assert spec.status == "exact" or spec.note, key
        assert (spec.bound is not None) == (spec.status == "roundoff"), key
        if spec.status == "roundoff":  # the article's own value is round-off under our bound
            assert all(abs(float(e.replace("−", "-"))) < spec.bound for e in spec.expected), key
        if spec.status == "exact" or (spec.status == "erratum"
                                      and not spec.expected[0].startswith("「")):
            for e in spec.expected:
                ledger.format_like(0.0, e)  # parseable
        elif spec.status == "erratum":  # stated in words: quoted, held by ledger.holds
            assert all(e.startswith("「") and e.endswith("」") for e in spec.expected), key


def test_roundoff_claim_prints_the_bound_not_the_digits(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ATTNLIB_CLAIMS_DIR", str(tmp_path))
    for residue in (5.551115123125783e-16, 5.828670879282072e-16, -3e-17):
        ledger.claim("07_batch_heads/row_sums", residue)
    lines = capsys.readouterr().out.splitlines()
    assert len(set(lines)) == 1 and "< 1e-14" in lines[0] and lines[0].startswith("✔")
    rec = json.loads(next(tmp_path.glob("*.jsonl")).read_text().splitlines()[0])
    assert rec["status"] == "roundoff" and rec["measured"] == "5.55e-16"


def test_roundoff_claim_above_its_bound_fails_naming_it():
    with pytest.raises(ledger.ClaimError, match="07_batch_heads/head_vs_2d.*1.00e-06"):
        ledger.claim("07_batch_heads/head_vs_2d", 1e-6)
    with pytest.raises(ledger.ClaimError, match="NaN"):
        ledger.claim("07_batch_heads/head_vs_2d", float("nan"))


def test_below_prints_a_bound_and_refuses_more_than_roundoff():
    np = pytest.importorskip("numpy")
    assert ledger.below(np.full((2, 3, 4), -2e-16), 1e-15) == "< 1e-15"
    assert ledger.below(0.0, 1e-15) == "< 1e-15"
    with pytest.raises(ledger.ClaimError, match="2.000e-15.*1e-15"):
        ledger.below([[0.0, -2e-15]], 1e-15)
    with pytest.raises(ledger.ClaimError, match="nan"):
        ledger.below(float("nan"), 1e-15)


def test_holds_prints_a_check_line_and_records_a_book_sentence(tmp_path, monkeypatch, capsys):
    from attnlib import sentences

    monkeypatch.setenv("ATTNLIB_CLAIMS_DIR", str(tmp_path))
    monkeypatch.setitem(sentences.SENTENCES, "01_variance/test",
                        sentences.sentence("01_variance/test", "분산이  d_k 를\n따른다", "비교"))
    assert ledger.holds("01_variance/test", True, "기울기 1.00") is None
    assert capsys.readouterr().out == "✔ 「분산이 d_k 를 따른다」: 기울기 1.00\n"
    (line,) = [ln for f in tmp_path.iterdir() for ln in f.read_text().splitlines()]
    rec = json.loads(line)
    assert rec["kind"] == "book" and rec["ok"] and rec["expected"] == "분산이 d_k 를 따른다"


def test_holds_fails_quoting_the_sentence(monkeypatch):
    from attnlib import sentences

    monkeypatch.setitem(sentences.SENTENCES, "01_variance/test",
                        sentences.sentence("01_variance/test", "걸음 11 에서 멈춘다", "첫 걸음"))
    with pytest.raises(ledger.ClaimError,
                       match="01_variance/test.*「걸음 11 에서 멈춘다」.*걸음 12"):
        ledger.holds("01_variance/test", False, "걸음 12")


def test_holds_a_qualified_article_claim_with_a_triangle(monkeypatch, capsys):
    spec = claims.ArticleClaim("04_experiment/test", "000", "§실험", "50걸음쯤 얼어붙음",
                               ("50",), status="qualified", note="보고 걸음의 인공물")
    monkeypatch.setitem(claims.CLAIMS, spec.key, spec)
    ledger.holds(spec.key, True, "처음 얼어붙는 걸음 11")
    out = capsys.readouterr().out
    assert out == "△ 50걸음쯤 얼어붙음: 처음 얼어붙는 걸음 11  (글: 50)\n"
    with pytest.raises(ValueError, match="qualified"):
        ledger.claim(spec.key, 50)


def test_holds_a_confirmed_article_claim_with_a_check(monkeypatch, capsys):
    spec = claims.ArticleClaim("14_residual/test", "002", "§표", "I 덕분에 산다", ("I",),
                               status="confirmed", note="스택에서 잰다")
    monkeypatch.setitem(claims.CLAIMS, spec.key, spec)
    ledger.holds(spec.key, True, "깊이 24: 잔차 있으면 비 > 1")
    assert capsys.readouterr().out.startswith("✔ I 덕분에 산다: 깊이 24")
    with pytest.raises(ValueError, match="confirmed"):
        ledger.claim(spec.key, 1)
    with pytest.raises(ledger.ClaimError, match="confirmed claim"):
        ledger.holds(spec.key, False, "비 < 1")


@pytest.mark.parametrize(
    ("key", "ok", "shown", "error", "match"),
    [
        ("nobody/knows", True, "x", KeyError, "key: 'nobody/knows'"),
        ("02_collapse/max_p_scaled", True, "x", ValueError, "ledger.claim"),
        (3, True, "x", TypeError, "key"),
        ("01_variance/test", 1.0, "x", TypeError, "ok: .*one bool"),
        ("01_variance/test", [True], "x", TypeError, "ok"),
        ("01_variance/test", True, "", TypeError, "shown"),
    ],
)
def test_holds_rejects_misuse_naming_the_argument(monkeypatch, key, ok, shown, error, match):
    from attnlib import sentences

    monkeypatch.setitem(sentences.SENTENCES, "01_variance/test",
                        sentences.sentence("01_variance/test", "문장", "확인"))
    with pytest.raises(error, match=match):
        ledger.holds(key, ok, shown)


def test_holds_takes_numpy_and_torch_booleans(monkeypatch, capsys):
    import numpy as np
    import torch

    from attnlib import sentences

    monkeypatch.setitem(sentences.SENTENCES, "01_variance/test",
                        sentences.sentence("01_variance/test", "문장", "확인"))
    ledger.holds("01_variance/test", np.float64(2) > 1, "2 > 1")
    ledger.holds("01_variance/test", torch.tensor(2.0) > 1, "2 > 1")
    assert capsys.readouterr().out.count("✔ 「문장」: 2 > 1") == 2
    with pytest.raises(TypeError, match="ok"):
        ledger.holds("01_variance/test", np.array([True, True]), "x")


def test_every_sentence_is_well_formed():
    from attnlib.sentences import SENTENCES

    for key, sent in SENTENCES.items():
        assert key == sent.key and "/" in key and key not in claims.CLAIMS, key
        assert sent.text == " ".join(sent.text.split()) and sent.text and sent.check, key


def test_a_line_says_what_was_checked_without_the_key(capsys):
    """The reader sees the claim in the chapter's words and the book's sentence in plain text
    (math as Unicode); the key stays in the code and the record (issue 34)."""
    ledger.claim("09_masks/exp_minus10", 4.54e-5)
    ledger.holds("06_shapes/dv_u", True, "autograd 와 같다")
    first, second = capsys.readouterr().out.splitlines()
    assert first == "✔ e⁻¹⁰: 4.5e-05  (글: 4.5e-5)"
    assert second == ("✔ 「∂L/∂V = PᵀG (m×d_v), U = ∂L/∂P = GVᵀ (n×m)」: autograd 와 같다")
    assert "/" not in first.split(":")[0] and "$" not in second and "\\" not in second


def test_an_article_sentence_is_quoted_not_keyed():
    """An article sentence held in words has its words in 「」 in the line, never a keyword
    (review part2 D16: 「(글: 통로)」, 「(글: NaN)」, 「(글: 1/8)」, 「(글: I)」 read like the
    article's number)."""
    from attnlib.ledger import _NUM

    for key, spec in claims.CLAIMS.items():
        if spec.status in ("qualified", "confirmed") or (
                spec.status == "erratum" and not _NUM.match(spec.expected[0].replace("−", "-"))):
            assert all(e.startswith("「") and e.endswith("」") for e in spec.expected), key


@pytest.mark.parametrize(("tex", "text"), [
    (r"$10^{-3}$", "10⁻³"), (r"$P^{\mathsf T}G$", "PᵀG"), (r"$\sqrt{d_k}$", "√d_k"),
    (r"$1/\sqrt[4]{d_k}$", "1/⁴√d_k"), (r"$\partial L/\partial W_Q^{(h)}$", "∂L/∂W_Q⁽ʰ⁾"),
    (r"$r_i = \sum_j P_{ij}U_{ij}$", "r_i = Σ_j P_ij U_ij"), (r"$P \ne 0$", "P ≠ 0"),
    (r"$\lVert\partial L/\partial Q\rVert$", "‖∂L/∂Q‖"), (r"$\hat P$", "P̂"),
    ("`nn.MultiheadAttention` 의 autograd", "nn.MultiheadAttention 의 autograd"),
])
def test_plain_writes_math_as_unicode(tex, text):
    from attnlib.text import plain

    assert plain(tex) == text


def test_yes_no_prints_a_check_in_korean():
    import numpy as np

    from attnlib.text import yes_no

    assert [yes_no(v) for v in (True, False, np.bool_(True), 1e-16 < 1e-15)] == [
        "예", "아니요", "예", "예"]
