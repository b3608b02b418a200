"""The book's own sentences held by its build: part2 (see :mod:`attnlib.sentences`)."""

from __future__ import annotations

from . import sentence as _s

SENTENCES = [
    # ------------------------------------------------------------------ 06_shapes
    _s("06_shapes/one_combination",
       "$n$, $m$, $d_v$ 가 서로 다르면 shape 가 맞는 조합은 하나뿐",
       "P 또는 Pᵀ 와 G 또는 Gᵀ 의 곱 가운데 V 의 shape 가 나오는 것: 1 ≤ n, m, d_v ≤ 6 에서 "
       "셋이 다른 120가지 모두 PᵀG 하나 (n, m, d_v = 3, 4, 2 도); 둘만 같은 90가지 모두 "
       "n = m 에서 PG, m = d_v 에서 GᵀP, n = d_v 에서 PᵀGᵀ 가 하나 더 맞다"),
    _s("06_shapes/dv_u",
       r"$\partial L/\partial V = P^{\mathsf T}G$ ($m\times d_v$), "
       r"$U = \partial L/\partial P = GV^{\mathsf T}$ ($n\times m$)",
       "torch autograd 의 V.grad 와 P.grad(retain_grad) 가 PᵀG, GVᵀ 와 같고 shape 가 맞다"),
    _s("06_shapes/u_sign",
       "$U_{ij} > 0$ 이면 $P_{ij}$ 를 키울 때 손실이 커진다",
       "라이브러리의 U 가 ∂L/∂P 를 따로 구한 값(L = ½‖PV − target‖², target = O − G: P 를 "
       "잎으로 둔 torch autograd, P_ij 하나의 중심차분)과 같고, 모든 (i, j) 에서 P_ij 만 "
       "키우면 손실이 커지는 자리가 U_ij > 0 인 자리와 같다 (부호가 둘 다 있는 12개 성분)"),
    _s("06_shapes/no_jacobian",
       r"$\partial L/\partial V$ 에는 softmax 의 야코비안이 들어 있지 않다",
       "P 만으로 만든 PᵀG 가 softmax 를 거친 autograd 의 ∂L/∂V 와 같다"),
    # ------------------------------------------------------------- 07_batch_heads
    _s("07_batch_heads/heads_2d",
       "헤드를 2차원으로 다시 계산하면 차이가 반올림 크기($10^{-14}$ 아래)다",
       "B·H = 8 개 헤드 모두 attnlib 의 2차원 역전파와 einsum 판의 dQ 차이가 10⁻¹⁴ 아래"),
    _s("07_batch_heads/own_block",
       r"$\partial L/\partial W_Q^{(h)} = X^{\mathsf T}\,\partial L/\partial Q_h$ 는 헤드 $h$ 의 "
       "블록만 채운다",
       "G 가 헤드 0 의 출력에만 있으면 헤드 1 블록이 정확히 0; 일반적인 경우 블록 h 가 "
       "Σ_b X_bᵀ ∂L/∂Q_(b,h) 와 같다"),
    _s("07_batch_heads/meet_at_x",
       "헤드들이 만나는 곳은 $X$ 하나이고, 거기서 더해진다",
       "헤드별 dX 조각이 모두 0이 아니고 그 합이 nn.MultiheadAttention 의 X.grad 와 같다"),
    _s("07_batch_heads/batch_sum",
       "배치의 예제들은 가중치를 나눠 쓰므로 가중치 쪽에서 더해진다",
       "예제별로 따로 구한 네 가중치의 기울기를 더하면 배치의 기울기, dX 는 예제마다 제 것"),
    _s("07_batch_heads/mha_autograd",
       "모두 `nn.MultiheadAttention` 의 autograd 와 같다",
       "dX, dW_Q, dW_K, dW_V, dW_O 가 nn.MultiheadAttention 의 autograd 와 1e-12 안에서 같다"),
    # ---------------------------------------------------------------- 08_row_rule
    _s("08_row_rule/jacobian",
       r"행 하나의 softmax 야코비안은 $J = \operatorname{diag}(p) - pp^{\mathsf T}$",
       "길이 4 의 행에서 A.softmax_jacobian 이 diag(p) − ppᵀ 이고 torch 의 야코비안과 같다"),
    _s("08_row_rule/three_ways",
       "야코비안을 만든 값, autograd 와 같다",
       "행별 규칙, uᵀJ, torch autograd 의 Δ 가 1e-14 안에서 같다"),
    _s("08_row_rule/exactly_m",
       "정확히 $m$ 배",
       "라이브러리가 만든 야코비안 (n, m, m) 의 수가 행별 규칙의 Δ (n, m) 의 m 배 "
       "((n, m) = (6, 16)); 배열의 모양이 정하는 수라 라이브러리의 출력 모양을 확인하는 셈이고, "
       "n = m = 1024 의 m 배는 셈이라 claim 줄이 찍는다"),
    _s("08_row_rule/memory_grows",
       "재어 보면 메모리의 비가 $m$ 을 따라 자란다",
       "tracemalloc 으로 잰 최대 메모리의 비가 m = 16 … 512 에서 단조 증가하고 m/2 를 넘는다"),
    # ------------------------------------------------------------------- 09_masks
    _s("09_masks/masked_zero",
       r"가린 자리는 $P = 0$ 이라 행별 규칙에서 $\Delta = 0$ 이다",
       "인과 마스크의 가린 자리 6개에서 U 는 0이 아닌데 P 와 Δ 는 정확히 0"),
    _s("09_masks/first_row",
       "첫 질의는 $Q$ 쪽 기울기를 받지 않는다",
       "인과 마스크에서 첫 행의 Δ 와 ∂L/∂Q 가 정확히 0, 다른 행의 ∂L/∂Q 는 0이 아니다"),
    _s("09_masks/leaks",
       r"$-\infty$ 와 $-10^9$ 은 보이는 자리가 있는 행에서 똑같이 정확한 0을 남긴다. "
       r"$-10$ 은 $P$ 와 $\Delta$ 를 $10^{-5}$ 대로 흘린다",
       "글의 비교 코드를 float64 와 float32 로: 가린 자리의 max P, max |Δ| 가 −inf, −1e9 에서 0, "
       "−10 에서 10⁻⁵ 대"),
    _s("09_masks/pad_nan",
       r"글의 수식 그대로라면 패딩 행($G = 0$)의 NaN 도 모든 키의 $\partial L/\partial V$ 로 "
       r"번진다",
       "−inf 로 전부 가린 행에 G = 0 을 주어도 PᵀG 의 모든 키 행에 NaN"),
    _s("09_masks/replace_no_nan_qk",
       r"바꿔 넣은 마스크면 NaN 이 그 층의 $\partial L/\partial Q$, $\partial L/\partial K$ 로는 "
       r"가지 않고, "
       r"$-\infty$ 를 더한 마스크면 간다",
       "전부 가린 행, G 그대로: attnlib 의 바꿔 넣기(nan 모드)는 ∂L/∂V 에만 NaN, torch 로 점수에 "
       "−inf 를 더하면 ∂L/∂Q, ∂L/∂K, ∂L/∂V 모두 NaN"),
    _s("09_masks/nan_lower",
       r"바꿔 넣은 마스크라도 NaN 은 $\partial L/\partial V$ 를 거쳐 $\partial L/\partial X$ 의 "
       "모든 원소로 가고",
       "torch 자기 어텐션 층, 첫 행을 masked_fill(−inf) 로 가림: ∂L/∂W_Q, ∂L/∂W_K 는 NaN 0개, "
       "∂L/∂W_V 와 ∂L/∂X 는 모든 원소가 NaN, SGD 한 걸음 뒤 다음 순전파의 O 가 모두 NaN"),
    _s("09_masks/sdpa_zero",
       "SDPA 는 그런 행에 $O = 0$ 을 돌려주고 어느 기울기에도 NaN 을 내지 않는다",
       "SDPA 의 O[0] 이 0 이고, G 그대로와 G[0] = 0 두 경우 모두 NaN 이 든 기울기가 없으며 "
       "attnlib 의 zero 모드와 같다"),
    _s("09_masks/replace_cut",
       r"바꿔 넣기(`np.where`, `masked_fill`, 불리언 마스크)에서는 가린 자리의 $\Delta$ 가 "
       r"$W_Q$, $W_K$ 에 닿지 않는다. 닿는 것은 더하는 "
       r"마스크(실수형 "
       "마스크)뿐이다",
       "torch 자기 어텐션, fill = −10: 마스크 전 점수 S_raw 의 가린 자리 기울기가 masked_fill 에서 "
       "정확히 0, 더하기에서 10⁻⁵ 위; np.where 가 masked_fill 과 같은 점수를 만들고, attnlib 의 "
       "불리언 마스크는 가린 자리의 Δ 가 0이 아닌데 dQ, dK 가 그 자리를 0으로 지운 Δ 로 "
       "만들어지며 masked_fill 의 dQ 와 같다; 더하기의 dQ 는 Δ 전체로 만들어지고 SDPA 의 실수형 "
       "마스크와 같다"),
    _s("09_masks/zero_fill",
       "가리는 값 0이 「마스크 없음」인 것도 더하기뿐이다",
       "fill = 0: 더하기의 P 가 마스크 없는 P 와 비트까지 같고 바꿔 넣기의 P 는 다르다"),
    _s("09_masks/thresholds",
       r"float32 에서 약 $-104$, float64 에서 약 $-745$ 아래로 정확히 0이 된다",
       "A.exp_underflow 의 문턱을 반올림하면 −104, −745"),
    _s("09_masks/half_inf",
       r"float16 에서는 $-10^9$ 이 $-\infty$ 로 바뀌어",
       "torch CPU: float16 의 −1e9 가 −inf, float16 점수에 masked_fill(−1e9) 는 넘침 오류, −1e9 로 "
       "전부 가린 float16 행의 softmax 가 NaN; bfloat16 의 −1e9 는 유한"),
    _s("09_masks/ftz",
       r"비정규수를 0으로 버리는 커널에서는 float32 의 문턱이 약 $-87.3$ 이다",
       "torch.set_flush_denormal(True) 를 켠 torch CPU 에서 float32 exp 의 문턱을 다시 찾으면 "
       "ln(가장 작은 정규수) = −87.34 와 1e-3 안으로 같고, fill = −100 으로 가린 자리의 P 가 켜면 "
       "0, 끄면 0이 아니다 (켤 수 없는 CPU 에서는 재지 못했다고 적고 ✔ 을 찍지 않는다)"),
    _s("09_masks/between",
       "지수가 그 사이에 있으면 float64 에서만 샌다(float64 의 문턱 바로 위에서는 float64 의 $P$, "
       r"$\Delta$ 도 0으로 잘리기도 한다)",
       "fill = −760 … −92 를 2 씩 옮겨 가린 여섯 자리의 지수가 두 문턱 사이인 점 모두: float32 는 "
       "P, Δ 가 0; float64 는 제 문턱에서 3 넘게 위인 점 모두 P, Δ 가 0이 아니고, 0으로 잘린 점이 "
       "있으며 모두 문턱에서 3 안쪽 (fill = −300 에서도 float32 는 0, float64 는 P, Δ 모두 0이 "
       "아니다)"),
    # ----------------------------------------------------------------- 10_dropout
    _s("10_dropout/u_side",
       r"역전파에서는 $U = (GV^{\mathsf T})\odot M/(1-p_{\text{drop}})$ 로 들어간다",
       "같은 마스크를 곱한 torch autograd 의 ∂L/∂P (retain_grad) 가 (GVᵀ)⊙M/(1−p_drop) 와 같고 "
       "softmax 의 P 는 드롭아웃이 없을 때와 같다"),
    _s("10_dropout/r_changes",
       "가중평균 $r$ 이 드롭아웃 마스크를 따라 바뀐다",
       "p_drop = 0.3 의 마스크에서 네 행 모두 r 이 드롭아웃 없는 r 과 다르고, 0 을 둔 "
       "행 모두 아무것도 떨구지 않은 마스크(같은 p_drop, r 은 1/(1−p_drop) 배일 뿐)의 "
       "r 과도 다르다"),
    _s("10_dropout/dropped_delta",
       r"떨어뜨린 자리는 $U = 0$ 이지만 $P \ne 0$ 이라 $\Delta = -P\,r$",
       "떨어뜨린 자리마다 torch autograd 의 ∂L/∂P 가 0, P > 0 이고 autograd 의 ∂L/∂S 가 "
       "−P·r (r = rowsum(P ⊙ autograd 의 ∂L/∂P)) 과 같고 0이 아니다"),
    _s("10_dropout/autograd",
       "같은 마스크를 고정한 torch autograd 와 일치한다",
       "Δ, dQ, dK, dV 가 같은 마스크를 곱한 torch autograd 와 1e-12 안에서 같다"),
    # ------------------------------------------------------------------ 11_dq_dk
    _s("11_dq_dk/one_place",
       "$n$, $m$, $d_k$ 가 서로 다르면 shape 를 맞출 때 전치의 자리가 하나로 정해진다",
       "Δ 또는 Δᵀ 와 K(Q) 또는 그 전치의 곱 가운데 Q(K) 의 shape 가 나오는 것: 1 ≤ n, m, d_k ≤ 6 "
       "에서 셋이 다른 120가지 모두 하나씩 (n, m, d_k = 3, 5, 4 도); n = m 이면 ΔQ, m = d_k 이면 "
       "QᵀΔ 가 K 의 shape, "
       "n = d_k 이면 KᵀΔᵀ 가 Q 의 shape"),
    _s("11_dq_dk/autograd_backends",
       "PyTorch autograd 와 두 백엔드가 모두 같은 답을 낸다",
       "dQ, dK, dV 가 attnlib.numpy, attnlib.torch, torch autograd 에서 같다"),
    _s("11_dq_dk/only_k",
       r"$K$ 의 기울기만 $\sqrt{d_k}$ 배 작아진다",
       "d_k = 1, 2, 4, 9, 16, 64 에서 버그를 손으로 쓴 역전파(Q' = Q/√d_k, dK = ΔᵀQ'/√d_k)의 "
       "dK 가 torch autograd 의 1/√d_k (√d_k 와 d_k/2 가 같은 d_k = 4 만이 아니라), dQ 와 dV 는 "
       "autograd 그대로 (최대 성분의 1e-12); 라이브러리의 double_scale 도 같은 값"),
    _s("11_dq_dk/check_d4_d1",
       "기울기 검사는 $d_k = 4$ 에서 상대오차 1/3 으로 바로 잡아내고, $d_k = 1$ 로만 시험하면 "
       "보이지 않는다",
       "중심차분 기울기 검사: d_k = 4 에서 버그의 K 상대오차 1/3, d_k = 1 에서는 버그를 켜도 "
       "세 오차 모두 통과 기준 10⁻⁶ 아래"),
    _s("11_dq_dk/d2_shows",
       r"$d_k = 2$ 에서도 상대오차 약 0.17 로 드러난다",
       "중심차분 기울기 검사: d_k = 2 에서 버그의 K 상대오차가 (√2 − 1)/(√2 + 1) = 0.172"),
    _s("11_dq_dk/dx_direction",
       r"$K = XW_K$ 인 층에서는 아래로 가는 $\partial L/\partial X$ 의 방향까지 바뀐다",
       "자기 어텐션 층(n = 8, d = 64, 시드 20개, d_k = 4, 16, 64)에서 참 ∂L/∂X 와 버그의 ∂L/∂X 의 "
       "코사인이 모두 0.99 아래이고 중앙값이 d_k 와 함께 줄어든다"),
    # ---------------------------------------------------------------- 12_row_sum
    _s("12_row_sum/row_zero",
       r"$\Delta$ 의 각 행의 합은 정확히 0이다",
       "무작위 4×6 의 Δ 에서 |행 합| 이 10⁻¹⁵ 아래 (반올림 크기)"),
    _s("12_row_sum/biases",
       r"행 편향과 질의 항의 기울기는 0, 키 편향은 $\Delta$ 의 열 합이다",
       "torch autograd: 행 편향·질의 항의 기울기가 10⁻¹⁴ 아래, 키 편향의 기울기가 Δ 의 열 합과 "
       "같고 0이 아님"),
    _s("12_row_sum/gradcheck_pass",
       r"기울기 검사의 상대오차는 세 입력 모두 $10^{-9}$ 미만이다",
       "순수 파이썬 중심차분 검사의 최대 상대오차 Q, K, V 가 모두 10⁻⁹ 아래"),
    # ------------------------------------------------------------------ 13_peaked
    _s("13_peaked/collapse",
       r"$\Delta$ 를 지나는 $\partial L/\partial Q$, $\partial L/\partial K$ 는 죽고, $\Delta$ 를 "
       r"안 "
       r"지나는 $\partial L/\partial V = P^{\mathsf T}G$ 는 산다",
       "배수 64 에서 ‖dQ‖, ‖dK‖ 가 제 봉우리의 1/100 아래이고 ‖dV‖ 는 표에서 가장 크다"),
    _s("13_peaked/rise",
       r"분포가 아직 퍼져 있는 동안 $\lVert\partial L/\partial Q\rVert$ 는 $\alpha$ 에 거의 비례해 "
       "오르고, 몰리기 시작하면 오름이 둔해지다 봉우리를 넘어 무너지고",
       "배수 1/16, 1/8, 0.25, 0.5, 1 (최대 P 0.7 아래) 에서 ‖dQ‖/α 가 5% 안에서 평평하고 배수 2 "
       "에서 그 10% 넘게 아래; 표에서 ×4 (0.25 → 1) 에 ‖dQ‖ 가 3.5 ~ 4.5 배, 다음 ×4 (1 → 4) 에서 "
       "3 배 아래, ×2 (4 → 8) 에서 1.5 배 아래; 봉우리가 표의 안쪽 (배수 64 의 붕괴는 "
       "13_peaked/collapse)"),
    _s("13_peaked/v_sum",
       "이 장의 난수에서는 아래 표처럼 배수마다 커집니다",
       "default_rng(0) 의 표에서 ‖dV‖ = ‖PᵀG‖ 가 배수마다 커진다"),
    _s("13_peaked/v_grows",
       r"이 장의 난수에서는 $\lVert\partial L/\partial V\rVert$ 가 배수마다 자라 $Q$·$K$ 쪽이 "
       r"무너진 뒤로는 셋 중 가장 크다",
       "default_rng(0) 의 표에서 ‖dV‖ 가 배수마다 커지고 배수 32, 64 에서 ‖dQ‖, ‖dK‖ 보다 크다"),
    _s("13_peaked/dk_over",
       r"봉우리 근처에서는 $\lVert\partial L/\partial K\rVert$ 가 더 클 수도 있다 (우리 난수에서 "
       r"배수 4, 8, 16)",
       "default_rng(0) 의 표에서 ‖dK‖ > ‖dV‖ 인 배수가 4, 8, 16"),
    _s("13_peaked/seed_depth",
       "시드마다 자릿수가 다르다",
       "시드 300개에서 배수 64 의 ‖dQ‖ 가 10⁻³ 아래인 비율과 1 위인 비율이 둘 다 20% 넘는다"),
    _s("13_peaked/max_p_one_row",
       "최대 $P$ 하나는 가장 많이 몰린 행의 사정만 알려 준다",
       "배수 8: 표의 최대 P (행렬 전체) 는 정의상 가장 많이 몰린 행의 최대 P 이고, 그 행은 최대 P "
       "0.999 위에 그 행의 "
       "‖(dQ)_i‖ < 10⁻³; 가장 덜 몰린 행은 최대 P 0.7 아래이고 그 행의 ‖(dQ)_i‖ 가 1 위로 네 행 "
       "가운데 가장 크다"),
    _s("13_peaked/loss_blind",
       "손실은 걸음마다 수 하나라 어느 헤드가 몰렸는지 담지 않지만, 이 수에는 어느 헤드인지 보인다",
       "300걸음 학습: 헤드 3 의 H/log m 은 내내 0.05 아래, 다른 헤드 평균은 0.8 위 (앞 반은 "
       "손실의 모양, 걸음마다 수 하나에 대한 말이라 잴 것이 없음)"),
    _s("13_peaked/loss_gap",
       "50걸음 뒤로는 차가 10% 안으로 좁혀져",
       "찍은 걸음 0, 50, 100, 200, 299 에서 붕괴 실행의 손실이 모두 높고 걸음 0 에서 20% 넘게; "
       "걸음 50 부터 299 까지 걸음마다 0 보다 크고 10% 안에서 높다"),
    _s("13_peaked/head3_weak",
       "마지막 걸음에서 헤드 3의 기울기는 다른 헤드 평균의 5분의 1 아래이지만 0은 아닙니다",
       "마지막 걸음의 ‖(∂L/∂W_Q, ∂L/∂W_K)‖ 비 (헤드 3 / 다른 헤드 평균) 가 0.05 와 0.2 사이"),
    _s("13_peaked/grad_ratio_moves",
       "300걸음 전체로 보면 기울기의 비는 오르내리고(처음 다섯 걸음은 1 위)",
       "같은 비가 걸음 0–4 에서 모두 1 위이고, 300걸음 가운데 0.2 아래로도 내려가며, 가장 작은 값 "
       "뒤에 그 다섯 배 넘게 다시 오르고, 걸음 사이 299번 가운데 오른 횟수와 내린 횟수가 둘 다 "
       "100 이상"),
    _s("13_peaked/relative_smaller",
       "그 비는 300걸음 내내 다른 헤드 평균의 3분의 1 아래입니다",
       "걸음마다 ‖(∂L/∂W_Q, ∂L/∂W_K)‖/‖(W_Q, W_K)‖ (그 헤드의 열) 의 비 (헤드 3 / 다른 헤드 "
       "평균) 가 300걸음 모두 1/3 아래 (원인을 떼어 내 재지는 않는다)"),
    # --------------------------------------------------------------- 14_residual
    _s("14_residual/residual_isolated",
       r"잔차를 빼도 $\partial L/\partial x$ 가 $V$ 를 거치는 몫으로 살아 있고, $W_V$ 를 줄여 "
       r"가지를 "
       "약하게 하면 남는 것은 $I$ 의 몫뿐이다",
       "α = 64: 가지의 몫을 Q·K·V 세 길로 나누면 Q·K 길은 10⁻² 아래, 잔차 없는 ‖∂L/∂x‖ 는 V 길과 "
       "같고 "
       "‖G‖ 의 절반 위; W_V × 0.01 이면 잔차 없이 ‖G‖ 의 2% 아래, 잔차 있으면 ‖G‖ 의 1% 안"),
    _s("14_residual/stack_no_identity",
       "이 장의 스택에서는 잔차가 없으면 깊이 24 에서 기울기가 지켜지지 않고, 가지가 약하지 않은 "
       r"$\alpha = 1$ 에서도 그렇다",
       "LayerNorm 없는 스택, 깊이 24, 시드 5개: 잔차가 없으면 α = 1, 64 모두 ‖∂L/∂x_0‖/‖G‖ 의 "
       "최솟값이 10⁻¹ 아래이고 시드 사이 폭(최대/최소)이 10² 위"),
    _s("14_residual/stack_identity",
       "잔차가 있으면 30번 모두 비가 1 위라, 기울기가 입력 쪽까지 줄지 않는다",
       "같은 스택에 잔차를 두면 깊이 1, 6, 24 × α = 1, 64 × 시드 5개의 ‖∂L/∂x_0‖/‖G‖ 가 모두 1 위"),
    _s("14_residual/qk_dead",
       r"$W_Q$, $W_K$ 로 가는 길은 $\Delta$ 를 지나므로 잔차가 있어도 죽는다",
       "α = 64 에서 ‖∂L/∂W_Q‖, ‖∂L/∂W_K‖ 가 10⁻² 아래, ‖∂L/∂W_V‖ 는 10 위"),
    _s("14_residual/ln_projection",
       r"두 방향을 지우고 나머지를 $1/\sigma$ 배 하는 행렬이다",
       "d = 6 에서 A.layernorm_jacobian 이 torch 의 야코비안과 같고 특잇값 넷이 1/σ, 둘이 0"),
    _s("14_residual/sigma_above_one",
       r"잰 24층에서는 모두 $\sigma > 1$ 이었고, 항등 경로만으로는 24층을 지나며 기울기가 몇 "
       r"자리나 "
       "줄어듭니다",
       "24층 post-LN 스택의 층별 σ 가 모두 1 위이고 Π 1/σ 가 10⁻² 아래"),
    _s("14_residual/pre_ln_grows",
       "pre-LN 의 입력 쪽 기울기는 기하평균이 깊이와 함께 오르고 25번 모두 출력 쪽보다 크다",
       "깊이 3 … 48, 시드 5개: pre-LN 의 ‖∂L/∂x_0‖/‖∂L/∂x_N‖ 기하평균이 깊이마다 오르고 25개 비가 "
       "모두 1 위"),
    _s("14_residual/post_ln_spread",
       "post-LN 의 비는 25번 중 여러 번 1 아래로 내려가고, 깊이 48 에서 시드 사이 폭이 가장 넓다",
       "post-LN 의 비가 1 아래인 경우가 3번 이상이고, 깊이 48 의 post-LN 폭이 두 스택의 모든 깊이 "
       "가운데 최대"),
    _s("14_residual/spread_not_monotone",
       "깊이 24 에서는 pre-LN 의 폭이 더 넓어",
       "깊이 24 에서 시드 사이 폭(최대 / 최소)이 pre-LN 쪽이 post-LN 쪽보다 크다"),
    # ------------------------------------------------------------------ 15_verify
    _s("15_verify/backends",
       "`attnlib.numpy`·`attnlib.torch`·`AttentionFunction` 도 같은 값을 낸다",
       "글의 작은 예제에서 Δ, dQ, dK, dV 가 두 백엔드와 AttentionFunction 의 .grad 에서 순수 "
       "파이썬과 같다"),
    _s("15_verify/ten_places",
       r"두 값의 차가 세 기울기 모두 $5\times10^{-11}$, 곧 소수점 아래 열째 자리의 반 단위 아래",
       "NumPy 중심차분(h = 10⁻⁵)과 순수 파이썬 다섯 줄의 최대 절대 차가 Q, K, V 모두 "
       "5 × 10⁻¹¹ 아래"),
    _s("15_verify/lse_saves",
       "$n = m = 4096$ 에서는 64 MiB 가 16 KiB 가 된다",
       "float32 의 P 가 64 MiB, lse 가 16 KiB, 비 4096 = m"),
    # ----------------------------------------------------------------- 16_closing
    _s("16_closing/sdpa_grad",
       "`.grad` 는 배치·헤드 축과 인과 마스크가 붙어도 다섯 줄과 같다",
       "B, H, n, m = 2, 4, 5, 6 과 오른쪽 아래에 맞춘 인과 마스크(질의 i 가 키 0 … i + m − n "
       "을 봄)에서 SDPA 의 Q, K, V .grad 가 attnlib.torch 의 다섯 줄과 같다"),
    _s("16_closing/ledger_second",
       "≠(글과 다름)로 올린 것은 없고, △(조건을 붙여야 맞음)로 올린 것이 둘이다",
       "장부의 목록 attnlib.claims 에 적은 상태로 센 두 번째 글 항목에서 erratum 0개, "
       "qualified 2개 (09_masks/leak_channel, 11_dq_dk/lr_eighth), confirmed 2개 "
       "(09_masks/nan_spreads, 14_residual/identity_keeps)"),
    # ------------------------------------------------- more sentences of 08, 13, 14
    _s("08_row_rule/temp_array",
       "계산 도중에 같은 크기의 임시 배열이 하나 더 생기기 때문입니다",
       "m ≥ 128 에서 tracemalloc 의 최대 메모리가 두 방법 모두 센 크기의 1.8 ~ 2.4 배 (센 배열 "
       "하나와 같은 크기의 배열 하나: 하나 적으면 1 배 안팎, 하나 많으면 3 배 안팎); 같은 값을 "
       "임시 배열 없이 제자리 연산으로 만들면 두 방법 모두 최대 메모리가 센 크기의 0.9 ~ 1.1 "
       "배만큼 줄어든다 (입력의 사본이나 출력이 아니라 계산 도중의 배열임을 그 배열을 빼서 본다)"),
    _s("13_peaked/gap_cause",
       r"시드 0–149 에서 $\lVert\partial L/\partial Q\rVert$ 가 1 을 넘은 시드는 모두 그 간격이 6 "
       r"아래이고 $10^{-3}$ 아래로 떨어진 시드는 모두 11 위입니다. 두 문턱은 이 150개를 보고 고른 "
       "것이지만, 보지 않은 시드 150–299 에서도 그대로 맞습니다",
       "배수 64 에서 가장 좁은 행의 1·2위 점수 간격: 시드 0–149 만으로 정한 문턱 (‖dQ‖ > 1 인 "
       "시드의 최대 간격을 올림, ‖dQ‖ < 10⁻³ 인 시드의 최소 간격을 내림) 이 6, 11 이고, 시드 "
       "150–299 에서도 ‖dQ‖ > 1 인 시드는 모두 6 아래, ‖dQ‖ < 10⁻³ 인 시드는 모두 11 위 "
       "(함께 나타남을 볼 뿐, 원인은 재지 않는다)"),
    _s("14_residual/pre_dip",
       "출력 쪽과 거의 같은 높이까지만 내려갑니다",
       "탐색기의 15칸 가운데 pre-LN 곡선이 출력 쪽 아래로 내려가는 칸이 있고, "
       "가장 낮은 점이 출력 쪽의 0.99 배 위"),
    _s("14_residual/gain_grows",
       "배수가 커질수록 층 배율의 중앙값이 1 에서 멀어지고, 가장 큰 배율도 커집니다",
       "깊이 48 의 pre-LN 스택에서 배수 1, 4, 16 의 층 배율 중앙값과 최댓값이 모두 커진다"),
    _s("14_residual/thousands",
       "pre-LN 의 입력/출력 비가 수천에 이릅니다",
       "깊이 48, 배수 16 에서 pre-LN 의 ‖∂L/∂x_0‖/‖∂L/∂x_N‖ 가 10³ 과 10⁴ 사이"),
    _s("14_residual/branch_big",
       r"$\alpha = 64$ 에서도 $\partial\operatorname{Attn}/\partial x$ 의 몫이 "
       r"$\lVert G\rVert$ 보다 크니",
       "α = 64 에서 어텐션 가지의 ∂L/∂x 몫의 노름이 ‖G‖ 보다 크다"),
    _s("15_verify/peak_both",
       r"어느 쪽이든 $\Delta$ 같은 $n\times m$ 배열을 잠시 만듭니다",
       "n = m = 4096 에서 P 경로와 LSE 경로 모두 역전파 중 최고 메모리가 n×m float32 한 장 이상"),
    _s("15_verify/peak_sheets",
       r"P 경로는 $n\times m$ 배열 한 장, LSE 경로는 두 장만큼입니다",
       "n = m = 4096, float32: 역전파 중 최고 메모리를 n×m 한 장으로 나누면 P 경로 1 ~ 1.5, "
       "LSE 경로 2 ~ 2.5"),
    # ------------------------------------------- second referee of Part II (p2c)
    _s("16_closing/entropy_not_loss",
       "손실은 걸음마다 수 하나라 어느 헤드가 몰렸는지 담지 않지만, 행 엔트로피에는 보인다",
       "13장의 두 300걸음 실행(정상, 헤드 3 붕괴)을 다시 돌려: 헤드 3 의 H/log m 은 내내 0.05 "
       "아래, 다른 헤드 평균은 0.8 위; 두 손실의 차는 걸음 0 에서 20% 넘고 걸음 50 부터 299 "
       "까지 0 보다 크고 10% 안 (앞 반, 손실이 헤드 축 없는 수 하나라는 것은 손실의 모양이라 "
       "잴 것이 없음)"),
    _s("14_residual/stack_grows",
       r"깊이 24 에서 비가 $10^3$ 을 넘어 $10^5$ 자리까지 커진다",
       "LayerNorm 없는 스택에 잔차를 두면 깊이 24 (α = 1, 64 × 시드 5개) 의 ‖∂L/∂x_0‖/‖G‖ 가 모두 "
       "10³ 위, 가장 큰 것이 10⁵ 과 10⁶ 사이"),
    _s("14_residual/post_gm_no_decay",
       r"항등 경로의 $\Pi\,1/\sigma$ 처럼 자릿수로 줄어들지 않습니다",
       "post-LN 스택의 ‖∂L/∂x_0‖/‖∂L/∂x_N‖ 기하평균이 깊이 3 … 48 모두 0.5 위"),
]
