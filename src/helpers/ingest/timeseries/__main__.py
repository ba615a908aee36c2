"""``python -m helpers.ingest.timeseries PATH --out DIR --run RUN_ID``"""

from helpers.ingest.timeseries import main

raise SystemExit(main())
