"""Studies built on many runs: paired variants, sweeps, advise, solve, calibration and check."""
