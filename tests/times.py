#!/usr/bin/env python3
"""The per-test times of the last `cargo nextest run`, read from its JUnit report
(target/nextest/default/junit.xml, .config/nextest.toml): the slowest tests, every test that
skipped (a `skipped: <test>: <why>` line on its stderr, tests/common/mod.rs), and a closing
`tests: N passed, N failed, N skipped` line. .ci/run calls it after the tests.

    python3 tests/times.py [junit.xml] [how many of the slowest, 15 by default]
"""

import sys
import xml.etree.ElementTree as ET


def main() -> int:
    path = sys.argv[1] if len(sys.argv) > 1 else "target/nextest/default/junit.xml"
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        print(f"times: no JUnit report at {path}: {e}", file=sys.stderr)
        return 1
    cases = []  # (seconds, name, failed, skipped lines)
    for suite in root.iter("testsuite"):
        binary = suite.get("name", "")
        for case in suite.iter("testcase"):
            failed = case.find("failure") is not None or case.find("error") is not None
            stderr = case.findtext("system-err") or ""
            skips = [l for l in stderr.splitlines() if l.startswith("skipped: ")]
            name = f"{binary} {case.get('name', '')}"
            cases.append((float(case.get("time", "0")), name, failed, skips))
    if not cases:
        print(f"times: {path} names no test", file=sys.stderr)
        return 1
    total = sum(c[0] for c in cases)
    wall = root.get("time")
    wall = f"{float(wall):.0f} s" if wall else "?"
    print(f"\nslowest {min(top, len(cases))} of {len(cases)} tests "
          f"({total:.0f} s of test time, {wall} wall):")
    for seconds, name, failed, _ in sorted(cases, reverse=True)[:top]:
        print(f"  {seconds:8.2f} s  {name}{'  FAILED' if failed else ''}")
    skipped = [c for c in cases if c[3] and not c[2]]
    if skipped:
        print(f"skipped ({len(skipped)}: something they need is missing here):")
        for _, name, _, skips in skipped:
            print(f"  {name}: {skips[0].split(': ', 2)[-1]}")
    failed = sum(1 for c in cases if c[2])
    passed = len(cases) - failed - len(skipped)
    print(f"tests: {passed} passed, {failed} failed, {len(skipped)} skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
