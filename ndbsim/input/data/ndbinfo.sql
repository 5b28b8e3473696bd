-- ndbsim: read a running NDB Cluster (7.6, 8.0, 8.4 and later) for `ndbsim init --ndbinfo`.
--
-- Run it against any SQL node of the cluster with the standard client in batch mode:
--     mysql --batch -h SQLNODE -u USER -p < ndbinfo.sql > export.tsv
-- then: ndbsim init --ndbinfo export.tsv -o my.yaml
--
-- It only reads the ndbinfo schema (SELECT privilege on ndbinfo.*) and INFORMATION_SCHEMA.FILES
-- (the PROCESS privilege from MySQL 8.0.21) and takes about a minute:
-- it samples the operation counters twice, 60 seconds apart, for the change rates.
-- Each block starts with a one-row result `ndbsim_table` naming what follows; a table this
-- release lacks (hwinfo before 8.0.23) is exported as `absent`.

SELECT 'ndbsim-ndbinfo 1' AS ndbsim_export, @@ndb_version_string AS sql_node_ndb_version;

-- when the export was taken (seconds since the epoch): `ndbsim eta` reads an export as a snapshot
SELECT 'snapshot' AS ndbsim_table;
SELECT UNIX_TIMESTAMP(NOW(6)) AS sampled_at;

-- each node's release (node_version) and type
SELECT 'processes' AS ndbsim_table;
SELECT node_id, node_type, node_version FROM ndbinfo.processes ORDER BY node_id;

-- data nodes and whether they run
SELECT 'nodes' AS ndbsim_table;
SELECT node_id, uptime, status, start_phase, config_generation FROM ndbinfo.nodes ORDER BY node_id;

-- data per node: DataMemory used and configured
SELECT 'memoryusage' AS ndbsim_table;
SELECT node_id, memory_type, used, total FROM ndbinfo.memoryusage ORDER BY node_id, memory_type;

-- rows per node: fixed-size parts of the user tables' fragment replicas on each node
SELECT 'memory_per_fragment' AS ndbsim_table;
SELECT node_id, SUM(fixed_elem_count) AS row_count, SUM(var_elem_count) AS var_parts
  FROM ndbinfo.memory_per_fragment WHERE type = 'User table' AND fq_name NOT LIKE 'mysql/%'
  GROUP BY node_id ORDER BY node_id;

-- tables and ordered indexes (the cluster's own tables in database mysql left out)
SELECT 'dict_obj_info' AS ndbsim_table;
SELECT t.type_name, COUNT(*) AS objects
  FROM ndbinfo.dict_obj_info o
  JOIN ndbinfo.dict_obj_types t ON t.type_id = o.type
  LEFT JOIN ndbinfo.dict_obj_info p ON p.type = o.parent_obj_type AND p.id = o.parent_obj_id
  WHERE COALESCE(p.fq_name, o.fq_name) NOT LIKE 'mysql/%'
    AND COALESCE(p.fq_name, o.fq_name) NOT LIKE 'sys/%'
  GROUP BY t.type_name ORDER BY t.type_name;

-- disk-data files: the tablespaces' data files and the log file groups' UNDO files, with their
-- sizes and the extents in use (one row per file; a release that lists a file once per data node
-- gives each file once here)
SELECT 'disk_data_files' AS ndbsim_table;
SELECT file_type, COUNT(*) AS files, SUM(bytes) AS bytes, SUM(used_bytes) AS used_bytes
  FROM (SELECT FILE_TYPE AS file_type, FILE_NAME AS file_name, MAX(INITIAL_SIZE) AS bytes,
               MAX((TOTAL_EXTENTS - FREE_EXTENTS) * EXTENT_SIZE) AS used_bytes
          FROM information_schema.FILES
         WHERE ENGINE = 'ndbcluster' AND FILE_TYPE IN ('DATAFILE', 'UNDO LOG')
         GROUP BY FILE_TYPE, FILE_NAME) f
  GROUP BY file_type ORDER BY file_type;

-- the running configuration of each data node, with NDB's default of each parameter (to tell
-- the parameters set away from it that ndbsim does not model)
SELECT 'config_values' AS ndbsim_table;
SELECT v.node_id, p.param_name, v.config_value, p.param_default
  FROM ndbinfo.config_values v JOIN ndbinfo.config_params p ON p.param_number = v.config_param
  ORDER BY v.node_id, p.param_name;

-- the thread layout each data node started with
SELECT 'threads' AS ndbsim_table;
SELECT node_id, thread_name, COUNT(*) AS thread_count FROM ndbinfo.threads
  GROUP BY node_id, thread_name ORDER BY node_id, thread_name;

SELECT 'threadblocks' AS ndbsim_table;
SELECT node_id, block_name, COUNT(DISTINCT block_instance) AS instances FROM ndbinfo.threadblocks
  WHERE block_name IN ('DBLQH', 'DBQLQH', 'RESTORE', 'QRESTORE') AND block_instance > 0
  GROUP BY node_id, block_name ORDER BY node_id, block_name;

-- the host's CPUs (8.0.23 and later)
SELECT 'hwinfo' AS ndbsim_table;
SET @ndbsim_q = IF((SELECT COUNT(*) FROM information_schema.tables
                     WHERE table_schema = 'ndbinfo' AND table_name = 'hwinfo') > 0,
  'SELECT node_id, cpu_cnt_max, cpu_cnt, num_cpu_cores, num_cpu_sockets FROM ndbinfo.hwinfo ORDER BY node_id',
  'SELECT ''absent'' AS ndbsim_absent');
PREPARE ndbsim_s FROM @ndbsim_q;
EXECUTE ndbsim_s;
DEALLOCATE PREPARE ndbsim_s;

-- the LCP and REDO write speeds reached over the last minute, per node (all LDM threads)
SELECT 'disk_write_speed_aggregate' AS ndbsim_table;
SELECT node_id, SUM(backup_lcp_speed_last_60sec) AS lcp_bytes_per_sec,
       SUM(redo_speed_last_60sec) AS redo_bytes_per_sec,
       SUM(current_target_disk_write_speed) AS target_bytes_per_sec
  FROM ndbinfo.disk_write_speed_aggregate GROUP BY node_id ORDER BY node_id;

-- the change rate: key operations on user tables' fragment replicas, sampled twice
SELECT 'operations_1' AS ndbsim_table;
SELECT UNIX_TIMESTAMP(NOW(6)) AS sampled_at, SUM(tot_key_inserts) AS inserts,
       SUM(tot_key_updates) + SUM(tot_key_writes) AS updates, SUM(tot_key_deletes) AS deletes
  FROM ndbinfo.operations_per_fragment WHERE type = 'User table' AND fq_name NOT LIKE 'mysql/%';
DO SLEEP(60);
SELECT 'operations_2' AS ndbsim_table;
SELECT UNIX_TIMESTAMP(NOW(6)) AS sampled_at, SUM(tot_key_inserts) AS inserts,
       SUM(tot_key_updates) + SUM(tot_key_writes) AS updates, SUM(tot_key_deletes) AS deletes
  FROM ndbinfo.operations_per_fragment WHERE type = 'User table' AND fq_name NOT LIKE 'mysql/%';

-- the last restart of each node that has restarted since the cluster started, with its status
-- columns (node_restart_status, node_restart_status_int; a restart in progress shows 0 for the
-- phases not finished yet)
SELECT 'restart_info' AS ndbsim_table;
SELECT * FROM ndbinfo.restart_info ORDER BY node_id;

SELECT 'end' AS ndbsim_table;
