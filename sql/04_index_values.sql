-- Every row of every dense-index table: those stored in the database (tb_index_rows) and, once
-- a cluster build has recorded tables whose values stay in Parquet files (tb_index_files), the
-- rows of those files: tbdb rewrites this view with the files' paths when it records one, so
-- this is its form while there are none.
CREATE OR REPLACE VIEW tb_index_values AS
SELECT table_id, idx, result, distance, best_move, multiplicity
FROM tb_index_rows;
