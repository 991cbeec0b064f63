-- Views over tbdb's SQL functions (tbdb/db/sql_functions.py), made TEMP on each of tbdb's own
-- connections (tbdb sql, tb.sql) as the functions are: other DuckDB clients have neither.

-- Every legal position of every chess table stored in the database, readable: the table's
-- material (the stronger side first, as Syzygy names it; the table also answers its colours
-- swapped), the FEN, the side to move, its result, the distance to mate in plies (NULL for a
-- draw) and the best move in UCI and SAN (a drawing move for a draw; NULL for a finished game
-- or a --no-moves build); multiplicity: the positions of its material the row stands for (its
-- images under the board's symmetries).  Filter on material, result, distance or side_to_move
-- first: the FEN and the SAN are computed for the rows left (the FEN about 10 us a row, the SAN
-- about 50 us).  (side_to_move reads the slot, not the FEN, but for the rare en passant slots:
-- read from the FEN, a filter on it would write every row's FEN first.)
CREATE OR REPLACE TEMP VIEW chess_positions AS
SELECT
    material,
    fen,
    side_to_move,
    result,
    distance,
    best_move,
    CASE WHEN best_move IS NOT NULL THEN tb_move_name('chess', fen, best_move) END AS best_move_san,
    multiplicity,
    table_name,
    idx
FROM (
    SELECT
        t.material,
        tb_position('chess', t.table_name, v.idx) AS fen,
        CASE WHEN v.idx < t.half THEN 'white'
             WHEN v.idx < 2 * t.half THEN 'black'
             ELSE CASE split_part(tb_position('chess', t.table_name, v.idx), ' ', 2)
                  WHEN 'w' THEN 'white' ELSE 'black' END END AS side_to_move,
        CASE v.result WHEN 1 THEN 'win' WHEN 0 THEN 'draw' ELSE 'loss' END AS result,
        CASE WHEN v.result <> 0 THEN CAST(v.distance AS INTEGER) END AS distance,
        -- a move's code: from + 64 * to + 4096 * promotion (2 knight .. 5 queen), a1 = 0
        -- (from = to: no move, as the table keeps a finished game's slot)
        CASE WHEN v.best_move >= 0 AND v.best_move % 64 <> v.best_move // 64 % 64 THEN
            chr(97 + CAST(v.best_move % 8 AS INTEGER))
            || chr(49 + CAST(v.best_move % 64 // 8 AS INTEGER))
            || chr(97 + CAST(v.best_move // 64 % 8 AS INTEGER))
            || chr(49 + CAST(v.best_move // 512 % 8 AS INTEGER))
            || CASE WHEN v.best_move >= 4096
                    THEN substr('pnbrq', CAST(v.best_move // 4096 AS INTEGER), 1) ELSE '' END
        END AS best_move,
        v.multiplicity,
        t.table_name,
        v.idx
    FROM tb_index_values AS v
    JOIN (SELECT table_id, table_name, params ->> 'material' AS material,
                 CAST(params ->> 'half' AS BIGINT) AS half
          FROM tb_tables
          WHERE game = 'chess' AND mode <> 'building') AS t USING (table_id)
    WHERE v.result IN (-1, 0, 1)
);
