"""attnlib.live: what the built page carries for an explorer, and what the browser runs."""

import json
import math

import numpy as np
import pytest

from attnlib import live
from attnlib.core.experiment import History
from attnlib.figures.explorers import ScoreSamples


def test_inputs_round_trip_exactly():
    rng = np.random.default_rng(0)
    inputs = {"S": rng.normal(size=(3, 4)), "mask": np.tril(np.ones((3, 3), bool)),
              "frames": {(4, False): ([1e-9, 2e-3], [1.0, 2.0])}, "fill": -math.inf,
              "orders": {"오름차순": np.arange(3)}, "masks": {"없음": None},
              "run": History(loss=np.ones(2), p_target=[0.5], max_p=[0.9], grad_norm=[1.0])}
    back = live.decode(json.loads(json.dumps(live.encode(inputs))))
    assert np.array_equal(back["S"], inputs["S"]) and back["S"].dtype == np.float64
    assert back["mask"].dtype == bool and np.array_equal(back["mask"], inputs["mask"])
    assert back["frames"] == {(4, False): ([1e-9, 2e-3], [1.0, 2.0])}
    assert back["fill"] == -math.inf and back["masks"] == {"없음": None}
    assert isinstance(back["run"], History) and back["run"].max_p == [0.9]


def test_only_attnlib_classes_are_rebuilt():
    with pytest.raises(ValueError, match="not an attnlib class"):
        live.build("os:system", {})


def test_range_rounds_and_clips():
    assert live.Range(1, 1024, 1, log=True).value(68.6) == 69
    assert live.Range(1, 1024, 1).value(5000) == 1024
    assert live.Range(0.25, 64, 0.01, log=True).value(1.23456) == 1.23
    assert live.Range(-1000.0, 0.0, 0.1).value(-7) == -7.0


def test_a_frame_between_the_frozen_values():
    spec = live.spec(ScoreSamples, {"n_samples": 200, "seed": 1},
                     sliders={"d_k": [4, 64, 1024]}, initial={"d_k": 64},
                     ranges={"d_k": live.Range(1, 1024, 1, log=True)})
    (control,) = spec["controls"]
    assert control["labels"] == ["4", "64", "1024"] and control["initial"] == 1
    assert control["range"]["integer"] and control["outside"] == []
    live.browser_setup()
    result = json.loads(live.frame(spec["python"], {"d_k": 69}))
    assert result["values"] == {"d_k": "69"} and "d_k = 69" in result["alt"]
    kinds = [o["output_type"] for o in result["outputs"]]
    # the figure as the book's tiles (one display_data per column of panels), then the text
    assert kinds[-1] == "stream" and set(kinds[:-1]) == {"display_data"}, kinds
    assert "d_k = 69:" in result["outputs"][-1]["text"]
    listed = json.loads(live.frame(spec["python"], {"d_k": {"index": 2}}))
    assert listed["values"] == {"d_k": "1024"}


def test_values_outside_a_range_stay_listed():
    spec = live.spec(ScoreSamples, {}, sliders={"d_k": [4, 64, 4096]},
                     ranges={"d_k": live.Range(1, 1024, 1)})
    assert spec["controls"][0]["outside"] == [2]


def test_run_exercise_prints_the_verdict_or_the_error():
    check = "from attnlib import check\ncheck.softmax_vjp(f)"
    right = "def f(P, U):\n    return P * (U - (P * U).sum(-1, keepdims=True))\n"
    assert live.run_exercise(right, check).startswith("✔ check.softmax_vjp")
    wrong = right.replace("(P * U).sum(-1, keepdims=True)", "U.mean(-1, keepdims=True)")
    assert "힌트" in live.run_exercise(wrong, check)
    assert live.run_exercise("def f(:\n", check).startswith("SyntaxError")
    assert live.run_exercise("x = 1 / 0\n", "").startswith("ZeroDivisionError (1번째 줄)")
