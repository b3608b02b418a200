"""The articles' computations in plain Python (``math``, ``random``), so a chapter can print
exactly the numbers the articles print.

Random numbers are drawn with ``random.Random(seed).gauss(0, 1)`` in the articles' order, which is
the sequence ``random.seed(seed)`` followed by ``random.gauss(0, 1)`` produces.
"""

import functools
import hashlib
import inspect
import json
import math
import operator
import os
import random
import sys
from pathlib import Path

# The first article's six scores, drawn at d_k = 64.
RAW_SCORES = [1.585, 0.554, 4.287, -0.693, -8.705, -9.108]

# The second article's small example: n = 2, m = 3, d_k = 4, d_v = 2.
SMALL_Q = [[0.29, 0.58, 0.71, 1.06], [0.58, 1.01, -1.13, -0.08]]
SMALL_K = [[1.06, 0.36, 0.96, -0.93], [-0.07, -0.61, 0.11, 0.18], [-1.17, -0.68, -0.53, 1.00]]
SMALL_V = [[0.64, -0.82], [0.71, -0.87], [0.28, -0.90]]
SMALL_G = [[-1.00, 0.74], [-0.58, -0.57]]


# ----- small linear algebra on lists -----------------------------------------------------------

def transpose(A):
    """행의 리스트로 쓴 행렬 A 의 전치 Aᵀ."""
    return [list(col) for col in zip(*A, strict=True)]


def matmul(A, B):
    """행의 리스트로 쓴 두 행렬의 곱 A B: (n × k)(k × m) → n × m."""
    return [[sum(A[i][t] * B[t][j] for t in range(len(B))) for j in range(len(B[0]))]
            for i in range(len(A))]


# ----- softmax, entropy, Jacobian ---------------------------------------------------------------

def softmax(z):
    """p_j = exp(z_j − max z) / Σ_k exp(z_k − max z)."""
    top = max(z)
    e = [math.exp(v - top) for v in z]
    total = sum(e)
    return [v / total for v in e]


def entropy(p):
    """H(p) = −Σ p_j log p_j (0·log 0 = 0 으로 둔다)."""
    return -sum(x * math.log(x) for x in p if x > 0)


def jacobian_max(p):
    """J_ij = p_i (δ_ij − p_j) 일 때 max_ij |J_ij|."""
    return max(abs(p[i] * ((i == j) - p[j])) for i in range(len(p)) for j in range(len(p)))


# ----- Var(q·k) = d_k ----------------------------------------------------------------------------

def dot_product_table(dims=(8, 64, 128, 512), n_samples=20000, seed=7):
    """s = q·k 를 정규분포에서 ``n_samples`` 번 뽑아 구한 (d_k, 평균, 표준편차, √d_k) 의 행들.

    표준편차는 표본 수 N 으로 나눈다. 표 전체에 생성기 하나, 표본마다 q 다음 k 를 뽑는다.
    """
    gauss = random.Random(seed).gauss
    rows = []
    for d in dims:
        vals = []
        for _ in range(n_samples):
            q = [gauss(0, 1) for _ in range(d)]
            k = [gauss(0, 1) for _ in range(d)]
            vals.append(sum(map(operator.mul, q, k)))  # Σ_i q_i k_i, 왼쪽부터 차례로
        mean = sum(vals) / len(vals)
        std = math.sqrt(sum((x - mean) ** 2 for x in vals) / len(vals))
        rows.append((d, mean, std, math.sqrt(d)))
    return rows


def _lock(file) -> None:
    """An exclusive lock on ``file`` until it is closed (POSIX; elsewhere no lock: the worst
    case is the table computed twice)."""
    try:
        import fcntl
    except ImportError:
        return
    fcntl.flock(file, fcntl.LOCK_EX)


def _computed_once_per_run(func):
    """The same table for every stage of one ``make test`` run.

    ``make test`` runs chapter 1 in several stages (the build, nbval, the PyTorch switch, the
    Colab kernels) and a unit test asks for the same table: 28 million ``random.gauss`` calls,
    the longest cell of the book.  With ``ATTNLIB_SHARE_DIR`` set (``scripts/test_stages.py``
    sets a fresh folder per run), the first call computes the table and writes it; a call with
    the same arguments, the same source and the same Python reads it.  The table is plain
    Python (``random``, ``math``): no setting that tells the stages apart (BLAS, NumPy's CPU
    features, the backend, the hash seed) changes a digit of it.  Without the variable (a
    reader's kernel, the book's own cells anywhere else) it is computed every time."""
    source = inspect.getsource(func)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        folder = os.environ.get("ATTNLIB_SHARE_DIR")
        if not folder:
            return func(*args, **kwargs)
        bound = inspect.signature(func).bind(*args, **kwargs)
        bound.apply_defaults()
        key = repr((source, {k: tuple(v) if isinstance(v, list) else v
                             for k, v in bound.arguments.items()}, sys.version))
        digest = hashlib.sha256(key.encode()).hexdigest()[:20]
        path = Path(folder) / f"{func.__name__}-{digest}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        # two stages that start together (the build and the unit tests) ask at once: the
        # second waits for the first's table instead of computing it too
        with open(path.with_name(f"{path.name}.lock"), "w") as lock:
            _lock(lock)
            if path.is_file():
                return [tuple(row) for row in json.loads(path.read_text(encoding="utf-8"))]
            rows = func(*args, **kwargs)
            part = path.with_name(f"{path.name}.{os.getpid()}")
            part.write_text(json.dumps(rows), encoding="utf-8")  # floats as repr: exact
            os.replace(part, path)
            return rows

    return wrapper


dot_product_table = _computed_once_per_run(dot_product_table)


# ----- sharpening with a multiplier --------------------------------------------------------------

def multiplier_table(multipliers=(1, 2, 4, 8, 16, 32), scores=RAW_SCORES, d_k=64):
    """p = softmax(α · s / √d_k) 의 (α, 최대 p, H(p), 최대 |J|) 행들."""
    rows = []
    for alpha in multipliers:
        p = softmax([v * alpha / math.sqrt(d_k) for v in scores])
        rows.append((alpha, max(p), entropy(p), jacobian_max(p)))
    return rows


# ----- the single-query experiment ----------------------------------------------------------

def single_query_problem(seed=11, d_k=64, d_v=8, m=8):
    """N(0, 1) 에서 이 순서로 뽑은 K (m × d_k), V (m × d_v), q (d_k)."""
    rng = random.Random(seed)
    K = [[rng.gauss(0, 1) for _ in range(d_k)] for _ in range(m)]
    V = [[rng.gauss(0, 1) for _ in range(d_v)] for _ in range(m)]
    q = [rng.gauss(0, 1) for _ in range(d_k)]
    return K, V, q


def train_single_query(scaled=True, steps=400, lr=0.5, d_k=64, d_v=8, m=8, seed=11, target=3,
                       report=(0, 10, 50, 100, 399)):
    """400걸음 실험: ``report`` 의 걸음마다 {t, loss, p_target, max_p, grad_norm} 한 행.

    L = ½‖o − v_target‖², o = Σ_j p_j v_j, p = softmax(c K q), c = 1/√d_k 또는 1;
    ∂L/∂q = c Kᵀ (Jᵀ u), u = V (o − v_target) (교차엔트로피 같은 약분은 없다).
    """
    K, V, q = single_query_problem(seed, d_k, d_v, m)
    c = 1 / math.sqrt(d_k) if scaled else 1.0
    rows = []
    for t in range(steps):
        s = [c * sum(q[i] * K[j][i] for i in range(d_k)) for j in range(m)]
        p = softmax(s)
        o = [sum(p[j] * V[j][a] for j in range(m)) for a in range(d_v)]
        res = [o[a] - V[target][a] for a in range(d_v)]
        u = [sum(res[a] * V[j][a] for a in range(d_v)) for j in range(m)]  # ∂L/∂p
        pu = sum(p[j] * u[j] for j in range(m))
        ds = [p[j] * (u[j] - pu) for j in range(m)]  # Jᵀu
        g_q = [c * sum(ds[j] * K[j][i] for j in range(m)) for i in range(d_k)]
        if t in report:
            rows.append({"t": t, "loss": 0.5 * sum(x * x for x in res), "p_target": p[target],
                         "max_p": max(p), "grad_norm": math.sqrt(sum(v * v for v in g_q))})
        q = [q[i] - lr * g_q[i] for i in range(d_k)]
    return rows


# ----- the five-line backward on the second article's small example -------------------------

def attention_forward(Q, K, V):
    """행마다 P = softmax(Q Kᵀ / √d_k), 그리고 O = P V."""
    c = 1 / math.sqrt(len(Q[0]))
    S = [[c * sum(qi * ki for qi, ki in zip(q, k, strict=True)) for k in K] for q in Q]
    P = [softmax(row) for row in S]
    return P, matmul(P, V)


def attention_backward(G, Q, K, V):
    """다섯 줄: U = G Vᵀ, r_i = Σ_j P_ij U_ij, Δ = P ⊙ (U − r), dV = PᵀG, dQ = cΔK,
    dK = cΔᵀQ (c = 1/√d_k).

    P, O, U, r, delta, dQ, dK, dV 를 담은 dict 를 돌려준다.
    """
    n, m, d_k = len(Q), len(K), len(Q[0])
    c = 1 / math.sqrt(d_k)
    P, O = attention_forward(Q, K, V)
    dV = matmul(transpose(P), G)  # m × d_v
    U = matmul(G, transpose(V))  # n × m
    r = [sum(P[i][j] * U[i][j] for j in range(m)) for i in range(n)]
    delta = [[P[i][j] * (U[i][j] - r[i]) for j in range(m)] for i in range(n)]
    dQ = [[c * sum(delta[i][j] * K[j][t] for j in range(m)) for t in range(d_k)]
          for i in range(n)]
    dK = [[c * sum(delta[i][j] * Q[i][t] for i in range(n)) for t in range(d_k)]
          for j in range(m)]
    return {"P": P, "O": O, "U": U, "r": r, "delta": delta, "dQ": dQ, "dK": dK, "dV": dV}


def small_example():
    """두 번째 글의 작은 예제(n=2, m=3, d_k=4, d_v=2)의 역전파."""
    return attention_backward(SMALL_G, SMALL_Q, SMALL_K, SMALL_V)


def gradcheck(loss, inputs, grads, h=1e-5):
    """입력마다 중심차분과의 상대오차 |a − b| / max(1e-8, |a| + |b|) 의 최댓값.

    ``loss(*inputs)`` 는 수 하나, ``inputs`` 와 ``grads`` 는 행렬(행의 리스트)이다.
    """
    worst = []
    for k, (X, dX) in enumerate(zip(inputs, grads, strict=True)):
        w = 0.0
        for i in range(len(X)):
            for j in range(len(X[0])):
                up = [list(row) for row in X]
                up[i][j] += h
                dn = [list(row) for row in X]
                dn[i][j] -= h
                args_up, args_dn = list(inputs), list(inputs)
                args_up[k], args_dn[k] = up, dn
                num = (loss(*args_up) - loss(*args_dn)) / (2 * h)
                w = max(w, abs(dX[i][j] - num) / max(1e-8, abs(dX[i][j]) + abs(num)))
        worst.append(w)
    return worst


def small_example_gradcheck(h=1e-5):
    """L = Σ G ⊙ O 에서 dQ, dK, dV 의 최대 상대오차 (글: 5.48e-10 9.22e-10 6.71e-11)."""
    G = SMALL_G

    def loss(Q, K, V):
        O = attention_forward(Q, K, V)[1]
        return sum(G[i][a] * O[i][a] for i in range(len(G)) for a in range(len(G[0])))

    parts = small_example()
    return gradcheck(loss, [SMALL_Q, SMALL_K, SMALL_V], [parts["dQ"], parts["dK"], parts["dV"]], h)
