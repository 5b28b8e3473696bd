"""config.ini as NDB reads it: the file's syntax, the parameters ndbsim models and those it does not.

Open ``ini`` first (``read_config_ini``: a real config.ini read into a scenario's cluster section);
``params`` holds the modelled parameters with NDB's ranges and defaults, ``ndb_params`` every other
data-node parameter and what it would do to a restart, ``syntax`` NDB's number and boolean syntax,
``thread_config`` ThreadConfig's syntax.
"""
