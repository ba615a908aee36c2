"""Loading runs for a page: which runs (explicit ids, ``latest``, the bundled samples, ingested on first use),
their processed tables with the analysis' row flags, manifests and the history of other runs
(:mod:`helpers.load.runs`).  Below the notebooks and the reports, beside the figures: the notebooks, the
regression gate and the workbook export all load runs here."""
