"""The two backends expose the same names and signatures; imports stay light."""

import inspect
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from attnlib import numpy as N  # noqa: E402
from attnlib import torch as T  # noqa: E402

TORCH_ONLY = {"AttentionFunction", "attention_autograd", "MonitorRun", "train_monitored"}


def test_same_names():
    assert set(N.__all__) == set(T.__all__) - TORCH_ONLY
    assert TORCH_ONLY <= set(T.__all__)


@pytest.mark.parametrize("name", N.__all__)
def test_same_signature(name):
    a, b = getattr(N, name), getattr(T, name)
    assert inspect.signature(a) == inspect.signature(b)
    assert a.__doc__ and a.__doc__ == b.__doc__


def test_core_api_names_public():
    required = {"softmax", "entropy", "softmax_jacobian", "softmax_vjp", "attention",
                "attention_backward", "attention_backward_parts", "attention_lse",
                "attention_backward_lse", "gradcheck", "layernorm", "layernorm_jacobian",
                "layernorm_backward", "pre_ln_block", "post_ln_block", "stack_grad_norms",
                "train_single_query", "dot_product_samples"}
    assert required <= set(N.__all__)


def test_keywords():
    kw = ["scale", "mask", "fill", "is_causal", "fully_masked", "enable_gqa", "dropout_mask",
          "p_drop"]
    for fn in (N.attention, N.attention_backward, N.attention_lse, N.attention_backward_lse,
               N.attention_backward_parts, N.attention_blockwise, N.attention_blockwise_backward,
               N.attention_blockwise_steps, T.attention_autograd):
        params = inspect.signature(fn).parameters
        for k in kw:
            assert params[k].kind is inspect.Parameter.KEYWORD_ONLY, (fn.__name__, k)
        assert params["fill"].default == -np.inf and params["fully_masked"].default == "nan"
        assert params["is_causal"].default is False and params["enable_gqa"].default is False


def test_import_without_torch():
    code = ("import sys; sys.modules['torch'] = None\n"
            "import attnlib, attnlib.numpy as A, attnlib.pure\n"
            "O, P = A.attention([[1., 0.]], [[1., 0.], [0., 1.]], [[1.], [2.]])\n"
            "assert 'torch' not in [m for m in sys.modules if sys.modules[m] is not None]\n"
            "try:\n    import attnlib.torch\nexcept ImportError:\n    pass\n"
            "else:\n    raise SystemExit('attnlib.torch imported without torch')\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_light_package_import():
    code = ("import sys, attnlib\n"
            "heavy = {'torch', 'matplotlib', 'ipywidgets'} & set(sys.modules)\n"
            "assert not heavy, heavy\n"
            "assert attnlib.__version__\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_numpy_promotes_ints_and_keeps_float32():
    O, P = N.attention(np.eye(2, dtype=int), np.eye(2, dtype=int), np.arange(4).reshape(2, 2))
    assert O.dtype == np.float64 and P.dtype == np.float64
    assert not np.allclose(O, np.round(O))  # not truncated
    Q = np.eye(2, dtype=np.float32)
    assert N.attention(Q, Q, Q)[0].dtype == np.float32
    assert N.softmax([1, 2, 3]).dtype == np.float64


def test_torch_keeps_dtype_and_promotes_ints():
    Q = torch.eye(2, dtype=torch.float32)
    O, P = T.attention(Q, Q, Q)
    assert O.dtype == torch.float32 and O.device == Q.device
    O, P = T.attention(torch.eye(2, dtype=torch.int64), torch.eye(2, dtype=torch.int64),
                       torch.arange(4).reshape(2, 2))
    assert O.dtype == torch.get_default_dtype()
    assert isinstance(T.softmax(np.array([1.0, 2.0])), torch.Tensor)
    assert T.softmax(np.array([1.0, 2.0])).dtype == torch.float64


def test_backend_switch(monkeypatch):
    import attnlib

    monkeypatch.delenv("ATTNLIB_BACKEND", raising=False)
    assert attnlib.backend() is N
    assert attnlib.backend("torch") is T
    monkeypatch.setenv("ATTNLIB_BACKEND", "torch")
    assert attnlib.backend() is T
    assert attnlib.backend("numpy") is N
    monkeypatch.setenv("ATTNLIB_BACKEND", "jax")
    with pytest.raises(ValueError, match="ATTNLIB_BACKEND"):
        attnlib.backend()
    with pytest.raises(ValueError, match=r"backend\(name\) = 'mxnet'"):
        attnlib.backend("mxnet")  # the argument is named, not the variable


def test_to_numpy():
    rng = np.random.default_rng(0)
    G, Q, K, V = (rng.normal(size=s) for s in ((2, 3), (2, 4), (5, 4), (5, 3)))
    ref = N.attention_backward_parts(G, Q, K, V)
    assert all(a is b for a, b in zip(N.to_numpy(ref), ref, strict=True))
    assert N.to_numpy(ref.P) is ref.P
    got = T.to_numpy(T.attention_backward_parts(G, Q, K, V))
    assert type(got) is type(ref)
    for a, b in zip(got, ref, strict=True):
        assert isinstance(a, np.ndarray) and a.dtype == np.float64
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)
    t = torch.ones(2, requires_grad=True) * 2
    assert isinstance(T.to_numpy(t), np.ndarray)
    assert T.to_numpy([t, (t, 3.0)])[1][1] == 3.0
    assert T.to_numpy(None) is None and T.to_numpy(ref.P) is ref.P
