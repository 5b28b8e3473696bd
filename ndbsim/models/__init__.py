"""The models behind one interface (NDB data-node restarts, InnoDB crash recovery): the
registry, the one load pipeline, ``simulate()`` and the levers each model offers."""
