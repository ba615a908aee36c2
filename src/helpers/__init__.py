"""SSD Performance Lab helpers.

Data flows one way: plan -> run fio -> data/raw -> ingest -> data/processed ->
analysis -> figures -> notebooks -> reports.  Lower layers never import higher ones.
"""

__version__ = "0.1.0"
