"""The browser report's table of first working sliders: the columns it prints and the count of
visits whose picture changed only after the page was parsed (browser_report.format_lines)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "browser_report_under_test", Path(__file__).with_name("browser_report.py"))
browser_report = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(browser_report)


def _report(first_slider: dict) -> list[str]:
    return browser_report.format_lines({
        "bytes": {}, "prefetched": {}, "first_slider": first_slider,
        "target_s": 0.5, "visits": 3, "workers": 1})


def test_first_slider_rows_and_the_after_parse_count():
    lines = _report({
        "a.html": (0.40, 0.42, 0.45, 0.60, [0.45, 0.44, 0.47], 0),
        "b.html": (0.70, 0.72, 1.10, 1.00, [1.10, 0.90, 1.20], 2),
    })
    rows = {ln.split()[0]: ln.split() for ln in lines if ln.endswith(")") and ".html" in ln}
    assert rows["a.html"][1:5] == ["0.400", "0.420", "0.450", "0.600"]
    assert "over" not in " ".join(rows["a.html"])
    assert rows["b.html"][5:8] == ["over", "the", "target"]
    assert lines[-1].startswith("1 of 2 pages over the 0.5 s target; in 2 of 6 visits")


def test_a_later_run_keeps_the_tables_it_did_not_measure_of_the_same_build():
    """make test times the first slider apart (make first-slider) from the other browser tests
    (make browser): each run adds its tables to the other's, for the same build only."""
    slider = {"a.html": (0.4, 0.42, 0.45, 0.6, [0.45], 0)}
    quiet = {"bytes": {}, "prefetched": {}, "first_slider": slider,
             "target_s": 0.5, "visits": 3, "workers": 1, "load": "4.1 2.0 1.0", "cpus": 2}
    browser = {"bytes": {"a.html": (1, 2, 3, 4)}, "prefetched": {"a.html": (1.0, True)},
               "first_slider": {}, "target_s": 0.5, "visits": 3, "workers": 3,
               "load": "9.9 9.9 9.9", "cpus": 2}
    first = browser_report.keep_earlier(quiet, {}, built=7)
    assert first["first_slider"] == slider and first["bytes"] == {} and first["workers"] == 1
    both = browser_report.keep_earlier(browser, first, built=7)
    assert both["first_slider"] == slider and both["bytes"] == browser["bytes"]
    assert both["workers"] == 1, "the benchmark's own run describes its table"
    assert any("load average at the end 4.1 2.0 1.0 on 2 CPUs" in line
               for line in browser_report.format_lines(both))
    # a new build: nothing of the earlier run is kept
    other = browser_report.keep_earlier(browser, first, built=8)
    assert other["first_slider"] == {} and other["bytes"] == browser["bytes"]
    # a table this run measured replaces the earlier one
    again = browser_report.keep_earlier({**quiet, "first_slider": {"b.html": slider["a.html"]}},
                                        both, built=7)
    assert list(again["first_slider"]) == ["b.html"] and again["bytes"] == browser["bytes"]


def test_the_machines_pace_is_printed_with_the_table_it_describes():
    """The fixed script's time before and after the visits (test_browser.machine_speed) is
    printed under the table, kept with it, and left out when a run did not read it."""
    slider = {"a.html": (0.4, 0.42, 0.45, 0.6, [0.45], 0)}
    run = {"bytes": {}, "prefetched": {}, "first_slider": slider, "target_s": 0.5,
           "visits": 3, "workers": 1, "speed_ms": [41.6, 55.2]}
    lines = browser_report.format_lines(browser_report.keep_earlier(run, {}, built=7))
    assert lines[-1] == ("the machine: a fixed script in a blank page took 42 ms before the"
                         " visits, 55 ms after them (median of 5; the same build's times move"
                         " with it)")
    later = {"bytes": {"a.html": (1, 2, 3, 4)}, "prefetched": {}, "first_slider": {},
             "target_s": 0.5, "visits": 3, "workers": 3, "speed_ms": []}
    kept = browser_report.keep_earlier(later, browser_report.keep_earlier(run, {}, built=7),
                                       built=7)
    assert kept["speed_ms"] == [41.6, 55.2], "the benchmark's own run describes its table"
    assert not any("the machine" in ln for ln in _report(slider))
