"""One table of side-by-side ratios, the goals (MET / MISSED / SKIPPED) and the JSON record."""

from __future__ import annotations

import json
import os
import platform
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path


@dataclass
class Row:
    """One line of the table: ``a`` against ``b`` measured in the same run; ratio = a / b."""

    section: str
    what: str
    size: str
    a_name: str
    a: float
    b_name: str
    b: float
    unit: str  # "ms", "MB", "×n·m" ...
    note: str = ""

    @property
    def ratio(self) -> float | None:
        return self.a / self.b if self.b else None


@dataclass
class Goal:
    name: str
    target: str
    measured: str
    status: str  # MET, MISSED, SKIPPED
    why: str = ""


@dataclass
class Report:
    rows: list[Row] = field(default_factory=list)
    goals: list[Goal] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    data: dict = field(default_factory=dict)

    def add(self, *args, **kwargs) -> Row:
        row = Row(*args, **kwargs)
        self.rows.append(row)
        return row

    def goal(self, name, target, measured, ok, why="") -> Goal:
        status = "SKIPPED" if ok is None else ("MET" if ok else "MISSED")
        g = Goal(name, target, measured, status, why)
        self.goals.append(g)
        return g


def _fmt(x: float, unit: str) -> str:
    if unit == "ms":
        return f"{x * 1e3:9.2f} ms"
    if unit == "MB":
        return f"{x / 1e6:9.3f} MB"
    return f"{x:9.3g} {unit}"


def print_table(report: Report) -> None:
    """The table: every ratio a/b measured side by side in this run."""
    head = f"{'§':<3} {'measurement':<34} {'size':<18} {'A':<22} {'B':<22} {'A/B':>8}"
    print(head)
    print("-" * len(head))
    for r in report.rows:
        ratio = "—" if r.ratio is None else f"{r.ratio:8.3g}"
        a = f"{r.a_name} {_fmt(r.a, r.unit)}"
        b = f"{r.b_name} {_fmt(r.b, r.unit)}"
        print(f"{r.section:<3} {r.what:<34} {r.size:<18} {a:<22} {b:<22} {ratio:>8}"
              + (f"  {r.note}" if r.note else ""))
    print()
    print("Goals")
    for g in report.goals:
        why = f" — {g.why}" if g.why else ""
        print(f"  [{g.status:^7}] {g.name}: {g.measured} (goal {g.target}){why}")
    for note in report.notes:
        print(f"  note: {note}")


def machine() -> dict:
    import numpy as np
    import torch

    info = {"python": platform.python_version(), "numpy": np.__version__,
            "torch": torch.__version__, "cpus": os.cpu_count(),
            "torch_threads": torch.get_num_threads(), "cuda": torch.cuda.is_available(),
            "platform": platform.platform(), "time": time.strftime("%Y-%m-%dT%H:%M:%S")}
    if hasattr(os, "getloadavg"):
        info["loadavg"] = os.getloadavg()
    if info["cuda"]:
        info["gpu"] = torch.cuda.get_device_name()
    return info


def write_json(report: Report, out_dir: Path, extra: dict) -> Path:
    """``bench.json`` (the latest) and ``bench-<time>.json`` (kept for comparison) in out_dir."""
    out_dir.mkdir(parents=True, exist_ok=True)
    record = {"machine": machine(), **extra,
              "rows": [dict(asdict(r), ratio=r.ratio) for r in report.rows],
              "goals": [asdict(g) for g in report.goals], "notes": report.notes,
              "data": report.data}
    text = json.dumps(record, indent=1, ensure_ascii=False, default=float)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    (out_dir / f"bench-{stamp}.json").write_text(text, encoding="utf-8")
    latest = out_dir / "bench.json"
    latest.write_text(text, encoding="utf-8")
    return latest
