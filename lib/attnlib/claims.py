"""The numbers the two source articles print as results, and their sentences the book tests,
as the ledger checks them.  Where the prose re-prints a number of a code comment or a table
with fewer digits (article 000's 「0.307」 for the comment's 0.3066), the rounding is not
compared again; article 000's roundings are listed as ``unchecked`` (``04_experiment/table``,
``02_collapse/prose_*``, ``04_experiment/prose_end``), so a reader who looks for a printed
number finds it.

Article ``"000"`` is 「√d_k는 어디서 나왔나: 내적의 분산 계산」, article ``"002"`` is
「어텐션의 그래디언트: softmax 야코비안이 분포에 따라 하는 일」.  Each entry names
where the article states the number, what it is, the number (or numbers) exactly as
printed, and how the book treats it:

- ``exact``: a chapter reproduces it to the printed digits through ``ledger.claim``;
- ``shape``: the article gives no seed, so a chapter computes the same quantity with
  its own seed and ``note`` says what differs;
- ``erratum``: the book's computation disagrees; ``note`` says why.  Where the article printed
  a number, a chapter checks it with ``ledger.claim`` (the two must differ); where it said it in
  words (「10⁻⁶ 아래」), ``expected`` quotes the words in 「」 and the chapter holds the
  contradiction it computes with ``ledger.holds(key, ok, shown)``;
- ``roundoff``: a residue at the level of floating-point round-off (a row sum that is 0 in
  exact arithmetic, the gap between two orders of summation, a gradient check's error).
  Its last digits depend on the order in which the CPU's BLAS and SIMD kernels add (a gradient
  check's error also holds the central difference's O(h²) truncation, which is math, not
  round-off: the chapter measures that part apart), so a chapter checks it against ``bound``: every value it computes, and the
  article's own, must stay below it; ``note`` says what the bound means;
- ``qualified``: the article's sentence holds only under a condition it does not state; the
  chapter says where it holds and where not, computes both, and holds the entry with
  ``ledger.holds(key, ok, shown)`` (marked △, never ✔); ``note`` states the condition;
- ``confirmed``: a sentence of the article with no number to compare (a cause, a "survives");
  a chapter computes where it holds and holds it with ``ledger.holds(key, ok, shown)`` (✔);
  ``note`` says what the chapter measures;
- ``unchecked``: nothing to compute (a definition, a rounding of another entry, a
  number with no stated inputs); ``note`` says what the book shows instead.

The key's prefix is the stem of the chapter that checks it.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ArticleClaim", "CLAIMS"]


@dataclass(frozen=True)
class ArticleClaim:
    key: str
    article: str
    where: str
    text: str
    expected: tuple[str, ...]
    status: str = "exact"
    note: str = ""
    bound: float | None = None  # for status "roundoff": every |value| stays below it


def _c(key, article, where, text, *expected, status="exact", note="", bound=None):
    return ArticleClaim(key, article, where, text, tuple(expected), status, note, bound)


_A, _B = "000", "002"
_MC = "본문 표 · 코드 ①"
_SIX = "§스케일이 커지면 — 본문"
_TAB = "§그래서 기울기가 죽는다 — 표"
_C3 = "코드 ③ 주석"
_EXP = "§실험 — 표"
_C4 = "코드 ④ 주석"

_LIST = [
    # ---------------------------------------------------------------- article 000
    _c("01_variance/std_8", _A, _MC, "d_k=8, 20,000표본의 표준편차", "2.829"),
    _c("01_variance/std_64", _A, _MC, "d_k=64의 표준편차", "7.964"),
    _c("01_variance/std_128", _A, _MC, "d_k=128의 표준편차", "11.397"),
    _c("01_variance/std_512", _A, _MC, "d_k=512의 표준편차", "22.669"),
    _c("01_variance/means", _A, "코드 ① 주석", "네 d_k의 표본 평균",
       "+0.012", "-0.061", "+0.029", "+0.198"),
    _c("01_variance/sqrt_dk", _A, _MC, "√d_k 열", "2.828", "8.000", "11.314", "22.627"),
    _c("02_collapse/scaled_scores", _A, _SIX, "여섯 점수를 8로 나눈 값 (셋째 자리)",
       "0.198", "0.069", "0.536", "-0.087", "-1.088", "-1.138",
       note="글의 점수는 셋째 자리까지 적힌 십진수라 −9.108/8 은 정확히 −1.1385, 셋째 자리에서 반이 걸린다. "
            "반을 짝수 쪽으로 보내면 글의 −1.138, 0 에서 먼 쪽이면 −1.139 로, 반올림 규칙의 차이일 뿐 오류가 "
            "아니다. 장은 십진 몫을 짝수 쪽으로 반올림해 맞댄다. 부동소수점 몫(−1.13850000000000007)을 그대로 "
            "찍으면 −1.139 가 나오는 것은 −9.108 이 이진수로 정확히 적히지 않기 때문이다"),
    _c("02_collapse/max_p_scaled", _A, "코드 ② 주석", "나눈 쪽의 최대 확률", "0.3066"),
    _c("02_collapse/max_p_raw", _A, "코드 ② 주석", "나누지 않은 쪽의 최대 확률", "0.9109"),
    _c("02_collapse/entropy_scaled", _A, "코드 ② 주석", "나눈 쪽의 엔트로피", "1.6426"),
    _c("02_collapse/entropy_raw", _A, "코드 ② 주석", "나누지 않은 쪽의 엔트로피", "0.3710"),
    _c("02_collapse/jac_scaled", _A, "코드 ② 주석", "나눈 쪽의 야코비안 최대 성분", "0.212595"),
    _c("02_collapse/jac_raw", _A, "코드 ② 주석", "나누지 않은 쪽의 야코비안 최대 성분",
       "0.081198"),
    _c("02_collapse/log6", _A, "코드 ② 주석", "균등 분포의 엔트로피 log 6", "1.7918"),
    _c("02_collapse/prose_max_p", _A, _SIX, "최대 확률, 본문의 셋째 자리 (나눈 쪽, 안 나눈 쪽)",
       "0.307", "0.911", status="unchecked",
       note="코드 ② 주석의 0.3066, 0.9109 를 셋째 자리로 반올림한 것; 장은 넷째 자리를 확인한다 "
            "(max_p_scaled, max_p_raw)"),
    _c("02_collapse/prose_entropy", _A, "§스케일이 커지면 — 본문 · 정리",
       "엔트로피, 본문과 정리의 셋째 자리 (나눈 쪽, 안 나눈 쪽)", "1.643", "0.371",
       status="unchecked",
       note="코드 ② 주석의 1.6426, 0.3710 을 셋째 자리로 반올림한 것; 장은 넷째 자리를 확인한다 "
            "(entropy_scaled, entropy_raw)"),
    _c("02_collapse/prose_log6", _A, _SIX, "균등 분포의 엔트로피 log 6, 본문의 셋째 자리", "1.792",
       status="unchecked",
       note="코드 ② 주석의 1.7918 을 셋째 자리로 반올림한 것; 장은 넷째 자리를 확인한다 (log6)"),
    _c("02_collapse/gap_scaled", _A, _SIX, "1등과 5등 점수 차 (나눈 쪽)", "1.62"),
    _c("02_collapse/gap_raw", _A, _SIX, "1등과 5등 점수 차 (안 나눈 쪽)", "12.99"),
    _c("02_collapse/ratio_raw", _A, _SIX, "e^12.99, 1등과 5등 확률의 비", "44만"),
    _c("02_collapse/tail_raw", _A, _SIX, "안 나눈 쪽 5·6번째 확률이 10⁻⁶ 아래",
       "「10⁻⁶ 아래」", status="erratum",
       note="두 확률은 2.1·10⁻⁶ 과 1.4·10⁻⁶ 으로 10⁻⁶ 보다 조금 크다; '10⁻⁶ 아래'는 틀린 말이고 "
            "'10⁻⁵ 아래'가 맞다"),
    _c("03_jacobian/x1", _A, _C3, "×1 의 최대 p, 엔트로피, 최대 |J|", "0.306596", "1.6426", "2.126e-01"),
    _c("03_jacobian/x2", _A, _C3, "×2 의 최대 p, 엔트로피, 최대 |J|", "0.441677", "1.3971", "2.466e-01"),
    _c("03_jacobian/x4", _A, _C3, "×4 의 최대 p, 엔트로피, 최대 |J|", "0.666979", "0.9807", "2.221e-01"),
    _c("03_jacobian/x8", _A, _C3, "×8 의 최대 p, 엔트로피, 최대 |J|", "0.910855", "0.3710", "8.120e-02"),
    _c("03_jacobian/x16", _A, _C3, "×16 의 최대 p, 엔트로피, 최대 |J|", "0.994908", "0.0340", "5.066e-03"),
    _c("03_jacobian/x32", _A, _C3, "×32 의 최대 p, 엔트로피, 최대 |J|", "0.999979", "0.0002", "2.057e-05"),
    _c("03_jacobian/table_x1", _A, _TAB, "표 ×1 행", "0.3066", "1.643", "0.2126"),
    _c("03_jacobian/table_x2", _A, _TAB, "표 ×2 행", "0.4417", "1.397", "0.2466"),
    _c("03_jacobian/table_x2.52", _A, _TAB, "표 ×2.52 행", "0.5063", "1.280", "0.2500"),
    _c("03_jacobian/table_x4", _A, _TAB, "표 ×4 행", "0.6670", "0.981", "0.2221"),
    _c("03_jacobian/table_x8", _A, _TAB, "표 ×8 행", "0.9109", "0.371", "0.0812"),
    _c("03_jacobian/table_x16", _A, _TAB, "표 ×16 행", "0.9949", "0.034", "0.0051"),
    _c("03_jacobian/table_x32", _A, _TAB, "표 ×32 행", "0.99998", "0.0002", "0.0000206"),
    _c("03_jacobian/peak_value", _A, "§그래서 기울기가 죽는다 — 본문",
       "야코비안 최대 성분이 가장 클 때의 가장 큰 확률, 그 최댓값 = max p(1−p)", "0.5", "0.25"),
    _c("03_jacobian/x16_text", _A, "본문", "배수 16의 야코비안 (≈0.005)", "0.005"),
    _c("03_jacobian/x32_text", _A, "본문", "배수 32의 야코비안 「32면 10⁻⁵」 (어림값)", "10⁻⁵",
       status="shape",
       note="글은 자릿수만 적는다(「32면 10⁻⁵ 입니다」). 장은 같은 양 2.06·10⁻⁵ 를 계산하고 "
            "자릿수가 10⁻⁵ 인지를 본다; 표의 ×32 행(0.0000206)은 table_x32 가 자릿수까지 확인한다"),
    _c("03_jacobian/dk512_multiplier", _A, "본문", "d_k=512를 나누지 않은 배수", "22.6"),
    _c("03_jacobian/dk512_past_table", _A, "§그래서 기울기가 죽는다 — 본문",
       "배수 22.6 이 표의 오른쪽 끝(×32)보다 더 간다", "「표의 오른쪽 끝보다 더 갑니다」",
       status="erratum",
       note="표의 오른쪽 끝은 ×32 이고 22.6 은 ×16 과 ×32 사이라, 그보다 작은 배수는 여섯 개다. 그 배수의 "
            "최대 |J| 도 표의 ×16 값과 ×32 값 사이에 있다. 야코비안이 거의 닫혀 있다는 글의 결론은 그대로이고, "
            "틀린 것은 '표 너머'라는 위치다"),
    _c("04_experiment/scaled_t0", _A, _C4, "나눈 것 t=0 의 손실, p₄, 최대 p, ‖∂L/∂q‖",
       "1.6703", "0.0868", "0.2085", "7.75e-01"),
    _c("04_experiment/scaled_t10", _A, _C4, "나눈 것 t=10", "0.7344", "0.1607", "0.4585", "2.67e-01"),
    _c("04_experiment/scaled_t50", _A, _C4, "나눈 것 t=50", "0.0250", "0.8520", "0.8520", "4.38e-02"),
    _c("04_experiment/scaled_t100", _A, _C4, "나눈 것 t=100", "0.0080", "0.9180", "0.9180", "1.51e-02"),
    _c("04_experiment/scaled_t399", _A, _C4, "나눈 것 t=399", "0.0014", "0.9661", "0.9661", "2.84e-03"),
    _c("04_experiment/raw_t0", _A, _C4, "안 나눈 것 t=0", "1.5965", "0.0006", "0.6939", "2.49e+00"),
    _c("04_experiment/raw_t10", _A, _C4, "안 나눈 것 t=10", "5.9063", "0.0000", "0.9508", "6.43e+00"),
    _c("04_experiment/raw_t50", _A, _C4, "안 나눈 것 t=50", "1.8931", "0.0000", "1.0000", "4.17e-09"),
    _c("04_experiment/raw_t100", _A, _C4, "안 나눈 것 t=100", "1.8931", "0.0000", "1.0000", "4.17e-09"),
    _c("04_experiment/raw_t399", _A, _C4, "안 나눈 것 t=399", "1.8931", "0.0000", "1.0000", "4.17e-09"),
    _c("04_experiment/table", _A, _EXP,
       "본문 표 (세 자리로 반올림한 손실/p₄/기울기: 1.670/0.087/7.8e−1 …)", "—",
       status="unchecked", note="코드 ④의 출력을 세 자리로 반올림한 것; 위의 열 줄이 그 출력을 확인한다"),
    _c("04_experiment/prose_end", _A, "§실험 — 본문과 정리",
       "본문이 다시 적은 값: 나눈 쪽 400걸음째 목표 자리의 확률, 안 나눈 쪽이 멈춘 자리의 최대 확률과 "
       "기울기 크기", "0.966", "1.0", "4.2e-9", status="unchecked",
       note="코드 ④ 주석의 0.9661, 1.0000, 4.17e-09 를 줄여 적은 것; 위의 열 줄(scaled_t399, raw_t50 "
            "…)이 그 출력을 확인한다"),
    _c("04_experiment/frozen_digits", _A, "§실험 — 본문",
       "400걸음째까지 손실의 소수점 여섯 자리가 그대로",
       "「400걸음째까지 손실의 소수점 여섯 자리가 그대로입니다」", status="confirmed",
       note="글은 비교할 수를 찍지 않고 말로 적었다. 장은 같은 순수 파이썬 실행을 걸음마다 기록해 "
            "얼어붙는 걸음 11 부터 399 까지 모든 걸음의 손실을 소수 여섯째 자리로 찍어 하나의 값임을 "
            "본다(그 사이 손실은 float64 간격 다섯 개에서 스무 개 사이만큼 줄어들 뿐이다, update_vanished)"),
    _c("04_experiment/freeze_text", _A, "§실험 — 본문과 요약",
       "스케일링을 뺀 쪽은 50걸음쯤(50걸음 만에) 손실 1.893에 얼어붙는다",
       "「50걸음쯤에서 손실 1.893에 얼어붙고」", status="erratum",
       note="걸음마다 기록하면 얼어붙는 것은 걸음 11 이다(기울기 < 10⁻⁶, 최대 p > 1 − 10⁻⁹ 가 처음 "
            "되는 걸음). 50 은 보고한 걸음(0, 10, 50, 100, 399) 가운데 얼어붙은 모습이 처음 "
            "보이는 걸음일 뿐이다; 손실 1.893 과 얼어붙는다는 것 자체는 맞다"),
    _c("04_experiment/updates_ended", _A, "§코드 ④ 해설",
       "계산은 400걸음 내내 돌았지만 갱신은 50걸음에서 끝났다",
       "「갱신은 50걸음에서 끝났습니다」", status="erratum",
       note="두 번 틀린다. 얼어붙는 것은 걸음 11 이고, 갱신은 끝나지 않는다: q 는 매 걸음 "
            "η‖g‖ ≈ 2·10⁻⁹ 씩 움직이고 손실은 걸음 50 에서 399 까지 float64 간격 다섯 개에서 "
            "스무 개 사이만큼 더 줄어든다(update_vanished). 네 자리까지 같다는 글의 말은 맞다"),
    _c("04_experiment/no_way_out", _A, "§실험 — 본문",
       "한 번 잘못 뾰족해지면 빠져나올 길이 없다는 것이 이 실험이 보여 주는 전부",
       "「한 번 잘못 뾰족해지면 빠져나올 길이 없다」", status="qualified",
       note="목표 자리의 확률까지 꺼졌을 때의 말로만 맞다. 글의 시드 11 은 걸음 11 에 p_4 가 10⁻¹² 아래로 "
            "꺼진 뒤 남은 389걸음 동안 그 아래에 머문다. 시드 0–9 와 11 에서 p_4 가 한 번 10⁻⁸ 아래로 간 "
            "여섯 실행은 모두 남은 걸음 내내 10⁻⁸ 아래다(관찰; 10⁻⁸ 도 4장이 말하듯 이 열 시드를 보고 고른 "
            "값이다). 시드 11 에서 점수 차의 한 걸음 변화를 항마다 나눠 보면 멈추는 까닭은 p_4 가 아니라 확률이 몰린 틀린 자리 c 의 "
            "1 − p_c 다: ‖∂L/∂s‖ = ‖Jᵀu‖ 는 "
            "2(1 − p_c)‖u‖ 에 묶여, 1 − p_c 가 꺼지면 목표 자리를 포함한 모든 점수가 멈춘다(p_4 ≤ "
            "1 − p_c 라 p_4 도 함께 꺼진다). 시드 11 의 얼어붙은 걸음 11 … 399 에서 s_4 − s_c 는 걸음마다 "
            "10⁻⁸ 대만 좁혀지고, 그 대부분이 ∂L/∂s_c 를 거친 항이며 p_4 에 비례하는 ∂L/∂s_4 의 항은 "
            "천 배 넘게 작다(4장이 항마다 나눠 잰다). 틀린 자리로 뾰족해진 것만으로는 갇히지 않는다: "
            "걸음 0 에 틀린 자리로 최대 p > 0.99 였던 시드 4, 9 는 빠져나왔다"),
    _c("04_experiment/update_vanished", _A, "§실험 — 본문",
       "기울기 4.2·10⁻⁹ 이니 float64 에서도 갱신량이 사라졌다 (그 뒤로 한 번도 움직이지 않는다)",
       "「float64에서도 갱신량이 사라진 것」", status="erratum",
       note="손실은 쌓아 가는 값이 아니라 걸음마다 q 에서 다시 계산된다. q 는 한 걸음에 "
            "η‖g‖ ≈ 2·10⁻⁹ 씩 움직이고(q 성분의 float64 간격은 10⁻¹⁶ 대), 손실은 걸음 50 에서 399 "
            "까지 1차 예측 Σ η‖g‖² ≈ 3·10⁻¹⁵, float64 간격 다섯 개에서 스무 개 사이만큼 더 줄어든다. 갱신이 "
            "사라진 것이 아니라 기울기가 너무 작아 학습이 사실상 멈춘 것이다; 소수점 여섯 자리가 "
            "그대로라는 글의 말(frozen_digits)은 맞다"),
    _c("04_experiment/gradcheck_ds", _A, "코드 뒤 본문", "ds 줄의 기울기 검사 최대 상대오차",
       "1.1e-10", status="roundoff", bound=1e-9,
       note="글은 ④ 의 ds 줄을 검사했다고만 하고, ④ 가 돌리는 두 쪽(나눈 쪽, 안 나눈 쪽) 가운데 "
            "어느 쪽인지, 검사의 점(q, 스텝)과 h 를 밝히지 않는다. 장은 나눈 쪽을 t=0 의 q 에서 h=1e-5 로 "
            "잰다: 중심차분의 오차는 절단 몫(h² 에 비례, 이 점에서 10⁻¹¹ 대)과 반올림 몫(ε/h)을 더한 "
            "것이고 반올림 몫의 끝자리가 CPU 의 합산 순서를 따르므로, "
            "장의 값과 글의 값이 같은 한계 10⁻⁹ 아래인지를 본다 — 식이 틀리면 오차는 10⁻² 보다 크다. 안 "
            "나눈 쪽은 같은 점에서 10⁻⁸ 을 넘으니(확률이 아주 작은 자리의 성분) 글의 수는 적어도 이 점의 "
            "안 나눈 쪽에서 잰 것일 수 없다"),
    _c("05_devices/ln_assumption", _A, "§q·k의 분산 · §초기화·LayerNorm — 본문",
       "LayerNorm 을 지난 벡터는 계산의 가정(성분이 독립, 평균 0·분산 1)을 더 잘 만족한다; "
       "LayerNorm 이 만들어 주는 조건이 이 계산의 가정을 성립시킨다",
       "「LayerNorm이 만들어 주는 조건이 오히려 이 계산의 가정을 성립시킵니다」",
       status="qualified",
       note="근사로만 맞다. LayerNorm 은 벡터 하나 안의 평균 0, 제곱 평균 1 만 맞추고 성분을 "
            "음의 상관 −1/(d−1) 로 묶는다. 성분이 독립·동분포인 입력에서 두 출력의 내적은 분산이 "
            "d 가 아니라 d²/(d−1) 이다(d = 16 에서 17.07). 분산이 d 를 따라 커진다는 결론은 그대로다"),
    _c("05_devices/init_not_kept", _A, "§초기화·LayerNorm — 본문",
       "초기화로 맞춘 분산은 학습 중에 지켜지지 않지만, 1/√d_k 는 매 순전파에서 다시 적용되는 "
       "상수라 그 문제가 없다",
       "「1/√d_k 는 매 순전파에서 다시 적용되는 상수이므로 그 문제가 없습니다」",
       status="qualified",
       note="글이 첫 절에서 밝힌 목적(「정확한 정규화가 목적이 아니라 차원에 따라 스케일이 통째로 어긋나는 "
            "것을 막는 것이 목적이기 때문입니다」)으로 읽을 때만 맞다. 그 문제를 바로 앞 문장 그대로, 곧 "
            "맞춘 분산이 학습 중에 지켜지지 않는 것으로 읽으면 맞지 않는다: 1/√d_k 모델의 점수 분산도 같은 "
            "학습률에서 1 에 머물지 않는다(300걸음에 0.97 → 6.34). 상수를 초기화로 옮긴 모델과 견주는 "
            "뜻으로는 맞다: 경사하강법에서 초기화 모델은 학습률이 √d_k 배인 1/√d_k 모델과 궤적이 "
            "같아(d_k = 16, 64, 256 에서 상대 1e-9 안), 옮기면 같은 학습률이 √d_k 배 세게 작용한다"
            "(초기화로 지운 d_k 가 학습률로 돌아온다). 두 모델 사이의 비교이고, 1/√d_k 모델의 학습이 "
            "d_k 와 무관하다는 말은 아니다. 이 실험(d_k 두 값, d_model 도 함께 바뀜, 시드 하나)에서 "
            "100걸음 뒤의 Var(S) 는 두 모델 모두 d_k 를 따라 달라졌다(d_k = 64 → 256 에서 초기화 "
            "모델 8.80 → 17.35, 1/√d_k 모델 4.94 → 1.70). 두 모델의 차이는 d_k 에 무관한가가 아니라 "
            "같은 학습률이 얼마나 세게 작용하는가다"),
    _c("05_devices/init_factor", _A, "§초기화·LayerNorm — 본문",
       "W_Q, W_K 의 분산을 1/⁴√d_k 배 줄이면 초기 점수 분산이 1",
       "「초기 점수의 분산은 1이 됩니다」", status="erratum",
       note="분산을 1/⁴√d_k 배 줄이면 점수 분산은 d_k/√d_k = √d_k 가 된다; 1로 만들려면 "
            "표준편차를 1/⁴√d_k 배 (분산을 1/√d_k 배) 줄여야 한다"),
    # ---------------------------------------------------------------- article 002
    _c("07_batch_heads/head_vs_2d", _B, "§배치와 헤드 축 — 코드 주석",
       "헤드 하나를 2차원으로 다시 계산한 dQ와의 최대 차이", "2.220446049250313e-16",
       status="roundoff", bound=1e-14,
       note="글의 값은 2⁻⁵², 곧 1 근처 float64 의 간격 하나다. 마지막 자리는 두 계산이 더하는 "
            "순서(CPU 의 BLAS 커널, SIMD 폭)를 따르므로 자리 대신 한계로 본다: 10⁻¹⁴ 는 크기 1 "
            "안팎의 값에서 반올림 수십 번이고, 식이 틀리면 차이는 10⁻² 를 넘는다"),
    _c("07_batch_heads/row_sums", _B, "§배치와 헤드 축 — 코드 주석",
       "Δ 행 합의 최대 절댓값", "5.551115123125783e-16", status="roundoff", bound=1e-14,
       note="정확한 산술에서는 0 이다(12장). 글의 값은 2⁻⁵³ 의 다섯 배, 반올림 몇 번 크기이고 "
            "마지막 자리는 NumPy 의 합산 순서(CPU 의 SIMD 폭, BLAS 커널, 버전)를 따른다 — "
            "기계에 따라 5.55·10⁻¹⁶, 5.83·10⁻¹⁶ 등으로 찍힌다. 그래서 10⁻¹⁴ 아래인지를 본다"),
    _c("08_row_rule/jacobian_numbers", _B, "§야코비안의 크기", "1024³", "1073741824"),
    _c("08_row_rule/jacobian_gb", _B, "§야코비안의 크기", "float32 야코비안 (GB)", "4.29"),
    _c("08_row_rule/row_rule_mb", _B, "§야코비안의 크기", "행별 규칙 (MB)", "4.19"),
    _c("08_row_rule/ratio", _B, "§야코비안의 크기", "두 크기의 비 (= m)", "1024"),
    _c("09_masks/fp32_underflow", _B, "§마스크와 Δ",
       "float32의 e^x 가 0으로 잘리는 x (대략 −104)", "-104", status="shape",
       note="글은 '대략'이라 한다; 장은 float32/float64 각각의 정확한 문턱을 계산한다"),
    _c("09_masks/exp_minus10", _B, "§마스크와 Δ", "e⁻¹⁰", "4.5e-5"),
    _c("09_masks/leak_inf", _B, "§마스크 값 비교 — 코드 주석",
       "−inf 로 가린 자리의 max P, max |Δ|", "0.00e+00", "0.00e+00"),
    _c("09_masks/leak_1e9", _B, "§마스크 값 비교 — 코드 주석",
       "−1e9 로 가린 자리의 max P, max |Δ|", "0.00e+00", "0.00e+00"),
    _c("09_masks/leak_10", _B, "§마스크 값 비교 — 코드 주석",
       "−10 으로 가린 자리의 max P, max |Δ|", "3.21e-05", "6.25e-05"),
    _c("09_masks/leak_channel", _B, "§마스크 값 비교 — 본문",
       "−10 이 흘린 Δ 가 미래 토큰의 점수를 움직이는 통로를 연다",
       "「작아 보여도 미래 토큰의 점수를 움직이는 법을 배우는 통로가 열린 것입니다」",
       status="qualified",
       note="글의 본문은 가릴 자리의 점수에 가리는 값을 더한다고 설명하고, 그 방식에서는 맞다: 가린 "
            "점수가 Q, K 에 이어져 있어 흘러나온 Δ 가 W_Q, W_K 에 닿는다. 그러나 이 문장이 붙은 글의 "
            "코드와 숫자(가린 자리의 최대 P 3.21e-5, 최대 |Δ| 6.25e-5)는 np.where 로 바꿔 넣은 것이고"
            "(PyTorch 의 masked_fill 과 같다), 그 경우 가린 점수는 Q, K 와 끊겨 있어 마스크 전 점수의 "
            "기울기가 정확히 0 이다(장의 torch 층, fill = −10). 글이 적지 않은 것은 더하기라는 조건 "
            "자체가 아니라, 본문과 코드가 다른 방식을 쓰고 문장은 그중 본문의 방식에서만 맞는다는 "
            "점이다"),
    _c("09_masks/nan_spreads", _B, "§마스크 값 비교 — 본문",
       "−inf 로 전부 가린 행의 NaN 이 가중치 전체로 번진다",
       "「한 번 섞이면 그 NaN이 가중치 전체로 번집니다」",
       status="confirmed",
       note="층 하나의 역전파에서 바꿔 넣은 마스크면 그 층의 ∂L/∂Q, ∂L/∂K 에는 NaN 이 가지 "
            "않지만, 자기 어텐션에서는 ∂L/∂X = dQ W_Qᵀ + dK W_Kᵀ + dV W_Vᵀ 가 dV 를 거쳐 NaN 이고 "
            "W_V 의 기울기도 NaN 이다. SGD 한 걸음 뒤 W_V 가 NaN 이 되고(W_Q, W_K 는 아직 유한) 다음 "
            "순전파의 출력은 모든 자리가 NaN 이며, 두 걸음 뒤에는 W_Q, W_K, W_V 의 모든 원소가 NaN "
            "이다(장의 torch 층으로 두 걸음을 밟아 잰다)"),
    _c("09_masks/full_row_1e9_P", _B, "§마스크 값 비교 — 코드 주석",
       "−1e9 로 전부 가린 행의 P", "0.25", "0.25", "0.25", "0.25"),
    _c("09_masks/full_row_1e9_delta", _B, "§마스크 값 비교 — 코드 주석",
       "−1e9 로 전부 가린 행의 Δ", "-0.2273", "-0.1822", "0.2589", "0.1506"),
    _c("11_dq_dk/double_scale_relerr", _B, "§기울기 검사 뒤 본문",
       "스케일을 두 번 곱했을 때 K 상대오차 |1−2|/(1+2)", "0.33"),
    _c("11_dq_dk/double_scale_dk64", _B, "§1/√d_k의 횟수",
       "d_k=64에서 버그 난 dK 가 작아지는 배수 (8분의 1)", "0.125"),
    _c("11_dq_dk/lr_eighth", _B, "§1/√d_k의 횟수",
       "스케일을 두 번 곱한 dK 는 K 쪽 학습률을 8분의 1로 줄인 것과 같다",
       "「K 쪽 학습률만 몰래 8분의 1로 줄인 것과 같은 효과입니다」",
       status="qualified",
       note="평범한 SGD 에서 K 쪽 매개변수의 갱신으로는 맞다: ∂L/∂K 는 방향이 같고(코사인 1) 크기만 "
            "1/√d_k 배이고, W_K 가 받는 X^T ∂L/∂K 도 그 상수배다. 「만」은 맞지 않다: K = XW_K 인 실제 층에서는 "
            "∂L/∂X = dQ W_Qᵀ + dK W_Kᵀ + dV W_Vᵀ 의 한 항만 작아져 아래로 가는 기울기의 방향이 "
            "바뀐다(n = 8, d = 64, 시드 20개: d_k = 64 에서 코사인 중앙값 0.90). Adam 처럼 "
            "기울기를 제 크기로 나누는 옵티마이저에서는 한 매개변수의 상수배가 거의 지워진다. "
            "장은 배수도 잰다: d_k = 64 의 잎 K 에서 버그의 기울기로 학습률 η 인 SGD 한 걸음이 참 "
            "기울기로 η/8 인 한 걸음과 상대 1e-13 안에서 같다"),
    _c("14_residual/identity_keeps", _B, "§항등 경로 — 본문 (§갇힌 경로의 표 첫 줄도)",
       "아래 층으로 가는 ∂L/∂x 는 잔차의 I 덕분에 블록을 쌓아도 밑바닥까지 간다",
       "「블록을 수십 개 쌓아도 밑바닥까지 신호가 갑니다」",
       status="confirmed",
       note="블록 하나는 잔차 없이도 V 길로 ∂L/∂x 를 낼 수 있다(장의 블록, α = 64: ‖∂L/∂x‖ > ‖G‖). "
            "글의 문장은 쌓은 스택에 대한 것이고, 장은 스택을 잰다(n = 8, d = 16, LayerNorm 없음, "
            "깊이 1, 6, 24, 시드 5개, α = 1 과 64): 잔차가 없으면 깊이 24 의 ‖∂L/∂x_0‖/‖G‖ 가 "
            "두 배수 모두 시드 사이에 두 자릿수 넘게 흩어지고 10⁻¹ 아래까지 내려간다. 잔차가 있으면 "
            "모든 깊이·시드·배수에서 1 위다(LayerNorm 이 없어 커지기는 한다)"),
    _c("12_row_sum/P", _B, "§작은 예제", "P",
       "0.3662", "0.3125", "0.3213", "0.4259", "0.2907", "0.2834"),
    _c("12_row_sum/U", _B, "§작은 예제", "U",
       "-1.2468", "-1.3538", "-0.9460", "0.0962", "0.0841", "0.3506"),
    _c("12_row_sum/r", _B, "§작은 예제", "r", "-1.1836", "0.1648"),
    _c("12_row_sum/delta", _B, "§작은 예제 · 코드", "Δ",
       "-0.0231", "-0.0532", "0.0763", "-0.0292", "-0.0235", "0.0527"),
    _c("12_row_sum/gradcheck", _B, "§작은 예제 본문", "기울기 검사 Q, K, V",
       "5.5e-10", "9.2e-10", "6.7e-11"),
    _c("13_peaked/norm_table", _B, "§V 쪽 경로 — 표",
       "배수 0.25, 1, 4, 8, 16, 32, 64 의 최대 P, ‖dQ‖, ‖dK‖, ‖dV‖ (n=4, m=8, d_k=16, d_v=8)",
       "0.176", "0.433", "0.493", "2.029", "0.385", "1.775", "1.740", "2.663",
       "0.943", "5.004", "4.801", "5.028", "0.998", "5.780", "5.412", "5.963",
       "1.000", "2.855", "2.568", "6.452", "1.000", "0.248", "0.221", "6.557",
       "1.000", "0.000848", "0.000756", "6.561",
       status="shape",
       note="글은 시드를 밝히지 않는다; 장은 같은 크기를 우리 시드로 재고 모양(α에 거의 비례해 "
            "오르다 봉우리, 64에서 여러 자릿수 붕괴, ‖dV‖ 는 α마다 자라 Q·K 가 무너진 32·64에서 셋 중 "
            "최대)을 확인한다. 글과 다른 점: 우리 시드에서는 봉우리 근처(4, 8, 16)에서 ‖dK‖ > ‖dV‖, "
            "봉우리가 8이 아니라 16, 배수 8의 최대 P 가 0.998 이 아니라 1.000. 300개 시드의 분포로 "
            "64에서의 붕괴 깊이가 시드마다 10⁻³ 아래부터 1 위까지 흩어지고 글의 8.5·10⁻⁴ 가 깊은 "
            "붕괴의 한 표본임을 보인다"),
    _c("13_peaked/log8", _B, "§엔트로피 감시", "log 8", "2.079"),
    _c("15_verify/O", _B, "§다섯 줄 backward — 코드 주석", "O",
       "0.5462", "-0.8613", "0.5583", "-0.8572"),
    _c("15_verify/P", _B, "§다섯 줄 backward — 코드 주석", "P",
       "0.3662", "0.3125", "0.3213", "0.4259", "0.2907", "0.2834"),
    _c("15_verify/delta", _B, "§다섯 줄 backward — 코드 주석", "dS",
       "-0.0231", "-0.0532", "0.0763", "-0.0292", "-0.0235", "0.0527"),
    _c("15_verify/row_sums", _B, "§다섯 줄 backward — 코드 주석", "행 합 (12자리 반올림)",
       "-0.0", "-0.0", status="roundoff", bound=1e-15,
       note="글의 -0.0 은 반올림 크기의 음수를 12자리에서 반올림한 것이다. 그 부호는 exp 와 "
            "합의 마지막 비트를 따르므로(기계의 수학 라이브러리에 따라 다를 수 있다) 부호 대신 "
            "|행 합| 이 10⁻¹⁵ 아래인지를 본다"),
    _c("15_verify/dQ", _B, "§다섯 줄 backward — 코드 주석", "dQ",
       "-0.0551", "-0.0139", "-0.0343", "0.0441", "-0.0455", "-0.0160", "-0.0293", "0.0378"),
    _c("15_verify/dV", _B, "§다섯 줄 backward — 코드 주석", "dV",
       "-0.6132", "0.0283", "-0.4811", "0.0655", "-0.4856", "0.0762"),
    _c("15_verify/shapes", _B, "§다섯 줄 backward — 코드 주석", "dQ, dK, dV 의 shape",
       "2", "4", "3", "4", "3", "2"),
    _c("15_verify/gradcheck", _B, "§기울기 검사 — 코드 주석", "기울기 검사 Q, K, V",
       "5.48e-10", "9.22e-10", "6.71e-11"),
    _c("15_verify/lse_P", _B, "§LSE와 r — 코드 주석", "되살린 P 와 저장한 P 의 최대 차이",
       "5.551115123125783e-17", status="roundoff", bound=1e-15,
       note="P ≤ 1 의 반올림 한두 번 크기(글: 2⁻⁵⁴). 마지막 자리는 NumPy 의 exp·합 구현(SIMD)을 "
            "따라 기계마다 다르다(1.1·10⁻¹⁶ 로도 찍힌다) — 10⁻¹⁵ 아래인지를 본다"),
    _c("15_verify/lse_delta", _B, "§LSE와 r — 코드 주석", "두 Δ 의 최대 차이",
       "2.220446049250313e-16", status="roundoff", bound=1e-14,
       note="U 의 크기가 10 안팎이라 반올림 한 번이 10⁻¹⁵ 대다(글: 2⁻⁵²). 마지막 자리는 기계마다 "
            "다르므로(4.4·10⁻¹⁶ 로도 찍힌다) 10⁻¹⁴ 아래인지를 본다"),
    _c("15_verify/stored", _B, "§LSE와 r — 코드 주석", "저장한 수 (P 와 lse)", "60", "6"),
]

CLAIMS: dict[str, ArticleClaim] = {c.key: c for c in _LIST}
if len(CLAIMS) != len(_LIST):  # pragma: no cover - a typo in the table above
    raise RuntimeError("attnlib.claims: duplicate key")
