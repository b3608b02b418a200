"""The book's own sentences held by its build: part3 (see :mod:`attnlib.sentences`)."""

from __future__ import annotations

from . import sentence as _s

SENTENCES = [
    # ------------------------------------------------------------ 19: memory, IO, rounding
    _s("19_memory/memory_growth",
       "최대 추가 메모리는 행렬 전체 경로가 $n^2$ 로, 블록 경로가 $n$ 으로 늘었다",
       "tracemalloc 최고점의 두 배마다 비가 커지며 3.8 을 넘고, 블록 경로의 직선 기울기가 "
       "행마다 (4·64 + 2)·8 바이트의 2% 안"),
    _s("19_memory/working_constant",
       "작업 메모리는 $n$ 과 무관하다",
       "블록 경로 최고점에서 결과를 뺀 값이 n = 512…4096 에서 0.05 MiB 안"),
    _s("19_memory/io_fewer",
       "블록 경로가 HBM 과 주고받는 바이트는 순전파와 역전파 모두 표준 경로의 3분의 1 아래",
       "core.io 의 셈, d = 64, M = 2¹⁶, n = 1024…16384: 표준/블록 > 3"),
    _s("19_memory/io_sram",
       "SRAM 이 클수록(M 이 클수록) 블록이 커지고 블록 경로의 바이트가 줄어듭니다",
       "모든 n 에서 M = 2¹⁴, 2¹⁶, 2¹⁸ (b = 32, 128, 256) 순으로 블록 경로의 바이트가 줄어듦"),
    _s("19_memory/recompute_faster",
       "머리 차원이 $d = 64, 128, 256$ 일 때 어느 대역폭에서든 다시 계산하는 쪽이 빠릅니다",
       "(2d/F)/(4/B) < 1, F = 312 TFLOP/s, B = 1.5, 2.0 TB/s"),
    _s("19_memory/score_rounding",
       "점수 하나를 반올림한 오차가 softmax 자신의 오차보다 큽니다",
       "m = 1024 의 세 순서 모두 정확한 곱 기준의 오차가 같은 점수 기준의 2배 넘음"),
    _s("19_memory/pairwise_small",
       "짝지어 더하는 두 번 훑기는 어느 순서에서나 $8u$ 아래입니다",
       "m = 1024 의 세 순서에서 pairwise 두 번 훑기 < 8u"),
    _s("19_memory/sequential_same",
       "무작위와 내림차순에서 $b_k = 1$ 인 온라인 softmax 의 오차는 같은 순서로 차례로 더한 두 번 "
       "훑기의 오차와 같습니다",
       "두 순서에서 두 오차의 차이가 10% 안"),
    _s("19_memory/ell_float64",
       "$\\ell$ 만 float64 로 더하면 무작위와 내림차순의 오차가 $2u$ 아래로 떨어집니다",
       "b_k = 1: float32 의 ℓ 은 > 8u, ℓ 만 float64 면 < 2u (무작위, 내림차순)"),
    _s("19_memory/alpha_chain",
       "오름차순에서는 $\\ell$ 을 float64 로 더해도 오차가 남고, 재조정 배수까지 float64 로 두어야 "
       "사라집니다",
       "오름차순 b_k = 1: ℓ 만 float64 면 > 8u, α 까지 float64 면 < 2u"),
    _s("19_memory/steps_decide",
       "오차를 정하는 것은 블록 크기 $b_k$ 가 아니라 차례로 밟는 걸음 수 $m/b_k$",
       "내림차순, b_k = 1, 16, 128 모두 16 → 1024 걸음에서 오차가 2배 넘게 커지고 1024 걸음에서 > 8u"),
    _s("19_memory/long_context",
       "$m = 2^{17}$, $b_k = 128$ 에서는 오차가 $8u$ 를 넘어",
       "m = 2¹⁷: 온라인 b_k = 128 > 8u > 두 번 훑기(pairwise), ℓ float64 < 2u"),
    _s("19_memory/below_bound",
       "블록 안의 짝지은 합 $\\log_2 b_k$ 를 더하면 모든 점이 그 아래에 있습니다",
       "모든 점의 오차 ≤ (m/b_k + log₂ b_k + 2)u"),
    _s("19_memory/p_rounding_dominates",
       "$\\tilde P$ 를 반올림하는 한 번이 float32 통계의 오차보다 백 배 넘게",
       "measure.mixed_precision_error: bf16, fp16 모두 p_rounded > 100 × fp32"),
    _s("19_memory/p_below_u",
       "그래도 그 오차는 출력을 그 자료형으로 저장할 때의 반올림 $u$ 보다 작습니다",
       "bf16, fp16 모두 p_rounded < u"),
    _s("19_memory/low_stats_worse",
       "통계까지 낮은 정밀도로 두면 오차가 몇 배 커집니다",
       "bf16, fp16 모두 all_low > 2 × p_rounded_out"),
    _s("19_memory/ell_vs_bf16",
       "긴 문맥에서 float32 의 $\\ell$ 이 쌓는 오차도 bf16 의 $u$ 의 백분의 일 아래입니다",
       "m = 2¹⁷, b_k = 128 의 float32 ℓ 오차 × 2⁻²⁴ < 2⁻⁸ / 100"),
]
