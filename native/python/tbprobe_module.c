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
} BaseObject;

static void note_missing(void *ctx, const char *name)
{
    BaseObject *self = ctx;
    snprintf(self->missing, sizeof self->missing, "%s", name);
    self->has_missing = 1;
}

static void Base_dealloc(BaseObject *self)
{
    if (self->tb) tb_close(self->tb);
    for (Py_ssize_t i = 0; i < self->nviews; i++) PyBuffer_Release(&self->views[i]);
    PyMem_Free(self->views);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Base() an empty base; Base(dir, limit): a lazy base over a directory of probe files, whose
 * files of at most `limit` bytes open on their first probe, each with its SHA-256 checked
 * against the manifest and its checkpoints made (TB_OPEN_LAZY | TB_OPEN_VERIFY |
 * TB_OPEN_INDEX); larger files are the caller's to add (add_buffer) */
static PyObject *Base_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    const char *dir = NULL;
    unsigned long long limit = 0;
    static char *names[] = {"dir", "limit", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|zK", names, &dir, &limit)) return NULL;
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
    } else {
        self->tb = tb_new();
    }
    if (!self->tb) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    self->tb->on_missing = note_missing;
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
    if (st == TB_MISSING && self->has_missing) return PyUnicode_FromString(self->missing);
    if (st != TB_OK) return PyLong_FromLong(st);
    if (v.move < 0) return Py_BuildValue("(iiiO)", v.result, v.distance, v.score, Py_None);
    int n = tb_move_text(&pos, v.move, move, sizeof move);
    if (n < 0) return PyLong_FromLong(n);
    return Py_BuildValue("(iiis#)", v.result, v.distance, v.score, move, (Py_ssize_t)n);
}

/* table_count() -> tables added */
static PyObject *Base_table_count(BaseObject *self, PyObject *unused)
{
    (void)unused;
    return PyLong_FromLong(tb_table_count(self->tb));
}

static PyMethodDef Base_methods[] = {
    {"add_buffer", (PyCFunction)(void (*)(void))Base_add_buffer, METH_FASTCALL,
     "add_buffer(buffer, name): a probe file's bytes, held until the base is freed."},
    {"probe", (PyCFunction)(void (*)(void))Base_probe, METH_FASTCALL,
     "probe(game, text, plies_left) -> (result, distance, score, best_move), the name of a table "
     "not added (str), or a status (int)."},
    {"table_count", (PyCFunction)Base_table_count, METH_NOARGS, "Tables added."},
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
    .tp_new = Base_new,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_tbprobe",
    "libtbprobe (native/) for tbdb's lookups on probe files.", -1, NULL, NULL, NULL, NULL, NULL
};

PyMODINIT_FUNC PyInit__tbprobe(void)
{
    if (PyType_Ready(&BaseType) < 0) return NULL;
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
