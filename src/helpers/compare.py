"""``python -m helpers.compare BASE NEW [--metric iops,p99] [--max-regression 5%]``: the regression
gate (logic in :mod:`helpers.report.gate`)."""

from helpers.report.gate import main

if __name__ == "__main__":
    raise SystemExit(main())
