"""Calibration: published and user restarts as cases, the fits on them, and ``ndbsim check``.

Entry points: ``check`` (``ndbsim check``: predicted vs published, and ``--cross``), ``command``
(``ndbsim calibrate`` from its options) and ``user_fit`` (fit your own restart_info rows). Open
``cases`` first: the case files as data. The parts: ``calibrate`` (the shared constants' fit),
``host_fit`` (a cluster's host figures), ``restart_rows`` (a restart_info export read),
``fit_review`` and ``fit_progress`` (a fit judged and shown), ``cross`` (leave one out),
``case_spec`` (the case file's format and its assumptions with their ranges), ``claims`` (the
seeds' variance and qualitative claims ``check`` holds), ``case_errors`` (a case file's errors
in one line).
"""
