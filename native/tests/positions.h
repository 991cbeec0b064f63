/* What the tests that probe a file of positions from several threads share (threads.c,
 * changed.c): reading TEXTS ("GAME<TAB>TEXT" lines) into parsed positions, and comparing a
 * probe's answer with the one expected.  Header-only: each test is one program. */
#ifndef TB_TEST_POSITIONS_H
#define TB_TEST_POSITIONS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tbprobe.h"

/* the positions of the file at path, lines that do not parse left out: malloc'ed, *n of them;
 * NULL if it cannot be read (or memory runs out) */
static tb_position *read_positions(const char *path, size_t *n)
{
    char err[512], line[4096];
    size_t cap = 256;
    FILE *fp = fopen(path, "r");
    tb_position *pos = fp ? malloc(cap * sizeof *pos) : NULL;
    *n = 0;
    while (pos && fgets(line, sizeof line, fp)) {
        char *tab = strchr(line, '\t');
        if (!tab) continue;
        *tab = 0;
        tab[1 + strcspn(tab + 1, "\n")] = 0;
        if (*n == cap) {
            tb_position *more = realloc(pos, (cap *= 2) * sizeof *pos);
            if (!more) free(pos);
            pos = more;
            if (!pos) break;
        }
        if (tb_parse(line, tab + 1, &pos[*n], err, sizeof err) == TB_OK) (*n)++;
    }
    if (fp) fclose(fp);
    return pos;
}

/* whether a probe's status and value are the ones expected */
static int same_answer(int status, const tb_value *v, const tb_value *want)
{
    return status == want->status && v->result == want->result &&
           v->distance == want->distance && v->move == want->move;
}

#endif
