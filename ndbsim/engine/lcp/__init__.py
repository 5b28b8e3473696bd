"""The DIH master's LCP loop and its write speeds: the live nodes' local checkpoints, one after another.

Open ``master`` first (the loop a restart asks for its LCPs); ``round`` is one distributed LCP,
``writes`` a node's LCP as a flow, ``checkpoint`` the full (≤7.5) and partial (7.6+) LCP policies,
``write_speed`` and ``proposed_speed`` the speed an LCP writes at, ``steady`` the cycle a workload
settles into, ``warm_up`` and ``skip`` the arithmetic that spares the events of identical cycles,
``state`` what the loop's parts share.
"""
