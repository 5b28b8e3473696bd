"""A snapshot of a restart in progress (``ndbsim eta``): ``read`` reads the export of
``ndbsim ndbinfo-sql --snapshot``, ``status`` knows what restart_info's status columns say (from
NDB's DbdihMain.cpp)."""
