"""LSE backwards on rows whose every key is masked with a finite fill (padding rows).

exp(S − lse) there subtracts fill from fill + log m; in float32 at fill = −1e9 the log m is
rounded away. The library sets such rows to the uniform 1/m, which is what softmax gives,
so the LSE and blockwise backwards must equal the saved-P backward in both dtypes.
"""

import numpy as np
import pytest

from attnlib import numpy as A

torch = pytest.importorskip("torch")
from attnlib import torch as T  # noqa: E402


def _inputs(backend, dtype):
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal((5, 3)).astype(dtype) for _ in range(4)]
    return [torch.tensor(x) for x in arrays] if backend is T else arrays


@pytest.mark.parametrize("backend", [A, T], ids=["numpy", "torch"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("fill", [-1e9, -1e4, -10.0])
def test_dead_rows_with_finite_fill_match_saved_P(backend, dtype, fill):
    Q, K, V, G = _inputs(backend, dtype)
    mask = np.tril(np.ones((5, 5), bool))
    mask[[0, 3]] = False  # rows 0 and 3 see no key
    tol = 1e-5 if dtype == np.float32 else 1e-12
    ref = backend.attention_backward(G, Q, K, V, mask=mask, fill=fill)
    O, lse = backend.attention_lse(Q, K, V, mask=mask, fill=fill)
    by_lse = backend.attention_backward_lse(G, Q, K, V, O, lse, mask=mask, fill=fill)
    Ob, lseb = backend.attention_blockwise(Q, K, V, block_q=2, block_k=2, mask=mask, fill=fill)
    by_block = backend.attention_blockwise_backward(G, Q, K, V, Ob, lseb, block_q=2, block_k=3,
                                                    mask=mask, fill=fill)
    for got in (by_lse, by_block):
        for x, y in zip(got, ref, strict=True):
            assert float(abs(x - y).max()) < tol
