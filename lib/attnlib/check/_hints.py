"""What the checkers say about a known mistake (Korean, like the book), keyed by a short name.

Tests look a hint up here by its key; a checker prints ``"힌트: " + HINTS[key]`` (formatted with
the names it found for the few hints with ``{…}`` fields). A hint is printed only when the grader
has identified the mistake (see ``_grade``); otherwise it says nothing.
"""

HINTS = {
    # softmax
    "overflow": "최댓값을 빼지 않아 e^S 가 넘쳤습니다 (inf/inf = NaN). 행마다 최댓값을 빼고 "
                "지수를 취하세요.",
    "global_max": "배열 전체의 최댓값 하나를 뺐습니다. 점수의 크기가 크게 다른 행은 e^(S − max) 가 "
                  "모두 0 으로 잘려 0/0 이 됩니다. 행마다 최댓값을 빼세요 "
                  "(max(-1, keepdims=True)).",
    "axis": "마지막 축(한 행 안의 키 방향)이 아닌 다른 축으로 정규화했습니다. softmax 는 행마다, "
            "axis=-1 로 겁니다.",
    "keepdims": "행마다 구한 값(최댓값, 합, r, lse)을 keepdims=True 나 [..., None] 없이 빼거나 "
                "나눠서, 행의 값이 열 방향으로 퍼졌습니다. 정사각 입력에서는 오류 없이 조용히 "
                "틀립니다.",
    "keepdims_crash": "shape {small} 인 행마다의 값을 shape {big} 인 배열과 계산하려 했습니다. "
                      "keepdims=True 나 [..., None] 으로 마지막 축을 남겨 {fixed} 로 만들면 행을 "
                      "따라 브로드캐스트됩니다.",
    # the softmax Jacobian
    "jac_sign": "부호가 반대입니다: J = diag(p) − p pᵀ.",
    "jac_no_diag": "diag(p) 를 빠뜨렸습니다: J = diag(p) − p pᵀ.",
    "jac_diag_only": "대각 성분 p_i(1 − p_i) 만 넣고 비대각 성분 −p_i p_j 를 빠뜨렸습니다.",
    "jac_diag_p": "diag(p) 만 있고 −p pᵀ 가 없습니다.",
    "jac_leading_axes": "(m,) 하나짜리 p 는 통과했는데 앞에 축이 붙은 p 에서 틀렸습니다. "
                        "앞의 축마다 따로 계산되지 않았습니다. 벡터 하나만 다루는 함수(np.diag, "
                        "np.outer)나 모든 축을 뒤집는 .T 가 이렇게 틀립니다. diag(p) 는 "
                        "p[..., :, None] * np.eye(m), p pᵀ 는 p[..., :, None] * p[..., None, :] "
                        "로 쓰세요.",
    # the row rule
    "r_without_P": "r 을 P 없이 구했습니다. r_i = Σ_j P_ij U_ij 는 확률 P 를 가중치로 한 U 의 "
                   "가중평균입니다 (U 의 단순 평균이나 합이 아닙니다).",
    "r_global": "r 을 축 없이 배열 전체로 더했습니다. r_i 는 행마다 하나, 행 i 안에서 키 "
                "방향(축 −1)으로 더합니다.",
    "no_P": "마지막에 P 를 곱하지 않았습니다: Δ = P ⊙ (U − r).",
    "no_r": "가중평균 r 을 빼지 않았습니다: Δ = P ⊙ (U − r).",
    "r_axis": "r 을 열 방향(축 −2)으로 더했습니다. r_i 는 행 i 안에서 키 방향(축 −1)으로 더합니다.",
    "sign": "부호가 반대입니다.",
    # O = P V
    "U_times_P": "U 에 P 를 곱했습니다. U = ∂L/∂P = G Vᵀ 는 softmax 를 거치기 전의 값이라 P 가 "
                 "들어가지 않습니다.",
    "mean_not_sum": "질의들에 대해 평균을 냈습니다. 같은 V 를 여러 질의가 쓰면 기울기는 더합니다 "
                    "(dV = Pᵀ G).",
    # shapes, axes, order, dtype
    "transposed": "마지막 두 축이 뒤바뀐 shape 입니다. 곱의 순서나 전치를 확인하세요. 손실을 어떤 "
                  "행렬로 미분한 것은 그 행렬과 shape 가 같습니다.",
    "reversed_axes": "모든 축이 뒤집힌 shape 입니다. 배치 축이 있는 배열에서 .T 는 모든 축을 "
                     "뒤집습니다. 마지막 두 축만 바꾸려면 swapaxes(-1, -2) (torch 는 .mT) 를 "
                     "쓰세요.",
    "batch_axes": "앞에 붙은 축이 더 적은 경우는 통과했는데, 축이 더 붙자 틀렸습니다. .T 는 모든 "
                  "축을 뒤집으니 swapaxes(-1, -2) (torch 는 .mT) 를 쓰고, 축은 axis=-1 처럼 "
                  "끝에서 세고, einsum 에는 ... 을 쓰세요. 배치·헤드 축을 reshape 로 행에 섞으면 "
                  "질의가 다른 헤드의 키까지 봅니다.",
    "order": "값은 맞지만 출력의 순서가 다릅니다. {names} 순서의 튜플로 돌려주세요.",
    "low_precision": "{name} 를 {dtype} 로 돌려줬습니다. 이 경우의 입력은 {case} 이니 같은 "
                     "정밀도로 계산해 돌려주세요.",
    "float32_only": "float64 에서는 통과한 같은 입력이 float32 에서 틀렸습니다. float32 에서 "
                    "정밀도를 잃는 계산(크기가 비슷한 큰 수끼리의 뺄셈, 넘치는 지수)이 있는지 "
                    "보세요.",
    # what the function does besides its outputs
    "mutated": "함수가 받은 {names} 를 제자리에서 고쳤습니다 (S -= …, x -= mean, Q *= scale, "
               "np.exp(S, out=S), torch 의 Q.mul_(…) 처럼). 부른 쪽은 같은 배열을 다시 쓰니, "
               "입력은 그대로 두고 새 배열에 계산하세요 (S = S - …).",
    "alias": "돌려준 배열이 입력의 view 라서, 받은 쪽이 출력을 고치면 입력도 바뀝니다 (거꾸로도). "
             "새 배열을 만들어 돌려주세요.",
    "reused_output": "함수가 호출마다 같은 배열(전역 변수, 기본 인자 out=np.zeros(…), "
                     "캐시)에 결과를 써서 돌려줍니다. 앞에서 받은 결과가 다음 호출에 "
                     "덮어써집니다. 호출마다 새 배열을 만드세요.",
    "memory": "최대 메모리가 블록 몇 개와 입력·출력 크기의 배열에 필요한 만큼을 넘었습니다. "
              "점수 S 나 P, 마스크 같은 n×m 배열을 (bool 이나 float16 으로라도) 통째로 "
              "만들었거나 블록들의 배열을 모아 두었습니다. 블록 하나의 배열만 만들고, 다음 "
              "블록으로 넘어가면 버리세요.",
    # the scale
    "no_scale": "dQ, dK 에 1/√d_k 를 곱하지 않았습니다. 순전파의 S = QKᵀ/√d_k 를 거꾸로 지나며 "
                "한 번 곱해야 합니다.",
    "double_scale": "dQ, dK 에 1/√d_k 를 두 번 곱했습니다 (1/d_k 를 곱한 것, 곧 d_k 로 나눈 "
                    "것과 같습니다). 역전파에서는 1/√d_k 를 한 번 곱합니다.",
    "scale_inverted": "1/√d_k 대신 √d_k 를 곱했습니다.",
    "dK_double_scale": "dK 에만 스케일이 두 번 들어갔습니다. Q' = Q/√d_k 로 스케일을 접어 넣었다면 "
                       "Δᵀ Q' 에 이미 한 번 들어 있습니다.",
    "mirror": "거울 대칭이 바뀌었습니다. dQ 에는 K 를 (Δ K), dK 에는 Q 를 (Δᵀ Q) 곱합니다.",
    "forward_unscaled": "점수에 1/√d_k 를 곱하지 않았습니다. 점수는 S = QKᵀ/√d_k 입니다.",
    "unscaled_everywhere": "1/√d_k 를 순전파의 점수에도, 역전파의 dQ, dK 에도 곱하지 "
                           "않았습니다. S = QKᵀ/√d_k 이고, dQ = ΔK/√d_k, dK = ΔᵀQ/√d_k 입니다.",
    "scale_d": "1/√d_k 대신 1/d_k 를 곱했습니다. 스케일은 d_k 의 제곱근으로 나눕니다 "
               "(np.sqrt(Q.shape[-1])).",
    "softmax_axis": "순전파의 softmax 를 질의 방향(축 −2)으로 걸었습니다. P 의 행 i 는 질의 i 가 "
                    "키들에 주는 확률이라, softmax 는 키 방향(축 −1)으로 겁니다.",
    # masks
    "masked_delta_to_qk": "가린 자리의 Δ 를 dQ, dK 로 보냈습니다. 바꿔 넣은 점수는 상수 fill 이라 "
                          "Q, K 와 끊겨 있으니, 그 자리의 Δ 는 dQ, dK 에 들어가지 않습니다 "
                          "(r 과 dV 에는 그 자리의 P 가 그대로 들어갑니다).",
    "mask_inverted": "마스크의 True/False 를 뒤집었습니다. 여기서 mask 는 SDPA 처럼 볼 수 있는 "
                     "자리가 True 입니다.",
    "mask_added": "점수에 fill 을 더했습니다. 이 문제의 마스크는 바꿔 넣기 "
                  "(np.where(mask, S, fill)) 입니다.",
    "mask_missing": "순전파에서 마스크를 걸지 않았습니다. 마스크는 softmax 앞에서 점수에 겁니다.",
    "mask_after_softmax": "softmax 뒤에 P 를 0 으로 만들었습니다. 그러면 행의 합이 1 이 아닙니다. "
                          "마스크는 softmax 앞에서 점수에 겁니다.",
    "bias_delta_zeroed": "가린 자리의 Δ 를 0 으로 만들었습니다. 더하는 마스크에서는 점수가 여전히 "
                         "QKᵀ/√d_k + bias 라 Q, K 와 이어져 있으니 모든 자리의 Δ 가 dQ, dK 로 "
                         "갑니다.",
    "bias_missing": "순전파에서 bias 를 점수에 더하지 않았습니다.",
    "bias_scaled": "bias 를 스케일보다 먼저 더했습니다 (S = (QKᵀ + bias)/√d_k). bias 는 스케일한 "
                   "점수에 더합니다.",
    # dropout
    "dropout_no_rescale": "1/(1 − p_drop) 을 빠뜨렸습니다. P̃ = P ⊙ M/(1 − p_drop) 이므로 dV 와 "
                          "U 양쪽에 들어갑니다.",
    "dropout_no_rescale_U": "U 에 1/(1 − p_drop) 을 빠뜨렸습니다: U = (G Vᵀ) ⊙ M/(1 − p_drop).",
    "dropout_over_p": "1/(1 − p_drop) 대신 1/p_drop 을 곱했습니다. 살아남는 비율이 1 − p_drop "
                      "이라 그것으로 나눕니다.",
    "dropout_not_in_U": "U 에 드롭아웃 마스크를 걸지 않았습니다. 드롭아웃은 softmax 뒤에 걸리므로 "
                        "역전파에서는 U 로 들어갑니다.",
    "dropout_on_delta": "드롭아웃 마스크를 Δ 에 걸었습니다. 마스크는 U 에 걸고 r 과 Δ 는 그 U 로 "
                        "구합니다. 떨어뜨린 자리의 Δ 는 −P r 이라 0 이 아닙니다.",
    "dropout_not_in_dV": "dV 에 드롭아웃을 빠뜨렸습니다: dV = P̃ᵀ G.",
    "dropout_r_twice": "r 에 드롭아웃이 두 번 들어갔습니다. U 에 이미 M/(1 − p_drop) 이 "
                       "있는데 P̃ 와 곱했습니다. r 은 P 와 그 U 로 (r_i = Σ_j P_ij U_ij), 또는 "
                       "P̃ 와 드롭아웃 전의 G Vᵀ 로 구합니다: 둘 다 r_i = G_i · O_i.",
    # entropy
    "zero_log_zero": "P = 0 인 자리에서 0 · log 0 이 NaN 이 되었습니다. 그 자리의 항은 0 으로 "
                     "두세요 (np.where 로, 또는 P > 0 인 자리만 더해서).",
    "not_normalized": "log m 으로 나누지 않았습니다.",
    "log_n": "키의 수 m 이 아니라 질의의 수 n 으로 나눴습니다. 키 m 개의 균등분포가 엔트로피 "
             "log m 을 가집니다.",
    "log_visible": "행마다 P > 0 인 키의 수의 로그로 나눴습니다. 보이는 키가 하나인 행에서는 "
                   "log 1 = 0 이라 0/0 = NaN 이 됩니다. 이 감시 값 h̄ 는 모든 행을 같은 log m 으로 "
                   "나눕니다.",
    # LayerNorm
    "ln_no_mean": "mean(G) 를 빼지 않았습니다: ∂L/∂x = (G − mean(G) − y · mean(G ⊙ y)) / σ.",
    "ln_no_y": "y · mean(G ⊙ y) 항을 빠뜨렸습니다 (σ 가 x 에 의존해서 생기는 몫입니다).",
    "ln_no_sigma": "1/σ 를 곱하지 않았습니다.",
    "ln_unbiased": "σ 를 d − 1 로 나눠 (표본 표준편차로) 구했습니다. LayerNorm 은 d 로 나눕니다 "
                   "(np.std 의 기본값입니다. torch.std 는 기본이 d − 1 입니다).",
    "ln_one_pass": "float64 에서는 통과한 입력이 float32 에서 틀렸습니다. 분산을 E[x²] − E[x]² "
                   "로 구하면, 평균이 표준편차보다 훨씬 큰 x (이 검사기에서는 평균 50, 표준편차 "
                   "0.1) 에서 2500 근처의 비슷한 두 수를 빼게 되어 float32 의 유효숫자가 거의 다 "
                   "사라집니다. 평균을 먼저 빼고 (x − μ)² 를 평균하세요.",
    # LSE
    "lse_axis": "lse 를 열 방향으로 뺐습니다. lse 는 행마다 하나이니 S − lse[..., None] 입니다.",
    "lse_missing": "P 를 e^S 로 두었습니다. 되살린 P 는 e^(S − lse) 입니다.",
    "lse_unscaled": "P 를 되살릴 때 점수에 스케일을 빠뜨렸습니다: S = QKᵀ/√d_k.",
    "lse_overflow": "P 를 e^S / e^lse 로 나눠 구해, 점수가 큰 행에서 두 지수가 넘쳤습니다 "
                    "(inf/inf = NaN). P = e^(S − lse) 로 뺄셈을 먼저 하세요.",
    # the online softmax
    "online_no_rescale_l": "최댓값이 바뀔 때 ℓ 에 재조정 배수 e^(s_max^(k−1) − s_max^(k)) 를 "
                           "곱하지 않았습니다 (k 는 블록의 번호).",
    "online_no_rescale_acc": "최댓값이 바뀔 때 가중합 acc 에 재조정 배수 "
                             "e^(s_max^(k−1) − s_max^(k)) 를 곱하지 않았습니다 (k 는 블록의 번호).",
    "online_no_rescale_both": "최댓값이 바뀔 때 ℓ 과 acc 어느 쪽에도 재조정 배수 "
                              "e^(s_max^(k−1) − s_max^(k)) 를 곱하지 않았습니다 (s_max 를 "
                              "새 값으로 바꾼 뒤에 배수를 구하면 두 값이 같아 배수가 늘 1 "
                              "입니다).",
    "online_no_max": "최댓값을 빼지 않아 e^S 가 넘쳤습니다. 지금까지 본 최댓값 s_max 를 "
                     "기준점으로 쓰세요.",
    "online_zero_start": "s_max 를 0 에서 시작했습니다. 점수가 모두 −800 근처인 행에서는 "
                         "기준점이 0 에 머물러 e^(−800) = 0 으로 잘리고 ℓ = 0 이라 0/0 = NaN "
                         "입니다. s_max 는 −inf 에서 시작하세요.",
    "online_lse": "lse 에 s_max 를 더하지 않았습니다: lse = s_max + log ℓ.",
    "online_no_normalize": "마지막에 acc 를 ℓ 로 나누지 않았습니다: O = acc / ℓ.",
    "online_alpha_division": "재조정 배수를 두 지수의 나눗셈 e^(s_max^(k−1)) / e^(s_max^(k)) 로 "
                             "구해, 점수가 큰 행에서 두 지수가 넘쳤습니다 (inf/inf = NaN). 지수 "
                             "안에서 먼저 빼세요: e^(s_max^(k−1) − s_max^(k)).",
    "online_lse_overflow": "lse 를 log(ℓ · e^(s_max)) 로 구해, 점수가 큰 행에서 e^(s_max) 가 "
                           "넘쳤습니다. 로그 밖에서 더하세요: lse = s_max + log ℓ.",
    "tail_block": "블록 크기가 n 이나 m 을 나누지 않을 때 마지막의 짧은 블록을 빠뜨렸습니다. "
                  "range(0, m, block_k) 로 돌고 K[..., j:j+block_k, :] 처럼 자르면 마지막 블록은 "
                  "저절로 짧아집니다 (질의 블록도 같습니다).",
    "causal_missing": "인과 마스크를 걸지 않았습니다. 질의 i 는 키 j ≤ i 만 봅니다.",
    "causal_diagonal_unmasked": "통째로 가린 블록은 바르게 건너뛰었지만, 대각선이 지나는 블록 "
                                "안에서 가린 자리 (j > i) 의 P 를 0 으로 두지 않았습니다. "
                                "역전파가 e^(S − lse) 로 되살린 점수에도 마스크를 다시 "
                                "거세요.",
    "causal_lower_right": "인과 마스크를 오른쪽 아래에 맞췄습니다 (질의 n 개, 키 m 개에서 "
                          "j ≤ i + m − n; flash-attention 식). 여기서는 SDPA 의 is_causal 처럼 "
                          "왼쪽 위 (j ≤ i) 입니다.",
    "causal_strict": "대각선까지 가렸습니다. 질의 i 는 자기 자리 j = i 를 봅니다 (j ≤ i).",
    # the blockwise backward
    "block_r": "r 을 블록 안에서만 더했습니다. r_i 는 행 전체의 합이라 블록 하나로는 구할 수 "
               "없습니다. 루프 전에 r = rowsum(G ⊙ O) 로 구해 두세요.",
    "block_overwrite": "dQ, dK, dV 에 블록의 몫을 더하지 않고 덮어썼습니다 (dQ[I] = … 대신 "
                       "dQ[I] += …; dK, dV 도 같습니다).",
    "block_overwrite_dq": "dQ 에 블록의 몫을 더하지 않고 덮어썼습니다 (dQ[I] = … 대신 "
                          "dQ[I] += …). 질의 블록 I 는 키 블록마다 몫을 받습니다.",
    "block_overwrite_dkdv": "dK 와 dV 에 블록의 몫을 더하지 않고 덮어썼습니다 (dK[J] = … 대신 "
                            "dK[J] += …, dV 도 같습니다). 키 블록 J 는 질의 블록마다 몫을 "
                            "받습니다.",
    "block_overwrite_dk": "dK 에 블록의 몫을 더하지 않고 덮어썼습니다 (dK[J] = … 대신 "
                          "dK[J] += …). 키 블록 J 는 질의 블록마다 몫을 받습니다.",
    "block_softmax": "블록 안에서 softmax 를 다시 했습니다. 블록의 P 는 행 전체의 lse 로 "
                     "되살립니다: P_IJ = e^(S_IJ − lse_I).",
    "block_skip_partial": "일부만 가린 블록까지 건너뛰었습니다. 블록이 통째로 가려진 것은 그 "
                          "블록의 가장 작은 키 번호 j0 가 블록의 마지막 질의 번호보다 클 "
                          "때뿐입니다. 블록의 첫 질의 번호와 비교하면 대각선이 지나는 블록까지 "
                          "건너뜁니다.",
}
