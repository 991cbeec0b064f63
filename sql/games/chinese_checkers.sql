-- Chinese Checkers on the M x M rhombus, readable.  A table 'MxM-P' (params: board, pieces,
-- cells = M * M, block = C(cells - P, P)) stores slot idx = class * block + opp: the position
-- in the mover's frame (the player to move is written '1' and heads for the bottom tip),
-- class numbering the mover's piece sets up to the left-right mirror, opp the opponent's set
-- ranked among the cells the mover leaves empty.  tb_texts, layout 'chinese-checkers:MxM-P':
-- idx = class >= 0 holds the mover's pieces as a board pattern ('1' and '.', rows from the
-- top tip joined by '/'); idx = -1 - opp holds the opponent's set as free-cell numbers
-- ('0,4,7': the 1st, 5th and 8th empty cell of the pattern, in reading order).
-- Move codes: from * 128 + to (cells of the stored position, numbered row by row from 0).

-- The position text of a stored slot: the mover pattern with the opponent's pieces placed on
-- the free cells it names, then ' 1' (player 1 to move).
CREATE OR REPLACE MACRO cc_position_text(tbl, pattern, free) AS
    tbl || ' ' || array_to_string(list_transform(
        range(1, length(pattern) + 1),
        lambda k: CASE
            WHEN substr(pattern, k, 1) <> '.' THEN substr(pattern, k, 1)
            WHEN list_contains(
                list_transform(string_split(free, ','), lambda f: CAST(f AS INTEGER)),
                (k - 1) - length(replace(substr(pattern, 1, k - 1), '.', '')))
                THEN '2'
            ELSE '.' END), '') || ' 1';

-- A stored move code as 'from>to' (the cells where the piece starts and ends; the hop chain
-- between them is what `tbdb lookup` prints).
CREATE OR REPLACE MACRO cc_move_text(code) AS
    CASE WHEN code IS NULL OR code < 0 THEN NULL
         ELSE CAST(code // 128 AS VARCHAR) || '>' || CAST(code % 128 AS VARCHAR) END;

CREATE OR REPLACE VIEW cc_tables AS
SELECT
    table_id,
    table_name,
    CAST(params ->> 'board' AS SMALLINT) AS board,
    CAST(params ->> 'pieces' AS SMALLINT) AS pieces,
    CAST(params ->> 'cells' AS SMALLINT) AS cells,
    CAST(params ->> 'block' AS BIGINT) AS block,
    layout,
    slots,
    positions AS stored_rows,
    raw_positions,
    illegal
FROM tb_tables
WHERE game = 'chinese-checkers' AND mode <> 'building';

-- One row per stored (canonical) position, with player 1 to move; multiplicity = positions it
-- stands for (itself, its mirror image, and both turned 180 degrees with the players swapped).
-- result: win / draw / loss for the player to move, or illegal (the mover has already won, or
-- with 6 pieces a goal can never be filled).  distance: plies to the end with best play.
CREATE OR REPLACE VIEW cc_positions AS
SELECT
    t.board,
    t.pieces,
    cc_position_text(t.table_name, a.text, b.text) AS position,
    1 AS player_to_move,
    CASE v.result WHEN 1 THEN 'win' WHEN 0 THEN 'draw' WHEN -1 THEN 'loss'
                  ELSE 'illegal' END AS result,
    CASE WHEN v.result >= -1 THEN v.distance END AS distance,
    cc_move_text(v.best_move) AS best_move,
    t.table_name,
    v.idx,
    v.multiplicity
FROM tb_index_values AS v
JOIN cc_tables AS t USING (table_id)
JOIN tb_texts AS a ON a.layout = t.layout AND a.idx = v.idx // t.block
JOIN tb_texts AS b ON b.layout = t.layout AND b.idx = -1 - v.idx % t.block;
