-- Chinese Dark Chess, readable.  A table XvY (catalogue params: material, swapped, size =
-- placements per side to move, letters = piece letters in index order) stores slot
-- side * size + idx; tb_texts holds per layout the board text of each placement idx with
-- slot j written as 'ABCDE'[j].  Squares: 0 = a1, 7 = h1, 24 = a4.  Move codes: from * 32 + to,
-- plus 1024 for a capture.
CREATE OR REPLACE MACRO cdc_square_name(s) AS
    chr(97 + s % 8) || CAST(s // 8 + 1 AS VARCHAR);

CREATE OR REPLACE MACRO cdc_move_text(code) AS
    CASE WHEN code IS NULL OR code < 0 THEN NULL
         ELSE cdc_square_name((code % 1024) // 32)
              || CASE WHEN code >= 1024 THEN 'x' ELSE '-' END
              || cdc_square_name(code % 32) END;

CREATE OR REPLACE MACRO cdc_position_text(pattern, letters, side) AS
    translate(pattern, 'ABCDE', letters) || CASE WHEN side = 0 THEN ' r' ELSE ' b' END;

CREATE OR REPLACE VIEW cdc_tables AS
SELECT
    table_id,
    table_name AS material,
    params ->> 'swapped' AS swapped_material,
    CAST(params ->> 'pieces' AS SMALLINT) AS pieces,
    params ->> 'letters' AS letters,
    layout,
    CAST(params ->> 'size' AS BIGINT) AS size
FROM tb_tables
WHERE game = 'cdc' AND mode <> 'building';

-- One row per stored (canonical) position, compact: side 0 red / 1 black to move, idx the
-- placement index, result 1 win / 0 draw / -1 loss for the side to move.
CREATE OR REPLACE VIEW cdc_values AS
SELECT
    t.material,
    t.table_id,
    CAST(v.idx // t.size AS TINYINT) AS side,
    v.idx % t.size AS idx,
    v.result,
    v.distance,
    v.best_move,
    v.multiplicity
FROM tb_index_values AS v
JOIN cdc_tables AS t USING (table_id);

-- One row per stored (canonical) position, readable; multiplicity = placements it stands for.
CREATE OR REPLACE VIEW cdc_positions AS
SELECT
    t.material,
    t.pieces,
    CASE WHEN v.idx >= t.size THEN 'black' ELSE 'red' END AS side_to_move,
    cdc_position_text(x.text, t.letters, CASE WHEN v.idx >= t.size THEN 1 ELSE 0 END)
        AS position,
    CASE v.result WHEN 1 THEN 'win' WHEN 0 THEN 'draw' ELSE 'loss' END AS result,
    v.distance,
    cdc_move_text(v.best_move) AS best_move,
    t.table_id,
    v.idx % t.size AS idx,
    v.multiplicity
FROM tb_index_values AS v
JOIN cdc_tables AS t USING (table_id)
-- a LEFT join (every stored slot has its text): with an inner join DuckDB joined the texts to
-- the tables first and then every value row to all texts of its table
LEFT JOIN tb_texts AS x ON x.layout = t.layout AND x.idx = v.idx % t.size;
