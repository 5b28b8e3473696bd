"""The command line (``ndbsim``): thin commands that parse, call the studies and print."""
