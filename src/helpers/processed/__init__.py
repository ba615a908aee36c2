"""The processed dataset (``data/processed/``): its schema, Parquet store, validity flags and the
reference spec sheet.  Ingest writes it; analysis and notebooks read it.
"""
