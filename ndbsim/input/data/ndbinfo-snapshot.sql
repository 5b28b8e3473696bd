-- ndbsim: a snapshot of a restart in progress, for `ndbsim eta SCENARIO --ndbinfo snapshot.tsv`.
--
-- Run it against any SQL node of the cluster with the standard client in batch mode:
--     mysql --defaults-file=~/.my.cnf --batch < ndbinfo-snapshot.sql > snapshot.tsv
-- or let ndbsim run it every INTERVAL: ndbsim eta SCENARIO --watch 30s -- --defaults-file=~/.my.cnf
--
-- It only reads the ndbinfo schema (SELECT privilege on ndbinfo.*) and returns at once.
-- restart_info is the master DIH's view: for the node restarting, node_restart_status says
-- which state it reached, the columns of the phases it finished hold their seconds and every
-- later column, the phase in progress included, is 0 until that phase ends
-- (DbdihMain.cpp, Dbdih::fill_row_with_node_restart_status: "Any time not happened yet will be
-- reported as 0"). nodes.uptime of a starting node counts from its process start.

SELECT 'ndbsim-ndbinfo 1' AS ndbsim_export, @@ndb_version_string AS sql_node_ndb_version;

-- when the snapshot was taken (seconds since the epoch, the SQL node's clock)
SELECT 'snapshot' AS ndbsim_table;
SELECT UNIX_TIMESTAMP(NOW(6)) AS sampled_at;

-- each node's release, checked against the scenario's (an upgrade shows two)
SELECT 'processes' AS ndbsim_table;
SELECT node_id, node_type, node_version FROM ndbinfo.processes ORDER BY node_id;

-- data nodes: status (STARTING, STARTED, ...), start phase and seconds since the process started
SELECT 'nodes' AS ndbsim_table;
SELECT node_id, uptime, status, start_phase, config_generation FROM ndbinfo.nodes ORDER BY node_id;

-- each node's last restart, with the status columns, as the master sees it now
SELECT 'restart_info' AS ndbsim_table;
SELECT * FROM ndbinfo.restart_info ORDER BY node_id;

SELECT 'end' AS ndbsim_table;
