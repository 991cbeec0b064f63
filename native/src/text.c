/* The little text the library reads and writes besides positions: the JSON of probe-file
 * headers and manifests, text quoted as Python's repr quotes it, error messages and the
 * names of outcomes. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "internal.h"

const char *tb_outcome_name(int result)
{
    return result > 0 ? "win" : result < 0 ? "loss" : "draw";
}

void tb_seterr(char *err, size_t len, const char *fmt, ...)
{
    if (!err || !len) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------------ JSON */

const char *tb_json_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')) p++;
    return p;
}

/* the end of the JSON value at p (NULL if malformed) */
const char *tb_json_skip(const char *p, const char *end, int depth)
{
    p = tb_json_ws(p, end);
    if (p >= end || depth > 32) return NULL;
    if (*p == '"') {
        for (p++; p < end; p++) {
            if (*p == '\\') p++;
            else if (*p == '"') return p + 1;
        }
        return NULL;
    }
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        p = tb_json_ws(p + 1, end);
        if (p < end && *p == close) return p + 1;
        for (;;) {
            if (close == '}') {
                p = tb_json_skip(p, end, depth + 1);          /* the key */
                if (!p) return NULL;
                p = tb_json_ws(p, end);
                if (p >= end || *p != ':') return NULL;
                p++;
            }
            p = tb_json_skip(p, end, depth + 1);
            if (!p) return NULL;
            p = tb_json_ws(p, end);
            if (p >= end) return NULL;
            if (*p == close) return p + 1;
            if (*p != ',') return NULL;
            p++;
        }
    }
    while (p < end && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\n' &&
           *p != '\t' && *p != '\r') p++;
    return p;
}

/* the value of member `key` of the object at p (NULL if absent or malformed) */
const char *tb_json_member(const char *p, const char *end, const char *key)
{
    size_t klen = strlen(key);
    p = tb_json_ws(p, end);
    if (p >= end || *p != '{') return NULL;
    p = tb_json_ws(p + 1, end);
    while (p < end && *p == '"') {
        const char *k = p + 1, *kend = tb_json_skip(p, end, 0);
        if (!kend) return NULL;
        p = tb_json_ws(kend, end);
        if (p >= end || *p != ':') return NULL;
        p = tb_json_ws(p + 1, end);
        if ((size_t)(kend - 1 - k) == klen && memcmp(k, key, klen) == 0) return p;
        p = tb_json_skip(p, end, 0);
        if (!p) return NULL;
        p = tb_json_ws(p, end);
        if (p < end && *p == ',') p = tb_json_ws(p + 1, end);
    }
    return NULL;
}

static int hex4(const char *p, const char *end, unsigned *u)
{
    *u = 0;
    for (int i = 0; i < 4; i++) {
        if (p + i >= end) return -1;
        char c = p[i];
        unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0') : c >= 'a' && c <= 'f' ?
                     (unsigned)(c - 'a' + 10) : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 99;
        if (d > 15) return -1;
        *u = *u << 4 | d;
    }
    return 0;
}

/* a string member copied to out, escapes decoded (\uXXXX to UTF-8, as Python's json.dumps
 * writes a name that is not ASCII): 0 ok, -1 if absent, malformed or too long */
int tb_json_string(const char *obj, const char *end, const char *key, char *out, size_t len)
{
    const char *v = tb_json_member(obj, end, key);
    return v ? tb_json_decode(v, end, out, len) : -1;
}

/* the string at v decoded to out, as tb_json_string: 0 ok, -1 */
int tb_json_decode(const char *v, const char *end, char *out, size_t len)
{
    if (!v || v >= end || *v != '"' || !len) return -1;
    size_t i = 0;
    for (v++; v < end && *v != '"'; v++) {
        unsigned u = (unsigned char)*v;
        int raw = u != '\\';                 /* a byte as it is (UTF-8 stays UTF-8) */
        if (!raw) {
            if (++v >= end) return -1;
            switch (*v) {
            case '"': case '\\': case '/': u = (unsigned char)*v; break;
            case 'b': u = '\b'; break;
            case 'f': u = '\f'; break;
            case 'n': u = '\n'; break;
            case 'r': u = '\r'; break;
            case 't': u = '\t'; break;
            case 'u':
                if (hex4(v + 1, end, &u)) return -1;
                v += 4;
                if (u >= 0xD800 && u < 0xDC00) {                /* a surrogate pair */
                    unsigned lo;
                    if (v + 2 >= end || v[1] != '\\' || v[2] != 'u' || hex4(v + 3, end, &lo) ||
                        lo < 0xDC00 || lo >= 0xE000) return -1;
                    u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                    v += 6;
                } else if (u >= 0xDC00 && u < 0xE000) return -1;
                break;
            default: return -1;
            }
        }
        char b[4];
        size_t k = 0;
        if (raw || u < 0x80) b[k++] = (char)u;
        else if (u < 0x800) { b[k++] = (char)(0xC0 | u >> 6); b[k++] = (char)(0x80 | (u & 63)); }
        else if (u < 0x10000) { b[k++] = (char)(0xE0 | u >> 12); b[k++] = (char)(0x80 | (u >> 6 & 63));
                                b[k++] = (char)(0x80 | (u & 63)); }
        else { b[k++] = (char)(0xF0 | u >> 18); b[k++] = (char)(0x80 | (u >> 12 & 63));
               b[k++] = (char)(0x80 | (u >> 6 & 63)); b[k++] = (char)(0x80 | (u & 63)); }
        if (i + k >= len) return -1;
        memcpy(out + i, b, k);
        i += k;
    }
    if (v >= end) return -1;
    out[i] = 0;
    return 0;
}

int tb_json_int(const char *obj, const char *end, const char *key, long long *out)
{
    const char *v = tb_json_member(obj, end, key);
    if (!v) return -1;
    int neg = v < end && *v == '-', digits = 0;
    long long x = 0;
    for (v += neg; v < end && *v >= '0' && *v <= '9' && digits < 18; v++, digits++)
        x = x * 10 + (*v - '0');
    if (!digits) return -1;
    *out = neg ? -x : x;
    return 0;
}

/* ------------------------------------------------------------------ quoting */

void tb_quote(char *out, size_t len, const char *t, size_t n)
{
    /* Python's repr of a str: single quotes unless the text has one and no double quote */
    size_t shown = n > 100 ? 100 : n, o = 0;
    int dq = memchr(t, '\'', shown) && !memchr(t, '"', shown);
    char q = dq ? '"' : '\'';
    if (!len) return;
#define PUT(c) do { if (o + 1 < len) out[o++] = (c); } while (0)
    PUT(q);
    for (size_t i = 0; i < shown; i++) {
        unsigned char c = (unsigned char)t[i];
        if (c == '\\' || c == (unsigned char)q) { PUT('\\'); PUT((char)c); }
        else if (c == '\n') { PUT('\\'); PUT('n'); }
        else if (c == '\t') { PUT('\\'); PUT('t'); }
        else if (c == '\r') { PUT('\\'); PUT('r'); }
        else if (c < 32 || c == 127) {
            char hex[5];
            snprintf(hex, sizeof hex, "\\x%02x", c);
            for (int k = 0; k < 4; k++) PUT(hex[k]);
        } else PUT((char)c);
    }
    PUT(q);
    out[o] = 0;
    if (n > 100) {
        char more[48];
        snprintf(more, sizeof more, "... (%zu characters)", n);
        size_t m = strlen(more);
        if (o + m < len) { memcpy(out + o, more, m + 1); }
    }
#undef PUT
}
