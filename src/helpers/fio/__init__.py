"""fio's formats and binary: everything that is a fact about fio itself.

``json_output`` (reading fio's JSON as it appears in files), ``text_output`` (fio's normal and
terse text as fio-JSON-shaped objects), ``reader`` (the one reader of a fio
result: per job entry and direction, fio 2.x and 3.x keys), ``options`` (option semantics: bs
``r,w,t``, mixed modes, the "All clients" aggregate), ``units`` (fio's size spelling),
``histogram`` (fio's latency bins and its exact percentile rule), ``binary`` (finding fio, its
version).  Imports nothing from the layers above.
"""
