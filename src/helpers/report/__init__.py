"""Reports: the papermill pipeline (sweep -> ingest -> analysis notebooks) and the offline HTML export."""
