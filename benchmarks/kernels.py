"""Sections 1–3: the backends side by side, the row rule against the Jacobian, LSE against P."""

from __future__ import annotations

from attnlib import measure


def backends(report, sizes, dtypes, rounds, budget_s, device="cpu"):
    """§1: attnlib.numpy and attnlib.torch's Function against torch autograd and SDPA."""
    results = {}
    for dtype in dtypes:
        for n in sizes:
            t = measure.backend_race(n, 64, dtype=dtype, rounds=rounds, budget_s=budget_s,
                                  device=device)
            results[f"{device}/{dtype}/{n}"] = t
            size = f"n=m={n} d=64 f{dtype[-2:]}" + ("" if device == "cpu" else f" {device}")
            if "numpy" in t:
                report.add("1", "numpy fwd+bwd / autograd", size, "np", t["numpy"],
                           "ag", t["autograd"], "ms")
                report.add("1", "numpy fwd+bwd / SDPA", size, "np", t["numpy"],
                           "sdpa", t["sdpa"], "ms")
                report.add("1", "numpy recompute-P / autograd", size, "np-rc",
                           t["numpy_recompute"], "ag", t["autograd"], "ms")
                report.add("1", "numpy LSE fwd+bwd / autograd", size, "np-lse", t["numpy_lse"],
                           "ag", t["autograd"], "ms")
            report.add("1", "torch Function / autograd", size, "fn", t["function"],
                       "ag", t["autograd"], "ms")
            report.add("1", "torch Function / SDPA", size, "fn", t["function"],
                       "sdpa", t["sdpa"], "ms")
    report.data.setdefault("backends", {}).update(results)
    return results


def row_rule(report, n, ms, rounds, fit_from=128):
    """§2: the softmax VJP by an explicit Jacobian against the row rule, as m grows."""
    rows = measure.row_rule_sweep(n, ms, rounds=rounds)
    for r in rows:
        size = f"n={n} m={r['m']}"
        report.add("2", "Jacobian VJP / row rule: time", size, "J", r["t_jacobian"],
                   "row", r["t_row"], "ms")
        report.add("2", "Jacobian VJP / row rule: peak mem", size, "J", r["mem_jacobian"],
                   "row", r["mem_row"], "MB")
    fit = [r for r in rows if r["m"] >= fit_from] or rows
    ms_fit = [r["m"] for r in fit]
    k_time = measure.growth_exponent(ms_fit, [r["t_jacobian"] / r["t_row"] for r in fit])
    k_mem = measure.growth_exponent(ms_fit, [r["mem_jacobian"] / r["mem_row"] for r in fit])
    last = rows[-1]
    extra = (last["mem_row"] - last["nm_bytes"]) / last["nm_bytes"]  # beyond its output Δ
    report.notes.append(
        f"§2 growth of the Jacobian/row-rule ratio with m (m ≥ {ms_fit[0]}): "
        f"time ∝ m^{k_time:.2f}, memory ∝ m^{k_mem:.2f} (the article: exactly m)")
    report.data["row_rule"] = {"rows": rows, "k_time": k_time, "k_mem": k_mem,
                               "row_extra_nm": extra}
    report.goal("row rule extra memory", "≤ one n×m array beyond its output Δ",
                f"{extra:.3f} n×m arrays (n={n}, m={last['m']})", extra <= 1.05)
    return rows


def lse(report, ns, device="cpu"):
    """§3: what the forward keeps for the backward and the backward's peak, saved P against LSE."""
    rows = measure.lse_sweep(ns)
    for r in rows:
        size = f"n=m={r['n']} d=64"
        report.add("3", "kept fwd→bwd: saved P / LSE (np)", size, "P", r["kept_saved_p"],
                   "lse", r["kept_lse"], "MB")
        report.add("3", "bwd peak: recompute P / LSE (np)", size, "P", r["peak_bwd_recompute"],
                   "lse", r["peak_bwd_lse"], "MB")
        if "peak_bwd_blockwise" in r:
            report.add("3", "bwd peak: LSE / blockwise LSE (np)", size, "lse", r["peak_bwd_lse"],
                       "blk", r["peak_bwd_blockwise"], "MB", note=f"blocks {r['block']}")
    # on CUDA the flash kernel takes fp16/bf16 only and the memory-efficient one no float64;
    # float64 would fall back to the math kernel, which saves P
    torch_dtype = "bfloat16" if str(device).startswith("cuda") else "float64"
    torch_rows = measure.torch_saved_sweep(ns, device=device, dtype=torch_dtype)
    for r in torch_rows:
        size = f"n=m={r['n']} d=64"
        report.add("3", "kept fwd→bwd: autograd / SDPA", size, "ag", r["saved_autograd"],
                   "sdpa", r["saved_sdpa"], "MB", note="torch saved tensors beyond Q,K,V")
        report.add("3", "kept fwd→bwd: Function / SDPA", size, "fn", r["saved_function"],
                   "sdpa", r["saved_sdpa"], "MB")
        if "cuda_peak_bwd_autograd" in r:
            report.add("3", "CUDA bwd peak: autograd / SDPA", size, "ag",
                       r["cuda_peak_bwd_autograd"], "sdpa", r["cuda_peak_bwd_sdpa"], "MB")
    ns_ = [r["n"] for r in rows]
    k_p = measure.growth_exponent(ns_, [r["kept_saved_p"] for r in rows])
    k_lse = measure.growth_exponent(ns_, [r["kept_lse"] for r in rows])
    report.notes.append(f"§3 growth with n = m of what the forward keeps: saved P ∝ n^{k_p:.2f}, "
                        f"LSE (O, lse) ∝ n^{k_lse:.2f}")
    last = rows[-1]
    bound = last["nd_bytes"] + last["n_bytes"]
    report.goal("LSE keeps O(n·d + n)", "kept ≤ (n·d + n) numbers beyond Q, K, V",
                f"{last['kept_lse'] / bound:.3f} × (n·d + n) at n=m={last['n']} "
                f"(saved P: {last['kept_saved_p'] / last['nm_bytes']:.3f} × n·m)",
                last["kept_lse"] <= 1.05 * bound)
    if "peak_bwd_blockwise" in last:
        outputs = 3 * last["nd_bytes"]
        extra = last["peak_bwd_blockwise"] - outputs
        report.goal("LSE backward peak O(n·d + n)", "blockwise bwd peak beyond dQ,dK,dV ≤ n·d + n",
                    f"{extra / bound:.3f} × (n·d + n) at n=m={last['n']} "
                    f"(unblocked: {last['peak_bwd_lse'] / last['nm_bytes']:.2f} × n·m)",
                    extra <= bound)
    report.data["lse"] = {"numpy": rows, "torch": torch_rows, "k_saved_p": k_p, "k_lse": k_lse}
    return rows


def goals_backends(report, results, n=1024):
    key = f"cpu/float64/{n}"
    if key not in results:
        report.goal("numpy fwd+bwd vs autograd", "≤ 1.3×", f"n=m={n} not measured", None)
        report.goal("torch Function vs autograd", "≤ 1.1×", f"n=m={n} not measured", None)
        return
    t = results[key]
    r_np = t["numpy"] / t["autograd"]
    r_fn = t["function"] / t["autograd"]
    report.goal("numpy fwd+bwd vs autograd", f"≤ 1.3× at n=m={n} d=64 f64",
                f"{r_np:.2f}× ({t['numpy'] * 1e3:.1f} ms / {t['autograd'] * 1e3:.1f} ms)",
                r_np <= 1.3)
    report.goal("torch Function vs autograd", f"≤ 1.1× at n=m={n} d=64 f64",
                f"{r_fn:.2f}× ({t['function'] * 1e3:.1f} ms / {t['autograd'] * 1e3:.1f} ms)",
                r_fn <= 1.1)

