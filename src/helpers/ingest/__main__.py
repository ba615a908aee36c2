"""``python -m helpers.ingest PATH [PATH ...] --out DIR [--run RUN_ID]``."""

from helpers.ingest.core import main

raise SystemExit(main())
