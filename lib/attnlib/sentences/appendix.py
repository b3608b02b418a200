"""The book's own sentences held by its build: appendix (see :mod:`attnlib.sentences`)."""

from __future__ import annotations

from . import sentence as _s

SENTENCES = [
    # ------------------------------------------------------------------ performance
    # Memory is counted by tracemalloc (the same on every machine); times are not held.
    _s("performance/two_arrays",
       "야코비안 쪽은 $n\\cdot m^2$ 짜리 배열 두 개만큼을 잡습니다",
       "m = 64 … 512 에서 야코비안 쪽 최대 메모리가 n·m² 배열 1.9–2.3 개, 행별 규칙이 n×m 배열 "
       "1.9–2.3 개"),
    _s("performance/mem_ratio_m",
       "메모리 비는 $m$ 에 비례하고",
       "두 메모리의 비 / m 이 네 m 에서 1 ± 0.1, 로그-로그 기울기 1 ± 0.05"),
    _s("performance/summary_row_rule",
       "행별 규칙은 결과 $\\Delta$ 말고는 $n\\times m$ 배열 하나만 더 씁니다",
       "행별 규칙의 최대 메모리가 n×m 배열 1.9–2.3 개 (결과 포함), 비의 지수 1"),
    _s("performance/saved_p_one",
       "$P$ 를 저장하는 쪽은 $O$ 를 빼고도 $n\\times m$ 배열 하나 분량을 더 남기고",
       "세 n 에서 (남긴 바이트 − O) / n×m 배열 = 1 ± 0.05, 증가 지수 2 ± 0.1"),
    _s("performance/summary_lse",
       "LSE 방식은 순전파와 역전파 사이에 $O$ 와 $\\operatorname{lse}$, 곧 $n\\cdot d + n$ "
       "개만 남깁니다",
       "세 n 에서 남긴 바이트 / (n·d + n) 개 = 1 ± 0.05, 증가 지수 1 ± 0.1"),
    _s("performance/sdpa_saves",
       "이 책이 고정한 PyTorch 2.13 에서는 CPU 에서도 융합 커널을 써서 $O$ 와 "
       "$\\operatorname{lse}$ 만 저장합니다",
       "torch.__version__ 이 2.13.x 이고, n = 256, 1024 에서 SDPA 가 Q, K, V 말고 저장한 텐서가 "
       "출력 O 와 같은 것 하나와 모양 (1, 1, n) 에 점수의 logsumexp 와 같은 것 하나뿐이며, 저장한 "
       "바이트가 (n·d + n) 개의 1 ± 0.05 배, autograd 는 n·m 개"),
    _s("performance/two_nm_arrays",
       "한 번에 되살리는 두 역전파는 결과 말고도 $n\\times m$ 배열 두 개 분량을 잡고",
       "세 n 에서 두 역전파의 최대 메모리 − 결과 = n×m 배열 2 ± 0.1 개"),
    _s("performance/blockwise_flat",
       "블록 단위 역전파는 $n$ 이 네 배가 되어도 같은 블록 수 분량 그대로입니다",
       "결과를 뺀 최대 메모리를 블록 하나로 나눈 값이 세 n 에서 0.2 블록 안 (반올림하지 않은 값)"),
    _s("performance/figure_lines",
       "$n$ 이 네 배가 될 때 세모 선은 네 배보다 덜 오르고, 한 번에 되살리는 두 선은 열 배 "
       "넘게 오릅니다",
       "n = 128 → 512: 블록 단위의 최대 메모리(결과 포함)는 4배 미만, 다른 두 역전파는 10배 넘게"),
    _s("performance/backward_below_2",
       "역전파의 차이가 2보다 조금 작게 찍히는 것은 결과 $dQ, dK, dV$ 가 $P$ 와 $U$ 가 살아 있는 "
       "동안 만들어져 제자리 쪽의 최대에만 들어가기 때문입니다",
       "n = 512, d = 32 와 64 의 두 역전파에서 제자리/새 배열 최대 메모리의 차이가 2 에서 "
       "모자란 양(n×m 배열 단위)이 결과 dQ, dK, dV 의 크기와 0.05 안에서 같고, d = 64 에서 "
       "1.5배 넘게 커짐"),
    _s("performance/bwd_extra_order",
       "역전파가 도는 동안 결과 말고 더 잡는 것은 $n$ 과 상관없는 블록 몇 개 분량입니다",
       "결과를 뺀 블록 단위 최대 메모리의 블록 수가 세 n (128, 256, 512) 에서 0.2 블록 안이고 "
       "8 블록 아래 (r 의 n 개는 잰 값에 드러나지 않아 셈으로만 말함)"),
    _s("performance/summary_blockwise",
       "블록 단위 역전파는 결과 말고는 $n$ 과 상관없이 같은 블록 수 분량만 더 씁니다",
       "결과를 뺀 블록 단위 최대 메모리의 블록 수가 세 n 에서 0.2 블록 안, 한 번에 되살리는 "
       "쪽은 n×m 배열 2개"),
    _s("performance/summary_in_place",
       "배열 두 개(블록 단위에서는 블록 두 개) 안팎을 아낍니다",
       "네 경로에서 새 배열 − 제자리 최대 메모리가 배열(블록) 1.5–2.2 개, 반올림하면 2"),
]
