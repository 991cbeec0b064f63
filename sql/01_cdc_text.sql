-- Text forms of CDC squares and moves, computed from the compact stored columns.
-- Squares: 0 = a1, 7 = h1, 24 = a4.  Move codes: from * 32 + to, plus 1024 for a capture.
CREATE OR REPLACE MACRO cdc_square_name(s) AS
    chr(97 + s % 8) || CAST(s // 8 + 1 AS VARCHAR);

CREATE OR REPLACE MACRO cdc_move_text(code) AS
    CASE WHEN code IS NULL OR code < 0 THEN NULL
         ELSE cdc_square_name((code % 1024) // 32)
              || CASE WHEN code >= 1024 THEN 'x' ELSE '-' END
              || cdc_square_name(code % 32) END;

-- A position's text: the index layout's pattern (cdc_squares.pattern, slots written A, B, C, D)
-- with each slot's letter put in, and the side to move.
CREATE OR REPLACE MACRO cdc_position_text(pattern, letters, side) AS
    translate(pattern, 'ABCD', letters) || CASE WHEN side = 0 THEN ' r' ELSE ' b' END;
