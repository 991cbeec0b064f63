/* tbdb._tbprobe: libtbprobe inside tbdb's Python package, so that tb.lookup on a directory of
 * probe files answers a position in one call into C (parse the text tbdb wrote, find the table,
 * decode, write the best move) instead of a dozen Python calls around two Numba kernels.
 *
 * One type, Base: a lazy tb_base over a directory of probe files (TB_OPEN_LAZY: a file opens
 * on the first probe that needs it, checked and indexed in C), to which the reader adds the
 * files over the lazy limit itself (add_buffer: its own mapping, whose pages it maps ahead in
 * the background) once its Python side has checked them; and probe(game, text, plies_left),
 * which returns (result, distance, score, best_move or None) for a value, the name of a table
 * the base does not hold (the caller adds its file or asks its Python path), else the C
 * status (an int): the caller then asks its Python path, which raises the error tbdb words.  Built by setup.py when a
 * C compiler is at hand (optional: tbdb works without it); TBDB_NATIVE=0 leaves it unused. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "tbprobe.h"
#include "internal.h"   /* the base's on_missing hook */

typedef struct {
    PyObject_HEAD
    tb_base *tb;
    Py_buffer *views;   /* the buffers added: held (and their memory kept) until tb_close */
    Py_ssize_t nviews, cap;
    char missing[TB_NAME_MAX];   /* the table the last probe looked for and did not have */
    int has_missing;
    unsigned long long answered;   /* lookups its routes answered (Base.answered) */
    PyObject *on_mapped;   /* on_mapped(address, size) for each file the base opened itself */
    struct { const void *data; uint64_t size; } opened[8];   /* opened since the last call */
    int nopened;
} BaseObject;

/* the exception a probe of a file changed since it was opened raises (set_changed_error:
 * tbdb's ProbeFileError), with one line naming the file */
static PyObject *changed_error;

static PyObject *raise_changed(BaseObject *self)
{
    const char *file = tb_changed(self->tb);
    PyErr_Format(changed_error ? changed_error : PyExc_ValueError,
                 "probe file '%s' changed since it was opened (rewritten or truncated in place); "
                 "open the directory again", file ? file : "?");
    return NULL;
}

static void note_missing(void *ctx, const char *name)
{
    BaseObject *self = ctx;
    snprintf(self->missing, sizeof self->missing, "%s", name);
    self->has_missing = 1;
}

/* a file the lazy base opened itself, kept for on_mapped (flush_opened) */
static void note_opened(void *ctx, const tb_file *f)
{
    BaseObject *self = ctx;
    if (f->mapped && self->nopened < 8) {
        self->opened[self->nopened].data = f->data;
        self->opened[self->nopened].size = f->size;
        self->nopened++;
    }
}

/* on_mapped for the files opened by the probe just made: the reader maps a large file's pages
 * ahead in the background, as it does for the files it opens itself.  Best effort: an error
 * there is no lookup's */
static void flush_opened(BaseObject *self)
{
    for (int i = 0; i < self->nopened; i++) {
        if (!self->on_mapped) break;
        PyObject *r = PyObject_CallFunction(self->on_mapped, "KK",
                                            (unsigned long long)(uintptr_t)self->opened[i].data,
                                            (unsigned long long)self->opened[i].size);
        if (r) Py_DECREF(r); else PyErr_Clear();
    }
    self->nopened = 0;
}

static void Base_dealloc(BaseObject *self)
{
    Py_CLEAR(self->on_mapped);
    if (self->tb) tb_close(self->tb);
    for (Py_ssize_t i = 0; i < self->nviews; i++) PyBuffer_Release(&self->views[i]);
    PyMem_Free(self->views);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Base() an empty base; Base(dir, limit[, check_limit]): a lazy base over a directory of probe
 * files, whose files of at most `limit` bytes open on their first probe, those of at most
 * `check_limit` bytes (default: all) with their SHA-256 checked against the manifest and their
 * checkpoints made (TB_OPEN_LAZY | TB_OPEN_VERIFY | TB_OPEN_INDEX); files over `limit` are the
 * caller's to add (add_buffer) */
static PyObject *Base_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    const char *dir = NULL;
    unsigned long long limit = 0, check_limit = UINT64_MAX;
    static char *names[] = {"dir", "limit", "check_limit", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|zKK", names, &dir, &limit, &check_limit))
        return NULL;
    BaseObject *self = (BaseObject *)type->tp_alloc(type, 0);
    if (!self) return NULL;
    if (dir) {
        char err[512];
        int rc = tb_open_flags(dir, TB_OPEN_LAZY | TB_OPEN_VERIFY | TB_OPEN_INDEX, &self->tb,
                               err, sizeof err);
        if (rc != TB_OK) {
            Py_DECREF(self);
            PyErr_SetString(rc == TB_NOMEM ? PyExc_MemoryError : PyExc_ValueError, err);
            return NULL;
        }
        tb_lazy_limit(self->tb, limit);
        tb_lazy_check_limit(self->tb, check_limit);
    } else {
        self->tb = tb_new();
    }
    if (!self->tb) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    self->tb->on_missing = note_missing;
    self->tb->on_opened = note_opened;
    self->tb->missing_ctx = self;
    return (PyObject *)self;
}

/* add_buffer(buffer, name): a file's bytes already mapped by the reader (a NumPy memmap),
 * probed in place: one mapping, whose pages the reader's prefault maps for both; the buffer is
 * held until the base is freed */
static PyObject *Base_add_buffer(BaseObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "add_buffer(buffer, name)");
        return NULL;
    }
    const char *name = PyUnicode_AsUTF8(args[1]);
    if (!name) return NULL;
    if (self->nviews == self->cap) {
        Py_ssize_t cap = self->cap ? 2 * self->cap : 64;
        Py_buffer *more = PyMem_Realloc(self->views, (size_t)cap * sizeof *more);
        if (!more) return PyErr_NoMemory();
        self->views = more;
        self->cap = cap;
    }
    Py_buffer *view = &self->views[self->nviews];
    if (PyObject_GetBuffer(args[0], view, PyBUF_SIMPLE) < 0) return NULL;
    char err[512];
    if (tb_add_buffer(self->tb, view->buf, (size_t)view->len, name, err, sizeof err) != TB_OK) {
        PyBuffer_Release(view);
        PyErr_SetString(PyExc_ValueError, err);
        return NULL;
    }
    self->nviews++;
    /* the buffer maps the file `name`: probes check that file as they check the base's own
     * (watch.c), and a read past its end after a truncation is absorbed */
    tb_watch_buffer(self->tb, view->buf, (size_t)view->len, name);
    Py_RETURN_NONE;
}

/* probe(game, text, plies_left) -> (result, distance, score, best_move | None), the name of the
 * table the position is in when the base does not have it (str), or another status (int) */
static PyObject *Base_probe(BaseObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "probe(game, text, plies_left)");
        return NULL;
    }
    const char *game = PyUnicode_AsUTF8(args[0]);
    const char *text = game ? PyUnicode_AsUTF8(args[1]) : NULL;
    long plies = text ? PyLong_AsLong(args[2]) : -1;
    if (!text || (plies == -1 && PyErr_Occurred())) return NULL;
    tb_position pos;
    tb_value v;
    char err[256], move[64];
    if (tb_parse(game, text, &pos, err, sizeof err) != TB_OK) return PyLong_FromLong(TB_INVALID);
    /* probes read the mapped files and allocate nothing: the GIL stays (a probe takes about a
     * microsecond, less than releasing and taking it back around a page fault would save) */
    self->has_missing = 0;
    int st = tb_probe_position(self->tb, &pos, (int)plies, &v);
    if (self->nopened) flush_opened(self);
    if (st == TB_MISSING && self->has_missing) return PyUnicode_FromString(self->missing);
    if (st == TB_CHANGED) return raise_changed(self);
    if (st != TB_OK) return PyLong_FromLong(st);
    if (v.move < 0) return Py_BuildValue("(iiiO)", v.result, v.distance, v.score, Py_None);
    int n = tb_move_text(&pos, v.move, move, sizeof move);
    if (n < 0) return PyLong_FromLong(n);
    return Py_BuildValue("(iiis#)", v.result, v.distance, v.score, move, (Py_ssize_t)n);
}

/* lookup_text(game, text) -> (result, distance, best_move, position_text) where C answers a
 * lookup of the text exactly as tbdb's Python path does (a stored win/draw/loss value with its
 * stored best move; the text tbdb writes for the position), else None: text C cannot parse, a
 * table the base does not hold, any other status, a value without a best move.  The first
 * lookup of a process reaches its answer here before any of NumPy, Numba or DuckDB is loaded */
static PyObject *Base_lookup_text(BaseObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "lookup_text(game, text)");
        return NULL;
    }
    Py_ssize_t len = 0;
    const char *game = PyUnicode_AsUTF8(args[0]);
    const char *text = game ? PyUnicode_AsUTF8AndSize(args[1], &len) : NULL;
    if (!text) return NULL;
    tb_position pos;
    tb_value v;
    char err[256], move[64], written[1024];
    /* a NUL inside the text would end it early for C: such a text is the Python path's */
    if (!self->tb || (size_t)len != strlen(text) ||
            tb_parse(game, text, &pos, err, sizeof err) != TB_OK)
        Py_RETURN_NONE;
    self->has_missing = 0;
    int st = tb_probe_position(self->tb, &pos, -1, &v);
    if (self->nopened) flush_opened(self);
    if (st == TB_CHANGED) return raise_changed(self);
    if (st != TB_OK || v.result < -1 || v.result > 1 || v.move < 0) Py_RETURN_NONE;
    int n = tb_move_text(&pos, v.move, move, sizeof move);
    int w = n >= 0 ? tb_position_text(&pos, written, sizeof written) : -1;
    if (w <= 0) Py_RETURN_NONE;
    self->answered++;
    return Py_BuildValue("(iis#s#)", v.result, v.distance, move, (Py_ssize_t)n, written,
                         (Py_ssize_t)w);
}

/* set_on_mapped(callable or None): called as on_mapped(address, size) after a probe for each
 * file the base opened itself (mapped), before the probe returns */
static PyObject *Base_set_on_mapped(BaseObject *self, PyObject *fn)
{
    if (fn != Py_None && !PyCallable_Check(fn)) {
        PyErr_SetString(PyExc_TypeError, "set_on_mapped(a callable or None)");
        return NULL;
    }
    Py_XSETREF(self->on_mapped, fn == Py_None ? NULL : Py_NewRef(fn));
    Py_RETURN_NONE;
}

/* table_count() -> tables added */
static PyObject *Base_table_count(BaseObject *self, PyObject *unused)
{
    (void)unused;
    return PyLong_FromLong(tb_table_count(self->tb));
}


/* ---- Routes: an engine's single lookup, position object to LookupResult, in one call ----
 *
 * base.route(game, result_type, outcomes, prober, game_object, options, on_missing
 * [, derived_type]) makes a callable route(position) for tbdb's Prober.route: the position's
 * text (its cached `_text`, else `text`), the probe, and the `LookupResult` built here, its
 * `_source` set as the Python path sets it; a value without a stored best move (files written
 * with --no-moves) as a `derived_type` (tbdb's DerivedBest, which derives its best move in
 * Python when it is read) without `best_move`, or None if derived_type is None; None for
 * anything else C does not answer exactly as the Python path does (text C cannot parse, a
 * status), which the caller's Python path then answers or words as an error.  A table the base does not hold yet: on_missing(game,
 * table) (the reader opens, checks and adds its file; True when C has it), then the probe again.
 * Why in C: an engine's lookups meet cold caches (each on a table not probed lately), and every
 * Python step between the call and the answer costs a microsecond or more there. */
typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    BaseObject *base;
    PyObject *game_name, *result_type, *outcomes[3], *prober, *game, *options, *on_missing,
             *derived_type;
    int constraint;   /* the position's constraint for the probe (a star's lone player); -1:
                       * the one its text gives */
} RouteObject;

static PyObject *s_text, *s__text, *s_game, *s_position, *s_outcome, *s_distance, *s_best_move,
                *s_extras, *s__source, *s_empty;

static PyObject *route_text(PyObject *position)
{
    PyObject *text = PyObject_GetAttr(position, s__text);   /* cached by most games' positions */
    if (text && PyUnicode_Check(text)) return text;
    Py_XDECREF(text);
    PyErr_Clear();
    return PyObject_GetAttr(position, s_text);
}

/* move NULL: no stored best move, a derived_type result without best_move */
static PyObject *route_result(RouteObject *self, PyObject *position, PyObject *text,
                              const tb_value *v, const char *move, int n)
{
    PyTypeObject *tp = (PyTypeObject *)(move ? self->result_type : self->derived_type);
    PyObject *r = tp->tp_new(tp, s_empty, NULL);   /* object.__new__: __init__ would check */
    if (!r) return NULL;
    PyObject *best = move ? PyUnicode_FromStringAndSize(move, n) : Py_NewRef(Py_None),
             *distance = PyLong_FromLong(v->distance), *extras = PyDict_New(), *source = NULL;
    if (best && distance && extras)
        source = PyTuple_Pack(5, self->prober, self->game, position, best, self->options);
    int bad = !source ||
        PyObject_GenericSetAttr(r, s_game, self->game_name) < 0 ||
        PyObject_GenericSetAttr(r, s_position, text) < 0 ||
        PyObject_GenericSetAttr(r, s_outcome, self->outcomes[v->result + 1]) < 0 ||
        PyObject_GenericSetAttr(r, s_distance, distance) < 0 ||
        (move && PyObject_GenericSetAttr(r, s_best_move, best) < 0) ||
        PyObject_GenericSetAttr(r, s_extras, extras) < 0 ||
        PyObject_GenericSetAttr(r, s__source, source) < 0;
    Py_XDECREF(best);
    Py_XDECREF(distance);
    Py_XDECREF(extras);
    Py_XDECREF(source);
    if (bad) Py_CLEAR(r);
    return r;
}

static PyObject *Route_call(RouteObject *self, PyObject *const *args, size_t nargsf,
                            PyObject *kwnames)
{
    if (PyVectorcall_NARGS(nargsf) != 1 || kwnames) {
        PyErr_SetString(PyExc_TypeError, "route(position)");
        return NULL;
    }
    BaseObject *base = self->base;
    PyObject *text = route_text(args[0]);
    if (!text) return NULL;
    const char *game = PyUnicode_AsUTF8(self->game_name), *t = PyUnicode_AsUTF8(text);
    if (!game || !t) {
        Py_DECREF(text);
        return NULL;
    }
    tb_position pos;
    tb_value v;
    char err[256], move[64];
    int st = base->tb ? tb_parse(game, t, &pos, err, sizeof err) : TB_INVALID;
    if (st == TB_OK) {
        if (self->constraint >= 0) pos.constraint = self->constraint;
        base->has_missing = 0;
        st = tb_probe_position(base->tb, &pos, -1, &v);
        if (base->nopened) flush_opened(base);
        if (st == TB_MISSING && base->has_missing) {
            PyObject *ok = PyObject_CallFunction(self->on_missing, "ss", game, base->missing);
            int took = ok ? PyObject_IsTrue(ok) : -1;
            Py_XDECREF(ok);
            if (took < 0) {
                Py_DECREF(text);
                return NULL;
            }
            if (took && base->tb) st = tb_probe_position(base->tb, &pos, -1, &v);
        }
    }
    if (st == TB_CHANGED) {
        Py_DECREF(text);
        return raise_changed(base);
    }
    int valued = st == TB_OK && v.result >= -1 && v.result <= 1;
    int n = valued && v.move >= 0 ? tb_move_text(&pos, v.move, move, sizeof move) : -1;
    PyObject *r = n >= 0 ? route_result(self, args[0], text, &v, move, n)
        : valued && v.move < 0 && self->derived_type != Py_None
        ? route_result(self, args[0], text, &v, NULL, 0) : Py_NewRef(Py_None);
    if (r && r != Py_None) base->answered++;
    Py_DECREF(text);
    return r;
}

static void Route_dealloc(RouteObject *self)
{
    PyObject_GC_UnTrack(self);
    Py_CLEAR(self->base);
    Py_CLEAR(self->game_name);
    Py_CLEAR(self->result_type);
    for (int i = 0; i < 3; i++) Py_CLEAR(self->outcomes[i]);
    Py_CLEAR(self->prober);
    Py_CLEAR(self->game);
    Py_CLEAR(self->options);
    Py_CLEAR(self->on_missing);
    Py_CLEAR(self->derived_type);
    PyObject_GC_Del(self);
}

static int Route_traverse(RouteObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->base);
    Py_VISIT(self->result_type);
    Py_VISIT(self->prober);
    Py_VISIT(self->game);
    Py_VISIT(self->options);
    Py_VISIT(self->on_missing);
    Py_VISIT(self->derived_type);
    return 0;
}

static PyTypeObject RouteType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tbdb._tbprobe.Route",
    .tp_basicsize = sizeof(RouteObject),
    .tp_dealloc = (destructor)Route_dealloc,
    .tp_traverse = (traverseproc)Route_traverse,
    .tp_vectorcall_offset = offsetof(RouteObject, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "route(position) -> LookupResult, or None for the Python path (Base.route).",
};

/* route(game, result_type, outcomes, prober, game_object, options, on_missing
 * [, derived_type[, constraint]]) -> Route; outcomes: the texts of loss, draw and win;
 * constraint >= 0: probe with it in place of the one the text gives (a star's lone player,
 * from the lookup's options, which the caller has checked) */
static PyObject *Base_route(BaseObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    long constraint = nargs == 9 ? PyLong_AsLong(args[8]) : -1;
    if (constraint == -1 && PyErr_Occurred()) return NULL;
    if (nargs < 7 || nargs > 9 || !PyUnicode_Check(args[0]) || !PyType_Check(args[1]) ||
            !PyTuple_Check(args[2]) || PyTuple_GET_SIZE(args[2]) != 3 ||
            !PyCallable_Check(args[6]) || (nargs >= 8 && args[7] != Py_None &&
                                           !PyType_Check(args[7])) ||
            constraint < -1 || constraint > 127) {
        PyErr_SetString(PyExc_TypeError, "route(game, result_type, (loss, draw, win), prober, "
                        "game_object, options, on_missing[, derived_type[, constraint]])");
        return NULL;
    }
    RouteObject *r = PyObject_GC_New(RouteObject, &RouteType);
    if (!r) return NULL;
    r->vectorcall = (vectorcallfunc)Route_call;
    r->base = (BaseObject *)Py_NewRef(self);
    r->game_name = Py_NewRef(args[0]);
    r->result_type = Py_NewRef(args[1]);
    for (int i = 0; i < 3; i++) r->outcomes[i] = Py_NewRef(PyTuple_GET_ITEM(args[2], i));
    r->prober = Py_NewRef(args[3]);
    r->game = Py_NewRef(args[4]);
    r->options = Py_NewRef(args[5]);
    r->on_missing = Py_NewRef(args[6]);
    r->derived_type = Py_NewRef(nargs >= 8 ? args[7] : Py_None);
    r->constraint = (int)constraint;
    PyObject_GC_Track(r);
    return (PyObject *)r;
}

/* answered -> lookups the base's routes answered */
static PyObject *Base_answered(BaseObject *self, void *unused)
{
    (void)unused;
    return PyLong_FromUnsignedLongLong(self->answered);
}

static PyGetSetDef Base_getset[] = {
    {"answered", (getter)Base_answered, NULL, "Lookups the base's routes answered.", NULL},
    {NULL, NULL, NULL, NULL, NULL}
};

static PyMethodDef Base_methods[] = {
    {"add_buffer", (PyCFunction)(void (*)(void))Base_add_buffer, METH_FASTCALL,
     "add_buffer(buffer, name): a probe file's bytes, held until the base is freed."},
    {"probe", (PyCFunction)(void (*)(void))Base_probe, METH_FASTCALL,
     "probe(game, text, plies_left) -> (result, distance, score, best_move), the name of a table "
     "not added (str), or a status (int)."},
    {"table_count", (PyCFunction)Base_table_count, METH_NOARGS, "Tables added."},
    {"lookup_text", (PyCFunction)(void (*)(void))Base_lookup_text, METH_FASTCALL,
     "lookup_text(game, text) -> (result, distance, best_move, position_text), or None where "
     "C does not answer exactly as the Python path."},
    {"set_on_mapped", (PyCFunction)Base_set_on_mapped, METH_O,
     "set_on_mapped(fn): fn(address, size) for each file the base opens itself."},
    {"route", (PyCFunction)(void (*)(void))Base_route, METH_FASTCALL,
     "route(game, result_type, (loss, draw, win), prober, game_object, options, on_missing"
     "[, derived_type[, constraint]]) -> route(position): a LookupResult from one call, or "
     "None for the Python path."},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject BaseType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tbdb._tbprobe.Base",
    .tp_basicsize = sizeof(BaseObject),
    .tp_dealloc = (destructor)Base_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "libtbprobe's tb_base: probe files added one by one, probed from text.",
    .tp_methods = Base_methods,
    .tp_getset = Base_getset,
    .tp_new = Base_new,
};

/* ---- mappings the Python readers make (issue 61): a read past the end of a file truncated
 * under them is absorbed (tb_guard_mapping), counted by faults() */

static PyObject *mod_guard_mapping(PyObject *m, PyObject *args)
{
    (void)m;
    unsigned long long address, length;
    if (!PyArg_ParseTuple(args, "KK:guard_mapping", &address, &length)) return NULL;
    if (!address || !length) {
        PyErr_Format(PyExc_ValueError, "guard_mapping(address, length): an empty range (%llu, %llu)",
                     address, length);
        return NULL;
    }
    if (tb_guard_mapping((const void *)(uintptr_t)address, (size_t)length) != 0) {
        PyErr_SetString(PyExc_OSError, "guard_mapping: SIGBUS cannot be absorbed here");
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *mod_unguard_mapping(PyObject *m, PyObject *args)
{
    (void)m;
    unsigned long long address;
    if (!PyArg_ParseTuple(args, "K:unguard_mapping", &address)) return NULL;
    tb_unguard_mapping((const void *)(uintptr_t)address);
    Py_RETURN_NONE;
}

static PyObject *mod_faults(PyObject *m, PyObject *unused)
{
    (void)m;
    (void)unused;
    return PyLong_FromUnsignedLongLong(tb_guard_faults());
}

static PyObject *mod_set_changed_error(PyObject *m, PyObject *cls)
{
    (void)m;
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, (PyTypeObject *)PyExc_Exception)) {
        PyErr_SetString(PyExc_TypeError, "set_changed_error(an exception class)");
        return NULL;
    }
    Py_XSETREF(changed_error, Py_NewRef(cls));
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"guard_mapping", mod_guard_mapping, METH_VARARGS,
     "guard_mapping(address, length): a read in this range past the end of its file, truncated "
     "under it (SIGBUS), reads a page of zeros instead of killing the process (counted by "
     "faults()); the reader then finds the file changed."},
    {"unguard_mapping", mod_unguard_mapping, METH_VARARGS,
     "unguard_mapping(address): the range guard_mapping registered at address, released "
     "(before it is unmapped)."},
    {"faults", mod_faults, METH_NOARGS, "faults() -> reads past a file's end absorbed so far."},
    {"set_changed_error", mod_set_changed_error, METH_O,
     "set_changed_error(cls): the exception a probe of a file changed since it was opened "
     "raises (default ValueError)."},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_tbprobe",
    "libtbprobe (native/) for tbdb's lookups on probe files.", -1, module_methods, NULL, NULL,
    NULL, NULL
};

PyMODINIT_FUNC PyInit__tbprobe(void)
{
    if (PyType_Ready(&BaseType) < 0 || PyType_Ready(&RouteType) < 0) return NULL;
    static const char *names[] = {"text", "_text", "game", "position", "outcome", "distance",
                                  "best_move", "extras", "_source"};
    PyObject **interned[] = {&s_text, &s__text, &s_game, &s_position, &s_outcome, &s_distance,
                             &s_best_move, &s_extras, &s__source};
    for (int i = 0; i < 9; i++)
        if (!(*interned[i] = PyUnicode_InternFromString(names[i]))) return NULL;
    if (!(s_empty = PyTuple_New(0))) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&BaseType);
    if (PyModule_AddObject(m, "Base", (PyObject *)&BaseType) < 0) {
        Py_DECREF(&BaseType);
        Py_DECREF(m);
        return NULL;
    }
    PyModule_AddStringConstant(m, "VERSION", TBPROBE_VERSION);
#ifdef TBPROBE_SOURCES
    PyModule_AddStringConstant(m, "SOURCES", TBPROBE_SOURCES);   /* setup.py's digest */
#endif
    return m;
}
