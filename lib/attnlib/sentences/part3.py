"""The book's own sentences held by its build: part3 (see :mod:`attnlib.sentences`)."""

from __future__ import annotations

from . import sentence as _s

SENTENCES = [
    # ------------------------------------------------------------ 17: the online softmax
    _s("17_online_softmax/same_values",
       "`attention_blockwise` 는 블록 크기와 상관없이 `attention_lse`, SDPA 와 같은 값을 낸다",
       "attention_lse 와 SDPA 와의 최대 차이 < 1e-12, 블록 크기 (1,1), (3,5), (10,37), (64,64)"),
    _s("17_online_softmax/one_pass",
       "키와 값을 블록으로 나눠 한 번만 읽으며",
       "attention_blockwise 에 K, V 대신 읽힐 때마다 키 번호를 적는 배열을 주면(슬라이스는 그 "
       "키들, 통째로 쓰면 모든 키), 블록 크기 10×8, 4×8, 1×5 모두 키 하나를 질의 블록마다 K 에서 "
       "한 번, V 에서 한 번 읽고 결과는 attention 과 같다"),
    _s("17_online_softmax/l_drops_at_max",
       "$\\ell$ 이 작아지는 블록은 최댓값이 커진 블록뿐이다",
       "블록마다의 ℓ 이 줄어든 자리가 모두 s_max 가 커진 자리"),
    _s("17_online_softmax/partial_output",
       "블록 $k$ 뒤의 부분 출력은 그때까지 본 키만으로 계산한 어텐션 출력이다",
       "여섯 블록 모두 ℓ⁽ᵏ⁾ 과 O⁽ᵏ⁾ 가 본 키만으로 계산한 값과 1e-12 안"),
    _s("17_online_softmax/skip_masked",
       "`fill=-inf` 로 통째로 가린 블록은 아무것도 더하지 않으므로 건너뛴다",
       "인과 마스크, 블록 4×8: 키 블록을 더하는 _online_step 의 호출을 적으면 루프가 더하지 않은 "
       "블록이 block_grid 가 통째로 가려졌다고 적은 블록 (하나 이상) 과 같고, fill = −1e300 이면 "
       "모든 블록을 더한다; 건너뛴 결과가 건너뛰지 않는 실행과 np.array_equal, attention 과 "
       "1e-12 안"),
    # ------------------------------------------------------------ 18: the blockwise backward
    _s("18_blockwise_backward/same_grads",
       "그렇게 더한 기울기는 행렬 전체의 역전파, autograd 와 같다",
       "dQ, dK, dV 가 attention_backward, torch autograd 와 1e-12 안 (블록 5×6)"),
    _s("18_blockwise_backward/r_rowsum",
       "$r_i = \\sum_j P_{ij}U_{ij}$ 는 $\\sum_a G_{ia}O_{ia}$ 와 같다",
       "12개 행 모두 정의대로의 r 과 rowsum(G ⊙ O) 가 1e-12 안"),
    _s("18_blockwise_backward/skip_fraction",
       "건너뛰는 블록은 $N_b(N_b-1)/2$ 개",
       "n = m = 64, 블록 4…64: block_grid 가 건너뛴 수 = N_b(N_b − 1)/2"),
    _s("18_blockwise_backward/dropout_r",
       "드롭아웃이 있어도 $O$ 를 드롭아웃 뒤의 출력으로 두면 "
       "$r = \\operatorname{rowsum}(G\\odot O)$ 가 그대로 성립한다",
       "드롭아웃 + 인과 마스크에서 정의대로의 r 과 rowsum(G ⊙ O) 가 1e-12 안"),
    _s("18_blockwise_backward/recompute_model",
       "19장의 시간 모형에서는 머리 차원이 $d = 64, 128$ 이면 $P$ 를 큰 메모리에 써 두었다 "
       "다시 읽는 것보다 오히려 빠릅니다",
       "19장의 가정 넷(β = 1.5, 2.0 TB/s × E = 10¹², 4×10¹² /s, F = 312 TFLOP/s) 모두 "
       "d = 64, 128 의 다시 계산 / 다시 읽기 < 1, d = 256 은 1 을 넘는 경우가 있음"),
    _s("18_blockwise_backward/dead_rows",
       "float32 에서는 식 그대로 되살린 확률이 틀린다",
       "fill = −1e9 로 다 가린 행: float32 의 exp(S − lse) 는 1 넷, float64 는 1/4 넷, "
       "attnlib 의 dV 차이 0"),
    # ------------------------------------------------------------ 19: memory, IO, rounding
    _s("19_memory/memory_growth",
       "최대 추가 메모리는 행렬 전체 경로가 $n^2$ 로, 블록 경로가 $n$ 으로 늘었다",
       "tracemalloc 최고점의 두 배마다 비가 커지며 3.8 을 넘고, 블록 경로의 직선 기울기가 "
       "행마다 (4·64 + 2)·8 바이트의 2% 안"),
    _s("19_memory/working_constant",
       "작업 메모리는 $n$ 과 무관하다",
       "블록 경로 최고점에서 결과를 뺀 값이 n = 512…4096 에서 0.05 MiB 안"),
    _s("19_memory/io_fewer",
       "$dQ$ 도 2바이트로 세는 이 모형에서 블록 경로가 HBM 과 주고받는 바이트는 순전파와 "
       "역전파 모두 표준 경로의 3분의 1 아래",
       "core.io 의 셈(수 하나 2바이트, dQ 포함), d = 64, M_s = 2¹⁶ (순전파 128×128, "
       "역전파 64×128 타일이 SRAM 에 들어감), n = 1024…16384: 표준/블록 > 3"),
    _s("19_memory/io_dq_fp32",
       "$dQ$ 를 float32 로 누적해 4바이트로 세면 역전파의 표준/블록 비는 2 와 2.5 사이로 줄어",
       "M_s = 2¹⁶, n = 1024…16384: dQ 만 4바이트로 (표준은 한 번 쓰기, 블록은 키 블록마다 "
       "읽고 쓰기) 센 표준/블록 역전파가 2 와 2.5 사이"),
    _s("19_memory/io_binds",
       "블록을 $2b$ 로 두 배 키울 수 없는 까닭은 $M_s = 2^{14}$ 에서는 "
       "$4\\cdot 2b\\cdot d$ 하나만으로 이미 $M_s$ 에 이르기 때문이고, $2^{16}$ 에서는 "
       "$4\\cdot 2b\\cdot d$ 와 $(2b)^2$ 가 각각 $M_s$ 에 이르기 때문이며, $2^{18}$ 에서는 "
       "$(2b)^2$ 하나만으로 이르기 때문입니다",
       "sram_block 의 b = 32, 128, 256 을 2b 로 늘리면: 2¹⁴ 은 4·2b·d ≥ M_s > (2b)², "
       "2¹⁶ 은 4·2b·d ≥ M_s, (2b)² ≥ M_s, 2¹⁸ 은 4·2b·d < M_s ≤ (2b)²"),
    _s("19_memory/io_sram",
       "SRAM 이 클수록($M_s$ 가 클수록) 블록이 커지고 블록 경로의 바이트가 줄어듭니다",
       "모든 n 에서 M_s = 2¹⁴, 2¹⁶, 2¹⁸ (b = 32, 128, 256) 순으로 블록 경로의 바이트가 줄어듦"),
    _s("19_memory/io_square",
       "역전파도 정사각 블록만 쓴다면 들어가는 가장 큰 블록이 64 라 표준 경로와의 비가 2 아래로 "
       "떨어집니다",
       "sram_tiles_backward(2¹⁶, 64, square=True) = (64, 64) 이고 n = 1024…16384 에서 "
       "표준/블록 역전파 < 2"),
    _s("19_memory/io_sqrt",
       "$M_s$ 를 $2^{16}$ 에서 $2^{18}$ 로 4배 늘려도 블록 경로의 바이트는 절반 남짓으로만 "
       "줄어듭니다",
       "n = 1024…16384 에서 블록 경로 바이트의 비 (M_s = 2¹⁶)/(M_s = 2¹⁸) 가 1.7 과 2.1 사이"),
    _s("19_memory/io_small_sram",
       "SRAM 이 $d^2$ 의 몇 배밖에 안 되면($M_s = 2^{14}$, 블록 32) "
       "블록 경로가 표준 경로보다 오히려 조금 더 옮깁니다",
       "M_s = 2¹⁴ 이면 b = 32 이고 n = 1024…16384 에서 블록/표준이 1 과 1.25 사이"),
    _s("19_memory/recompute_faster",
       "$d = 64, 128$ 이면 가정한 모든 경우에 다시 계산하는 쪽이 빠르고",
       "(2d/F + 1/E)/(4/β) < 1, F = 312 TFLOP/s, β = 1.5, 2.0 TB/s, E = 10¹², 4×10¹² /s"),
    _s("19_memory/recompute_d256",
       "$d = 256$ 에서는 지수 함수가 느린 쪽으로 가정하고 대역폭이 높으면 비가 1 을 넘습니다",
       "d = 256, β = 2.0 TB/s: E = 10¹² 이면 비 > 1, E = 4×10¹² 이면 < 1, exp 를 빼면 < 1"),
    _s("19_memory/score_rounding",
       "점수가 열 남짓 크기인 이 실험에서는 점수 하나를 반올림한 오차가 짝지어 더한 softmax "
       "자신의 오차보다 큽니다",
       "m = 1024 의 세 순서 모두 최대 |s| 가 10 과 30 사이이고, 정확한 곱 기준의 오차가 "
       "같은 점수 기준(pairwise)의 2배 넘음"),
    _s("19_memory/score_small",
       "점수가 작으면(점수 폭을 6분의 1로 줄여 최대 $|s|$ 가 5 아래) 두 기준의 오차가 "
       "비슷해집니다",
       "spread = 0.5 (이 장은 3): 세 순서 모두 최대 |s| < 5 이고 정확한 곱 기준의 오차가 "
       "같은 점수 기준(pairwise)의 1.5배 안"),
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
       "오름차순 b_k = 1: ℓ 만 float64 면 > 2u 이고 무작위·내림차순의 5배 넘게 남으며, "
       "α 까지 float64 면 < 1u"),
    _s("19_memory/alpha_chain_b16",
       "$b_k = 16$ 에서도 $\\ell$ 만 float64 로 두면 오름차순만 $2u$ 넘게 남습니다",
       "m = 1024, b_k = 16, ℓ 만 float64: 오름차순 > 2u > 무작위, 내림차순"),
    _s("19_memory/steps_decide",
       "이 실험(행 8개, 시드 하나)에서는 두 몫 모두 $b_k = 1, 16, 128$ 각각에서 차례로 밟는 "
       "걸음 수 $m/b_k$ 를 따라",
       "긴 합(내림차순, float32 ℓ)과 α 의 곱(오름차순, float64 ℓ) 모두 b_k = 1, 16, 128 에서 "
       "일곱 걸음 수 (16 … 1024) 에 맞춘 log-log 기울기 > 0.25, 끝 세 점의 평균이 처음 세 점의 "
       "2배 넘고, 16 → 1024 걸음에 오차가 2배 넘게 커지며, 긴 합은 1024 걸음에서 > 8u"),
    _s("19_memory/steps_band",
       "같은 걸음 수에서 세 블록 크기의 긴 합 오차는 서로 3배 안에 있습니다",
       "긴 합(내림차순, float32 ℓ): 16…1024 의 7개 걸음 수 모두 b_k = 1, 16, 128 의 "
       "가장 큰 / 가장 작은 오차 < 3"),
    _s("19_memory/sublinear",
       "문맥이 길면 세 블록 크기 모두에서 오차가 걸음 수를 따라 (선형 한계보다 느리게) "
       "자랍니다",
       "두 몫, b_k = 1, 16, 128 모두 일곱 걸음 수에 맞춘 log-log 기울기가 0.25 와 0.85 사이 "
       "(선형 한계는 1), 1024걸음의 오차 < 1024u / 10"),
    _s("19_memory/long_context",
       "$m = 2^{17}$, $b_k = 128$ 에서는 오차가 $8u$ 를 넘어, 두 번 훑기(pairwise)의 수십 배입니다",
       "m = 2¹⁷, 내림차순: 온라인 b_k = 128 > 8u > 두 번 훑기(pairwise), 비 > 10"),
    _s("19_memory/long_alpha",
       "같은 길이에서 $\\ell$ 을 float64 로 들고 다니면 내림차순은 $2u$ 아래로 떨어지지만, "
       "오름차순은 $4u$ 넘게 남습니다",
       "m = 2¹⁷, b_k = 128, ℓ float64: 내림차순 < 2u, 오름차순 > 4u"),
    _s("19_memory/below_bound",
       "모든 점은 여기에 블록 안의 합의 한계와 $2u$ 를 더한 $(m/b_k + c(b_k) + 2)u$ 아래에 "
       "있습니다",
       "긴 합과 α 의 곱의 모든 점의 오차 ≤ (m/b_k + c(b_k) + 2)u, c(b) = NumPy 합의 한계 "
       "b/8 − 1 + 3 (b ≥ 8), c(1) = 0"),
    _s("19_memory/p_rounding_dominates",
       "$\\hat P$ 를 반올림하는 한 번이 float32 통계의 오차보다 백 배 넘게",
       "measure.mixed_precision_error: bf16, fp16 모두 p_rounded > 100 × fp32"),
    _s("19_memory/p_below_u",
       "그래도 그 오차는 출력을 그 자료형으로 저장할 때의 반올림 $u$ 보다 작습니다",
       "bf16, fp16 모두 p_rounded < u"),
    _s("19_memory/inputs_dominate",
       "입력 $Q, K, V$ 를 그 자료형으로 반올림하는 것만으로 출력이 $\\hat P$ 의 반올림보다 더 "
       "움직입니다",
       "bf16, fp16 모두 inputs > 1.5 × p_rounded"),
    _s("19_memory/low_stats_worse",
       "통계까지 낮은 정밀도로 두면 오차가 몇 배 커집니다",
       "bf16, fp16 모두 all_low > 2 × p_rounded_out"),
    _s("19_memory/ell_vs_bf16",
       "긴 문맥에서 float32 의 $\\ell$ 이 쌓는 오차도 bf16 의 $u$ 의 백분의 일 아래입니다",
       "m = 2¹⁷, b_k = 128 의 float32 ℓ 오차 × 2⁻²⁴ < 2⁻⁸ / 100"),
]
