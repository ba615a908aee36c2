"""Plan and execute a sweep, writing ``data/raw/<RUN>/`` (verbatim fio output + ``manifest.json``).

``profiles`` (plan: YAML -> points), ``target``/``safety``/``system`` (what is tested and whether
it may be written), ``lock``, ``hosts`` (fio client/server), ``runner`` (one fio process per
point), ``manifest`` (the raw run folder), ``sweep`` (the executor) and its strategies
``adaptive``, ``steady_state``.  Reads fio results only through :mod:`helpers.fio`.
"""
