-- Ultimate Tic-Tac-Toe, readable.  Every stored position of a scoring is a row of that scoring's
-- store, '<scoring>/positions'; a build is a catalogue row of its own with no rows:
-- '<scoring>/from/<key0>.<key1>' (every position reachable from a root, param 'root') or
-- '<scoring>/empties/<K>' (every legal position with at most K empty cells in open boards), with
-- the rows it added to the store and the stored positions it reached and reused (nothing below
-- those was solved again).  A row is a canonical position: key0,
-- key1 (exact, see docs/rules/uttt.md), key_constraint (the board to play in, -1 any); level =
-- empty cells in open boards.  Move codes: 9 * board + cell, written 'board:cell'.

-- The 81 characters of a key's canonical representative (closed boards by status alone:
-- XXXXXXXXX won by x, OOOOOOOOO won by o, DDDDDDDDD drawn), then side to move and constraint.
-- Decoding the mixed-radix key needs the 11,093 open board fillings: uttt_board_codes lists
-- every code with its nine characters (generated from the base-3 values, as the kernels do).
CREATE OR REPLACE VIEW uttt_board_codes AS
WITH cells AS (
    SELECT v, list_transform(range(9), lambda c: (v // CAST(pow(3, c) AS INTEGER)) % 3) AS d
    FROM range(19683) AS t(v)
),
masks AS (
    SELECT v, d,
           list_sum(list_transform(range(9), lambda c: CASE WHEN d[c + 1] = 1 THEN 1 << c ELSE 0 END))
               AS xm,
           list_sum(list_transform(range(9), lambda c: CASE WHEN d[c + 1] = 2 THEN 1 << c ELSE 0 END))
               AS om
    FROM cells
),
lines(m) AS (VALUES (7), (56), (448), (73), (146), (292), (273), (84)),
open_fillings AS (
    SELECT v, d FROM masks
    WHERE list_contains(d, 0)
      AND NOT EXISTS (SELECT 1 FROM lines WHERE (xm & m) = m OR (om & m) = m)
)
SELECT 0 AS code, 'XXXXXXXXX' AS block UNION ALL
SELECT 1, 'OOOOOOOOO' UNION ALL
SELECT 2, 'DDDDDDDDD' UNION ALL
SELECT CAST(2 + row_number() OVER (ORDER BY v) AS INTEGER),
       array_to_string(list_transform(d, lambda x: ['.', 'x', 'o'][x + 1]), '')
FROM open_fillings;

-- The nine board codes of a key (see solvers/uttt/keys.py: word0 = (((c0 R + c1) R + c2) R + c3)
-- * 584 + c4 // 19, word1 = ((((c4 % 19) R + c5) R + c6) R + c7) R + c8) * 20 + side * 10 + con,
-- R = 11096).
CREATE OR REPLACE MACRO uttt_codes(key0, key1) AS [
    CAST(key0 // 584 // 11096 // 11096 // 11096 AS INTEGER),
    CAST(key0 // 584 // 11096 // 11096 % 11096 AS INTEGER),
    CAST(key0 // 584 // 11096 % 11096 AS INTEGER),
    CAST(key0 // 584 % 11096 AS INTEGER),
    CAST((key0 % 584) * 19 + key1 // 20 // 11096 // 11096 // 11096 // 11096 AS INTEGER),
    CAST(key1 // 20 // 11096 // 11096 // 11096 % 11096 AS INTEGER),
    CAST(key1 // 20 // 11096 // 11096 % 11096 AS INTEGER),
    CAST(key1 // 20 // 11096 % 11096 AS INTEGER),
    CAST(key1 // 20 % 11096 AS INTEGER)];

CREATE OR REPLACE MACRO uttt_move_text(code) AS
    CASE WHEN code IS NULL OR code < 0 THEN NULL
         ELSE CAST(code // 9 AS VARCHAR) || ':' || CAST(code % 9 AS VARCHAR) END;

CREATE OR REPLACE VIEW uttt_tables AS
SELECT
    table_id,
    table_name,
    CASE WHEN table_name LIKE '%/positions' THEN 'store'
         WHEN table_name LIKE '%/from/%' THEN 'from' ELSE 'empties' END AS kind,
    params ->> 'scoring' AS scoring,
    params ->> 'root' AS root,
    CAST(params ->> 'max_empties' AS SMALLINT) AS max_empties,
    positions AS canonical_rows,
    raw_positions,
    CAST(params ->> 'new_rows' AS BIGINT) AS new_rows,
    CAST(params ->> 'reused_rows' AS BIGINT) AS reused_rows
FROM tb_tables
WHERE game = 'uttt' AND mode <> 'building';

-- One row per stored (canonical) position.  multiplicity: how many positions (closed boards by
-- status) it stands for under the 8 symmetries of the square.  The position text is decoded
-- from the key with the list of uttt_board_codes.
CREATE OR REPLACE VIEW uttt_positions AS
WITH b AS MATERIALIZED (SELECT list(block ORDER BY code) AS blocks FROM uttt_board_codes),
v AS (
    SELECT t.table_name, t.scoring, k.*, uttt_codes(k.key0, k.key1) AS c
    FROM tb_key_values AS k JOIN uttt_tables AS t USING (table_id)
)
SELECT
    v.table_name,
    array_to_string(list_transform(v.c, lambda x: b.blocks[x + 1]), '')
        || CASE WHEN (v.key1 % 20) // 10 = 0 THEN ' x ' ELSE ' o ' END
        || CASE WHEN v.key_constraint < 0 THEN '-' ELSE CAST(v.key_constraint AS VARCHAR) END
        AS position,
    v.level AS empties,
    CASE WHEN (v.key1 % 20) // 10 = 0 THEN 'x' ELSE 'o' END AS side_to_move,
    CASE WHEN v.key_constraint < 0 THEN NULL ELSE v.key_constraint END AS constraint_board,
    v.scoring,
    CASE v.result WHEN 1 THEN 'win' WHEN 0 THEN 'draw' ELSE 'loss' END AS result,
    v.distance,
    uttt_move_text(v.best_move) AS best_move,
    v.multiplicity,
    v.key0,
    v.key1,
    v.key_constraint
FROM v CROSS JOIN b;

-- Per table, level and scoring: how the positions divide into wins, draws and losses for the
-- side to move (stored rows and the positions they stand for).
CREATE OR REPLACE VIEW uttt_draw_analysis AS
SELECT
    t.table_name,
    t.scoring,
    k.level AS empties,
    count(*) AS canonical_rows,
    sum(k.multiplicity) AS positions,
    sum(k.multiplicity) FILTER (WHERE k.result = 1) AS wins,
    sum(k.multiplicity) FILTER (WHERE k.result = 0) AS draws,
    sum(k.multiplicity) FILTER (WHERE k.result = -1) AS losses,
    sum(k.multiplicity) FILTER (WHERE k.result = 0) / sum(k.multiplicity) AS draw_rate,
    max(k.distance) FILTER (WHERE k.result = 1) AS longest_win,
    max(k.distance) FILTER (WHERE k.result = -1) AS longest_loss
FROM tb_key_values AS k JOIN uttt_tables AS t USING (table_id)
GROUP BY ALL
ORDER BY t.table_name, empties DESC;

-- Per table and level: how many positions the 8 symmetries fold into one row.
CREATE OR REPLACE VIEW uttt_symmetry_stats AS
SELECT
    t.table_name,
    t.scoring,
    k.level AS empties,
    count(*) AS canonical_rows,
    sum(k.multiplicity) AS positions,
    sum(k.multiplicity) / count(*) AS reduction_factor,
    count(*) FILTER (WHERE k.multiplicity < 8) AS symmetric_rows
FROM tb_key_values AS k JOIN uttt_tables AS t USING (table_id)
GROUP BY ALL
ORDER BY t.table_name, empties DESC;
