"""The numbers the two source articles print, reproduced digit for digit."""

import math
from decimal import ROUND_HALF_EVEN, Decimal

import numpy as np
import pytest
from conftest import to_np

from attnlib import pure


def r4(M):
    return [[round(float(v), 4) for v in row] for row in np.asarray(M)]


# ----- first article: why 1/sqrt(d_k) ------------------------------------------------------

def test_dot_product_table_first_row():
    rows = pure.dot_product_table(dims=(8,))  # the draws are sequential: row 1 needs only these
    assert [f"{d:4d} {mu:+.3f} {sd:7.3f} {r:7.3f}" for d, mu, sd, r in rows] == [
        "   8 +0.012   2.829   2.828"]


@pytest.mark.slow  # 28.5 million random.gauss draws: about 16 s of CPU
def test_dot_product_table_all_rows():
    rows = pure.dot_product_table()
    assert [f"{d:4d} {mu:+.3f} {sd:7.3f} {r:7.3f}" for d, mu, sd, r in rows] == [
        "   8 +0.012   2.829   2.828", "  64 -0.061   7.964   8.000",
        " 128 +0.029  11.397  11.314", " 512 +0.198  22.669  22.627"]


def test_the_table_is_computed_once_per_run(tmp_path, monkeypatch):
    """With ATTNLIB_SHARE_DIR (one `make test` run) a second call with the same arguments reads
    what the first wrote, the same tuples; other arguments are another table; without the
    variable nothing is written."""
    monkeypatch.delenv("ATTNLIB_SHARE_DIR", raising=False)
    plain = pure.dot_product_table(dims=[4, 8], n_samples=50, seed=3)
    assert not any(tmp_path.iterdir())
    monkeypatch.setenv("ATTNLIB_SHARE_DIR", str(tmp_path))
    first = pure.dot_product_table(dims=(4, 8), n_samples=50, seed=3)
    (written,) = tmp_path.glob("*.json")
    again = pure.dot_product_table((4, 8), 50, 3)
    assert first == again == plain and isinstance(again[0][0], int)
    written.write_text("[[4, 0.0, 0.0, 0.0]]")  # what a later call returns is what is there
    assert pure.dot_product_table(dims=(4, 8), n_samples=50, seed=3) == [(4, 0.0, 0.0, 0.0)]
    other = pure.dot_product_table(dims=(4, 8), n_samples=50, seed=4)
    assert other != plain and len(list(tmp_path.glob("*.json"))) == 2


def test_a_second_caller_waits_for_the_first_table(tmp_path, monkeypatch):
    """Two stages that ask at once (the build and the unit tests start together): while the
    first holds the table's lock, the second waits, then reads the first's table instead of
    computing its own."""
    import fcntl
    import threading

    monkeypatch.setenv("ATTNLIB_SHARE_DIR", str(tmp_path))
    pure.dot_product_table(dims=(4,), n_samples=10, seed=5)  # the file names of this table
    (table,) = tmp_path.glob("*.json")
    (lock_path,) = tmp_path.glob("*.lock")
    table.unlink()
    got = []
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the first caller, computing
        second = threading.Thread(target=lambda: got.append(
            pure.dot_product_table(dims=(4,), n_samples=10, seed=5)))
        second.start()
        second.join(0.5)
        assert second.is_alive() and not got  # waiting, not computing
        table.write_text("[[4, 1.0, 2.0, 3.0]]")  # the first caller's table
    second.join(10)
    assert got == [[(4, 1.0, 2.0, 3.0)]]


def test_six_scores():
    (_, p1, h1, j1), (_, p8, h8, j8) = pure.multiplier_table((1, 8))
    assert (f"{p1:.4f} {h1:.4f} {j1:.6f}", f"{p8:.4f} {h8:.4f} {j8:.6f}") == (
        "0.3066 1.6426 0.212595", "0.9109 0.3710 0.081198")
    assert f"{math.log(6):.4f}" == "1.7918"
    # the article prints (0.198, 0.069, 0.536, -0.087, -1.088, -1.138); the last is exactly
    # -1.1385 in decimal, a tie that rounds half to even to the article's -1.138; the float
    # quotient is -1.13850000000000007, a hair past the tie, and formats as -1.139
    assert [f"{v / 8:.3f}" for v in pure.RAW_SCORES[:5]] == [
        "0.198", "0.069", "0.536", "-0.087", "-1.088"]
    assert f"{pure.RAW_SCORES[5] / 8:.4f}" == "-1.1385"
    tie = Decimal(str(pure.RAW_SCORES[5])) / 8
    assert tie.quantize(Decimal("0.001"), rounding=ROUND_HALF_EVEN) == Decimal("-1.138")
    assert f"{pure.RAW_SCORES[5] / 8:.3f}" == "-1.139"
    p = pure.softmax(pure.RAW_SCORES)
    # the article: "the fifth and sixth fall below 1e-6"; they are 2.1e-6 and 1.4e-6
    assert (f"{p[4]:.1e}", f"{p[5]:.1e}") == ("2.1e-06", "1.4e-06")
    assert f"{math.exp(pure.RAW_SCORES[2] - pure.RAW_SCORES[4]):.3g}" == "4.39e+05"  # "44만"
    assert f"{pure.RAW_SCORES[2] - pure.RAW_SCORES[4]:.2f}" == "12.99"
    assert f"{(pure.RAW_SCORES[2] - pure.RAW_SCORES[4]) / 8:.2f}" == "1.62"


def test_multiplier_table():
    rows = pure.multiplier_table((1, 2, 4, 8, 16, 32))
    assert [f"×{c:<3d} {p:.6f} {h:.4f} {j:.3e}" for c, p, h, j in rows] == [
        "×1   0.306596 1.6426 2.126e-01", "×2   0.441677 1.3971 2.466e-01",
        "×4   0.666979 0.9807 2.221e-01", "×8   0.910855 0.3710 8.120e-02",
        "×16  0.994908 0.0340 5.066e-03", "×32  0.999979 0.0002 2.057e-05"]
    (_, p, h, j), = pure.multiplier_table((2.52,))  # the row of the article's table
    assert (f"{p:.4f}", f"{h:.3f}", f"{j:.4f}") == ("0.5063", "1.280", "0.2500")


TRAIN = {
    True: ["t=0    손실 1.6703  p[3] 0.0868  최대 p 0.2085  |∂L/∂q| 7.75e-01",
           "t=10   손실 0.7344  p[3] 0.1607  최대 p 0.4585  |∂L/∂q| 2.67e-01",
           "t=50   손실 0.0250  p[3] 0.8520  최대 p 0.8520  |∂L/∂q| 4.38e-02",
           "t=100  손실 0.0080  p[3] 0.9180  최대 p 0.9180  |∂L/∂q| 1.51e-02",
           "t=399  손실 0.0014  p[3] 0.9661  최대 p 0.9661  |∂L/∂q| 2.84e-03"],
    False: ["t=0    손실 1.5965  p[3] 0.0006  최대 p 0.6939  |∂L/∂q| 2.49e+00",
            "t=10   손실 5.9063  p[3] 0.0000  최대 p 0.9508  |∂L/∂q| 6.43e+00",
            "t=50   손실 1.8931  p[3] 0.0000  최대 p 1.0000  |∂L/∂q| 4.17e-09",
            "t=100  손실 1.8931  p[3] 0.0000  최대 p 1.0000  |∂L/∂q| 4.17e-09",
            "t=399  손실 1.8931  p[3] 0.0000  최대 p 1.0000  |∂L/∂q| 4.17e-09"],
}


def fmt(t, loss, p_t, max_p, g):
    return f"t={t:<4d} 손실 {loss:.4f}  p[3] {p_t:.4f}  최대 p {max_p:.4f}  |∂L/∂q| {g:.2e}"


@pytest.mark.parametrize("scaled", [True, False])
def test_single_query_pure(scaled):
    rows = pure.train_single_query(scaled)
    got = [fmt(r["t"], r["loss"], r["p_target"], r["max_p"], r["grad_norm"]) for r in rows]
    assert got == TRAIN[scaled]


@pytest.mark.parametrize("scaled", [True, False])
def test_single_query_backends(B, scaled):
    h = B.train_single_query(scaled=scaled)
    assert all(len(x) == 400 for x in h)
    got = [fmt(t, *(float(x[t]) for x in h)) for t in (0, 10, 50, 100, 399)]
    assert got == TRAIN[scaled]
    if not scaled:  # frozen: six decimals of the loss unchanged from step 50 to 399
        assert len({f"{float(v):.6f}" for v in h.loss[50:]}) == 1


def test_multiplier_stats_backends(B):
    s = B.multiplier_stats(pure.RAW_SCORES, [1, 2, 4, 8, 16, 32], d_k=64)
    assert [f"{float(v):.6f}" for v in s.max_p] == [
        "0.306596", "0.441677", "0.666979", "0.910855", "0.994908", "0.999979"]
    assert [f"{float(v):.4f}" for v in s.entropy] == [
        "1.6426", "1.3971", "0.9807", "0.3710", "0.0340", "0.0002"]
    assert [f"{float(v):.3e}" for v in s.jacobian_max] == [
        "2.126e-01", "2.466e-01", "2.221e-01", "8.120e-02", "5.066e-03", "2.057e-05"]


def test_dot_product_samples(B):
    s = to_np(B.dot_product_samples(64, 20000, seed=0))
    assert s.shape == (20000,) and abs(s.std() - 8) < 0.2 and abs(s.mean()) < 0.2
    np.testing.assert_array_equal(s, to_np(B.dot_product_samples(64, 20000, seed=0)))


# ----- second article: the backward of one attention layer ----------------------------------

SMALL = dict(
    P=[[0.3662, 0.3125, 0.3213], [0.4259, 0.2907, 0.2834]],
    O=[[0.5462, -0.8613], [0.5583, -0.8572]],
    U=[[-1.2468, -1.3538, -0.9460], [0.0962, 0.0841, 0.3506]],
    delta=[[-0.0231, -0.0532, 0.0763], [-0.0292, -0.0235, 0.0527]],
    dQ=[[-0.0551, -0.0139, -0.0343, 0.0441], [-0.0455, -0.016, -0.0293, 0.0378]],
    dV=[[-0.6132, 0.0283], [-0.4811, 0.0655], [-0.4856, 0.0762]],
)


def test_small_example_pure():
    e = pure.small_example()
    for key, want in SMALL.items():
        assert r4(e[key]) == want, key
    assert [round(v, 4) for v in e["r"]] == [-1.1836, 0.1648]
    assert [round(sum(row), 12) for row in e["delta"]] == [0.0, 0.0]
    assert (len(e["dQ"]), len(e["dQ"][0]), len(e["dK"]), len(e["dK"][0]), len(e["dV"]),
            len(e["dV"][0])) == (2, 4, 3, 4, 3, 2)


def test_small_example_gradcheck_pure():
    assert [f"{v:.2e}" for v in pure.small_example_gradcheck()] == [
        "5.48e-10", "9.22e-10", "6.71e-11"]


def test_small_example_backends(B):
    Q, K, V, G = (np.array(x) for x in (pure.SMALL_Q, pure.SMALL_K, pure.SMALL_V, pure.SMALL_G))
    p = B.attention_backward_parts(G, Q, K, V)
    O, _ = B.attention(Q, K, V)
    got = dict(P=p.P, O=O, U=p.U, delta=p.delta, dQ=p.dQ, dV=p.dV)
    for key, want in SMALL.items():
        assert r4(to_np(got[key])) == want, key
    assert [round(float(v), 4) for v in p.r] == [-1.1836, 0.1648]
    e = pure.small_example()
    for key in ("dQ", "dK", "dV", "delta"):
        np.testing.assert_allclose(to_np(getattr(p, key)), e[key], rtol=1e-12, atol=1e-15)
    # the double-scale mistake shows up as a K error of about 1/3 (d_k = 4, sqrt = 2)
    def loss(Q, K, V):
        return float((to_np(B.attention(Q, K, V)[0]) * G).sum())

    worst = B.gradcheck(loss, [Q, K, V], [p.dQ, p.dK / 2, p.dV])
    assert worst[0] < 1e-8 and f"{worst[1]:.2f}" == "0.33" and worst[2] < 1e-8


def test_mask_values_example(B):
    """The article's masked-fill comparison (numpy default_rng(1)), via the library's API:
    S0 = Q Kᵀ with Q = S0, K = I, scale = 1; the article's mask is True where it *hides*."""
    rng = np.random.default_rng(1)
    n, m, dv = 4, 4, 3
    S0, G, V = rng.normal(size=(n, m)), rng.normal(size=(n, dv)), rng.normal(size=(m, dv))
    hidden = np.triu(np.ones((n, m), bool), k=1)
    out = {}
    for name, fill in [("-inf", -np.inf), ("-1e9", -1e9), ("-10", -10.0)]:
        p = B.attention_backward_parts(G, S0, np.eye(m), V, scale=1.0, mask=~hidden, fill=fill)
        P, D = to_np(p.P), to_np(p.delta)
        out[name] = f"{P[hidden].max():.2e} {np.abs(D[hidden]).max():.2e}"
    assert out == {"-inf": "0.00e+00 0.00e+00", "-1e9": "0.00e+00 0.00e+00",
                   "-10": "3.21e-05 6.25e-05"}
    live = np.ones((n, m), bool)
    live[0] = False
    p = B.attention_backward_parts(G, S0, np.eye(m), V, scale=1.0, mask=live, fill=-1e9)
    assert np.round(to_np(p.P)[0], 4).tolist() == [0.25] * 4
    assert np.round(to_np(p.delta)[0], 4).tolist() == [-0.2273, -0.1822, 0.2589, 0.1506]
    with pytest.warns(RuntimeWarning):
        p = B.attention_backward_parts(G, S0, np.eye(m), V, scale=1.0, mask=live)
    assert np.isnan(to_np(p.P)[0]).all() and np.isnan(to_np(p.delta)[0]).all()


def test_lse_example(B):
    rng = np.random.default_rng(2)
    n, m, dk, dv = 6, 10, 16, 8
    Q, K = rng.normal(size=(n, dk)), rng.normal(size=(m, dk))
    V, G = rng.normal(size=(m, dv)), rng.normal(size=(n, dv))
    O, lse = B.attention_lse(Q, K, V)
    _, P = B.attention(Q, K, V)
    assert (to_np(P).size, to_np(lse).size) == (60, 6)
    for a, b in zip(B.attention_backward_lse(G, Q, K, V, O, lse),
                    B.attention_backward(G, Q, K, V, P=P), strict=True):
        assert np.abs(to_np(a) - to_np(b)).max() < 1e-15


def test_batched_example(B):
    rng = np.random.default_rng(0)
    Bt, H, n, m, dk, dv = 2, 4, 5, 6, 8, 8
    Q, K = rng.normal(size=(Bt, H, n, dk)), rng.normal(size=(Bt, H, m, dk))
    V, G = rng.normal(size=(Bt, H, m, dv)), rng.normal(size=(Bt, H, n, dv))
    p = B.attention_backward_parts(G, Q, K, V)
    q = B.attention_backward_parts(G[1, 2], Q[1, 2], K[1, 2], V[1, 2])
    assert np.abs(to_np(p.dQ)[1, 2] - to_np(q.dQ)).max() < 1e-15
    assert np.abs(to_np(p.delta).sum(-1)).max() < 1e-15
