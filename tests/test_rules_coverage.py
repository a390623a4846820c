"""Rule coverage: every Monopoly rule ID in ../shared/RULES.md is cited by the engine code that implements it
and by a test (a pytest module or a scenario's "rules" list) that proves it.

A citation is the ID itself, a range (`M.BUILD.1-4` cites 1, 2, 3 and 4) or a slash list (`M.JAIL.3/5`).
Print the report with `python -m tests.test_rules_coverage`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT.parent / "shared" / "RULES.md"
CITE = re.compile(r"M\.([A-Z]+)\.(\d+)((?:-\d+)?)((?:/\d+)*)")


def rule_ids(text: str) -> list[str]:
    """The IDs defined in the Monopoly (M) section, in order."""
    section = text.split("## Monopoly (M)", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^- (M\.[A-Z]+\.\d+)\b", section, flags=re.M)


def cited(text: str) -> set[str]:
    out: set[str] = set()
    for area, first, rng, slashes in CITE.findall(text):
        lo = int(first)
        hi = int(rng[1:]) if rng else lo
        nums = set(range(lo, hi + 1)) | {int(s) for s in slashes.split("/") if s}
        out |= {f"M.{area}.{n}" for n in nums}
    return out


def _index(paths: list[Path]) -> dict[str, list[str]]:
    where: dict[str, list[str]] = {}
    for path in paths:
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".json":
            text = " ".join(json.loads(text).get("rules", []))  # a scenario proves what it lists
        for rule in cited(text):
            where.setdefault(rule, []).append(str(path.relative_to(ROOT)))
    return where


def coverage() -> list[tuple[str, list[str], list[str]]]:
    ids = rule_ids(RULES.read_text(encoding="utf-8"))
    code = _index(sorted((ROOT / "engine").glob("*.py")))
    modules = [p for p in sorted((ROOT / "tests").rglob("test_*.py")) if p.name != Path(__file__).name]
    tests = _index(modules + sorted((ROOT / "tests" / "scenarios").glob("*.json")))
    return [(rule, code.get(rule, []), tests.get(rule, [])) for rule in ids]


def report() -> str:
    lines = []
    for rule, code, tests in coverage():
        lines.append(f"{rule:12} code: {', '.join(code) or 'MISSING'}")
        lines.append(f"{'':12} tests: {len(tests)} ({', '.join(tests[:4])}{', ...' if len(tests) > 4 else ''})"
                     if tests else f"{'':12} tests: MISSING")
    return "\n".join(lines)


@pytest.fixture(scope="module")
def table() -> list[tuple[str, list[str], list[str]]]:
    if not RULES.exists():
        pytest.skip(f"{RULES} is absent (CI always has ../shared)")
    return coverage()


def test_the_citation_parser_reads_ranges_and_lists() -> None:
    assert cited("M.BUILD.1-4, M.JAIL.3/5 and M.BK.6") == {
        "M.BUILD.1", "M.BUILD.2", "M.BUILD.3", "M.BUILD.4", "M.JAIL.3", "M.JAIL.5", "M.BK.6"}
    assert "M.BUILD.1" not in cited("M.BUILD.10")


def test_rules_md_defines_the_monopoly_ids(table: list[tuple[str, list[str], list[str]]]) -> None:
    ids = [rule for rule, _, _ in table]
    assert len(ids) == len(set(ids)) >= 60
    assert {"M.BUILD.8", "M.BK.6", "M.END.5"} <= set(ids)


def test_every_rule_is_cited_by_code(table: list[tuple[str, list[str], list[str]]]) -> None:
    missing = [rule for rule, code, _ in table if not code]
    assert not missing, f"rules no engine module cites: {missing}\n{report()}"


def test_every_rule_is_proven_by_a_test(table: list[tuple[str, list[str], list[str]]]) -> None:
    missing = [rule for rule, _, tests in table if not tests]
    assert not missing, f"rules no test or scenario cites: {missing}\n{report()}"


if __name__ == "__main__":
    print(report())
