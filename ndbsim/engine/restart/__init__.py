"""One data node's restart, phase by phase as ``ndbinfo.restart_info`` reports it.

Open ``pipeline`` first (the phases in order); ``node_restart`` is the running node and its helpers,
``local_recovery`` the phases that rebuild it from its own disk (restore, UNDO, REDO, index rebuild),
``copy`` the synchronisation with a live node of its node group, ``end`` the wait for an LCP and the
subscription handover; ``disk_data`` what the disk-data tables add to them (UNDO, dirty pages, files).
"""
