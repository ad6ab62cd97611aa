/* The bot's inputs (firmware_host/bot/features.py, `encode(Boards.of(nodes), shape)`) in C.
 *
 * `hint` and the bot judge every play of a roll; in numpy each batch costs some forty array
 * operations whatever its size, which dwarfs the network itself on the few plays of most rolls.
 * This file reads the search states (`rules.plays.Node`) directly and writes the same float32
 * inputs, column for column: every term is a small integer, written as (float)value / (float)scale
 * as numpy divides a float32 array by a scale, so the result is bit for bit the numpy encoder's.
 * features.py is the specification and the oracle (tests/bot/test_bot_encode_compiled.py).
 * `chances` runs the network on those inputs too, for the few plays of most rolls (see there).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <string.h>

#define POSITIONS 26 /* 0 bar, 1..24 the route, 25 off: the mover's frame */
#define BAR 0
#define OFF 25
#define MAX_TERMS 64

typedef struct {
    int parallel, hitting, pinning, release_from;
} Shape;

/* `_longest_run` over 24 columns. */
static int longest_run(const int *held) {
    int run = 0, longest = 0;
    for (int i = 0; i < 24; i++) {
        run = held[i] ? run + 1 : 0;
        if (run > longest) longest = run;
    }
    return longest;
}

/* `_behind_longest_run`: the counts before the first longest run of held columns (none held: 0). */
static int behind_longest_run(const int *held, const int *counts) {
    int run = 0, longest = 0, end = 0;
    for (int i = 0; i < 24; i++) {
        run = held[i] ? run + 1 : 0;
        if (run > longest) longest = run, end = i;   /* the first column where the maximum is met */
    }
    int start = longest > 0 ? end - longest + 1 : 0, behind = 0;
    for (int i = 0; i < start; i++) behind += counts[i];
    return behind;
}

static int read_counts(PyObject *sequence, int *counts) {
    if (!PyTuple_Check(sequence) || PyTuple_GET_SIZE(sequence) != POSITIONS) {
        PyErr_SetString(PyExc_TypeError, "a node's counts are a tuple of 26 ints");
        return -1;
    }
    for (int p = 0; p < POSITIONS; p++) {
        long value = PyLong_AsLong(PyTuple_GET_ITEM(sequence, p));
        if (value == -1 && PyErr_Occurred()) return -1;
        counts[p] = (int)value;
    }
    return 0;
}

/* One node's inputs into `out`; returns the number written. */
static Py_ssize_t encode_one(const Shape *shape, const int *me, const int *opp, unsigned long my_pin_bits,
                             unsigned long opp_pin_bits, const float *scales, Py_ssize_t scale_count,
                             float *out) {
    float *start = out;
    int my_pins[24], opp_pins[24];   /* frame positions 1..24 as 0..23 */
    for (int i = 0; i < 24; i++) {
        my_pins[i] = (my_pin_bits >> (i + 1)) & 1;
        opp_pins[i] = (opp_pin_bits >> (i + 1)) & 1;
    }
    for (const int *counts = me; counts; counts = counts == me ? opp : NULL) {   /* `_unary` */
        for (int p = 1; p <= 24; p++) {
            int c = counts[p];
            *out++ = c >= 1, *out++ = c >= 2, *out++ = c >= 3;
            *out++ = (float)((c > 3 ? c - 3 : 0) / 2.0);
        }
    }
    if (shape->pinning) {
        for (int i = 0; i < 24; i++) *out++ = my_pins[i];
        for (int i = 0; i < 24; i++) *out++ = opp_pins[i];
    }

    /* `board_terms`, in its order. */
    long terms[MAX_TERMS];
    int n = 0;
    int my_pips = 25 * me[BAR], opp_pips = 25 * opp[BAR];
    for (int p = 1; p <= 24; p++) {
        my_pips += (25 - p) * me[p];
        opp_pips += (shape->parallel ? 24 - ((p - 13) % 24 + 24) % 24 : p) * opp[p];
    }
    int made = shape->parallel ? 1 : 2;
    int my_points[24], opp_points[24], my_point_count = 0, opp_point_count = 0, my_home_points = 0;
    for (int i = 0; i < 24; i++) {
        my_points[i] = me[i + 1] >= made;
        opp_points[i] = opp[i + 1] >= made;
        my_point_count += my_points[i];
        opp_point_count += opp_points[i];
        if (i >= 18) my_home_points += my_points[i];
    }
    /* The frame positions (as 0..23) in the order the opponent passes them (`opponent_route`). */
    int route[24], my_points_on_route[24], opp_on_route[24];
    for (int k = 0; k < 24; k++) {
        route[k] = shape->parallel ? (k + 12) % 24 : 23 - k;
        my_points_on_route[k] = my_points[route[k]];
        opp_on_route[k] = opp[route[k] + 1];
    }
    int my_outside_home = 0, opp_home = 0;
    for (int p = 0; p < 19; p++) my_outside_home += me[p];
    for (int p = shape->parallel ? 7 : 1, last = p + 6; p < last; p++) opp_home += opp[p];
    terms[n++] = opp_pips - my_pips;
    terms[n++] = my_pips;
    terms[n++] = opp_pips;
    terms[n++] = me[OFF];
    terms[n++] = opp[OFF];
    terms[n++] = my_outside_home;
    terms[n++] = 15 - opp[OFF] - opp_home;
    terms[n++] = my_point_count;
    terms[n++] = opp_point_count;
    terms[n++] = my_home_points;
    terms[n++] = longest_run(my_points_on_route);
    terms[n++] = longest_run(opp_points);
    if (shape->hitting || shape->pinning) {
        /* Blots, and shots 1-6 and 7-12 pips away (`_exposure`): the opponent shoots down from
         * frames 1..25 (his bar as 25), the mover up from frames 0..24. */
        int my_blots = 0, exposed_direct = 0, exposed_indirect = 0, target_direct = 0;
        for (int b = 1; b <= 24; b++) {
            if (me[b] == 1 && opp[b] == 0 && !my_pins[b - 1]) {
                my_blots++;
                for (int d = 1; d <= 12 && b + d <= 25; d++) {
                    int shooter = b + d == 25 ? opp[BAR] > 0 : opp[b + d] > 0;
                    if (d <= 6) exposed_direct += shooter; else exposed_indirect += shooter;
                }
            }
            if (opp[b] == 1 && me[b] == 0 && !opp_pins[b - 1])
                for (int d = 1; d <= 6 && b - d >= 0; d++) target_direct += me[b - d] > 0;
        }
        int lowest = 25, highest = 0;   /* `_lowest` of mine, `_highest` of his */
        for (int p = 0; p <= 24; p++)
            if (me[p] > 0) { lowest = p; break; }
        if (opp[BAR] > 0) highest = 25;
        else
            for (int p = 24; p >= 1; p--)
                if (opp[p] > 0) { highest = p; break; }
        terms[n++] = exposed_direct;
        terms[n++] = exposed_indirect;
        terms[n++] = target_direct;
        terms[n++] = my_blots;
        terms[n++] = lowest <= highest;
    }
    if (shape->hitting) {
        terms[n++] = me[BAR];
        terms[n++] = opp[BAR];
    }
    if (shape->pinning) {
        int my_pinned = 0, opp_pinned = 0, opp_beyond_start = 0;
        for (int i = 0; i < 24; i++) my_pinned += my_pins[i], opp_pinned += opp_pins[i];
        for (int p = 2; p <= 24; p++) opp_beyond_start += opp[p];
        terms[n++] = my_pinned;
        terms[n++] = opp_pinned;
        terms[n++] = my_pins[0];
        terms[n++] = opp_pins[23];
        terms[n++] = me[1] == 1 && !my_pins[0] && opp_beyond_start > 0;
    }
    if (shape->parallel) {
        terms[n++] = me[1];
        terms[n++] = opp[13];
        terms[n++] = behind_longest_run(my_points_on_route, opp_on_route);
        terms[n++] = behind_longest_run(opp_points, me + 1);
    }
    if (shape->release_from) {
        int mine_free = 0, his_free = opp[OFF] > 0;
        for (int p = shape->release_from; p < POSITIONS; p++) mine_free |= me[p] != 0;
        for (int p = shape->release_from - 12; p < 13; p++) his_free |= opp[p] != 0;
        terms[n++] = mine_free;
        terms[n++] = his_free;
    }
    if (n != scale_count) {
        PyErr_Format(PyExc_ValueError, "%d terms for %zd scales", n, scale_count);
        return -1;
    }
    for (int k = 0; k < n; k++) *out++ = (float)terms[k] / scales[k];
    return out - start;
}

/* The arguments both functions take after the nodes: the game's shape and the term scales. */
static int read_shape(PyObject *args, PyObject **nodes, Shape *shape, float *scales, Py_ssize_t *scale_count,
                      PyObject **rest) {
    PyObject *scale_tuple;
    if (rest) *rest = NULL;
    if (!PyArg_ParseTuple(args, rest == NULL ? "OpppiO!" : "OpppiO!|O", nodes, &shape->parallel,
                          &shape->hitting, &shape->pinning, &shape->release_from, &PyTuple_Type,
                          &scale_tuple, rest))
        return -1;
    if (shape->release_from && (shape->release_from < 12 || shape->release_from > 25)) {
        PyErr_SetString(PyExc_ValueError, "release_from: 0 or a frame position 12..25");
        return -1;
    }
    *scale_count = PyTuple_GET_SIZE(scale_tuple);
    if (*scale_count > MAX_TERMS) {
        PyErr_SetString(PyExc_ValueError, "too many term scales");
        return -1;
    }
    for (Py_ssize_t k = 0; k < *scale_count; k++) {
        double scale = PyFloat_AsDouble(PyTuple_GET_ITEM(scale_tuple, k));
        if (scale == -1.0 && PyErr_Occurred()) return -1;
        scales[k] = (float)scale;
    }
    return 0;
}

/* One search state's inputs into `out`; returns the number written, -1 with an exception set. */
static Py_ssize_t encode_node(PyObject *node, const Shape *shape, const float *scales, Py_ssize_t scale_count,
                              float *out) {
    int me[POSITIONS], opp[POSITIONS];
    if (!PyTuple_Check(node) || PyTuple_GET_SIZE(node) < 4) {
        PyErr_SetString(PyExc_TypeError, "a node is a tuple (me, opp, my_pins, opp_pins, ...)");
        return -1;
    }
    if (read_counts(PyTuple_GET_ITEM(node, 0), me) < 0 || read_counts(PyTuple_GET_ITEM(node, 1), opp) < 0)
        return -1;
    unsigned long my_pin_bits = PyLong_AsUnsignedLongMask(PyTuple_GET_ITEM(node, 2));
    unsigned long opp_pin_bits = PyLong_AsUnsignedLongMask(PyTuple_GET_ITEM(node, 3));
    if (PyErr_Occurred()) return -1;
    return encode_one(shape, me, opp, my_pin_bits, opp_pin_bits, scales, scale_count, out);
}

static PyObject *encode(PyObject *self, PyObject *args) {
    PyObject *nodes;
    Shape shape;
    float scales[MAX_TERMS];
    Py_ssize_t scale_count;
    if (read_shape(args, &nodes, &shape, scales, &scale_count, NULL) < 0) return NULL;
    PyObject *sequence = PySequence_Fast(nodes, "nodes: a sequence of search states");
    if (!sequence) return NULL;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(sequence);
    Py_ssize_t width = 2 * 96 + (shape.pinning ? 48 : 0) + scale_count;
    PyObject *result = PyBytes_FromStringAndSize(NULL, count * width * (Py_ssize_t)sizeof(float));
    if (!result) goto fail;
    float *out = (float *)PyBytes_AS_STRING(result);
    for (Py_ssize_t i = 0; i < count; i++) {
        Py_ssize_t written = encode_node(PySequence_Fast_GET_ITEM(sequence, i), &shape, scales, scale_count, out);
        if (written < 0) goto fail;
        out += written;
    }
    Py_DECREF(sequence);
    return result;
fail:
    Py_XDECREF(result);
    Py_DECREF(sequence);
    return NULL;
}

/* The network (firmware_host/bot/network.py, `Network.forward`) on a few nodes.
 *
 * numpy's fixed cost per operation (two matrix products, a bias each, a sigmoid of six operations
 * each) is most of `hint`'s time on a turn of a few plays; here one call does it, reading the
 * network's arrays as they are. Each hidden unit sums only the inputs that are not zero (most of
 * TD-Gammon's units are), in double: a product of two floats is exact in a double, so the sum is
 * the same with or without fused multiply-adds, on every machine. numpy's float32 matrix product
 * sums in an order of its BLAS's choosing (it differs with the batch's size); the two agree to
 * float32 rounding (tests/bot/test_bot_chances_compiled.py). */
#define OUTPUTS 5
#define MAX_WIDTH (2 * 96 + 48 + MAX_TERMS)

static float clipped(float x) {   /* network.py's `_sigmoid` clips to +-40 (np.maximum, np.minimum: NaN stays) */
    x = x < -40.0f ? -40.0f : x;
    return x > 40.0f ? 40.0f : x;
}

static float sigmoid(float x) { return 1.0f / (1.0f + expf(-clipped(x))); }

/* A C-contiguous float32 array as a buffer (`writable`: to write into) of rows of `columns` numbers,
 * `rows` of them (-1: any number): the rows, or -1 with the fault named. */
static Py_ssize_t float_rows(PyObject *array, Py_ssize_t columns, Py_ssize_t rows, int writable, const char *name,
                             Py_buffer *view) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    int held = PyObject_GetBuffer(array, view, flags) == 0;
    if (held && view->itemsize == 4 && view->format && strcmp(view->format, "f") == 0
            && view->len % (columns * 4) == 0 && (rows < 0 || view->len == rows * columns * 4))
        return view->len / (columns * 4);
    if (held) PyBuffer_Release(view);
    else PyErr_Clear();   /* (not a buffer, not C-contiguous or read-only: said below) */
    if (rows < 0)
        PyErr_Format(PyExc_ValueError, "%s: a %sC-contiguous float32 array of rows of %zd", name,
                     writable ? "writable " : "", columns);
    else
        PyErr_Format(PyExc_ValueError, "%s: a %sC-contiguous float32 array of %zd numbers", name,
                     writable ? "writable " : "", rows * columns);
    return -1;
}

static PyObject *chances(PyObject *self, PyObject *args) {
    PyObject *nodes, *network;
    Shape shape;
    float scales[MAX_TERMS];
    Py_ssize_t scale_count;
    if (read_shape(args, &nodes, &shape, scales, &scale_count, &network) < 0) return NULL;
    if (!network || !PyTuple_Check(network) || PyTuple_GET_SIZE(network) != 4) {
        PyErr_SetString(PyExc_TypeError, "network: (hidden_weights, hidden_bias, output_weights, output_bias)");
        return NULL;
    }
    Py_ssize_t width = 2 * 96 + (shape.pinning ? 48 : 0) + scale_count;
    Py_buffer views[4];
    int held = 0;
    PyObject *sequence = NULL, *result = NULL;
    float *activations = NULL;
    double *sums = NULL;
    Py_ssize_t hidden = PyObject_Size(PyTuple_GET_ITEM(network, 1));
    if (hidden < 0) return NULL;
    if (hidden == 0) {
        PyErr_SetString(PyExc_ValueError, "network: at least one hidden unit");
        return NULL;
    }
    const Py_ssize_t sizes[4] = {hidden * width, hidden, OUTPUTS * hidden, OUTPUTS};
    static const char *names[4] = {"hidden_weights", "hidden_bias", "output_weights", "output_bias"};
    for (; held < 4; held++)
        if (float_rows(PyTuple_GET_ITEM(network, held), sizes[held], 1, 0, names[held], &views[held]) < 0) goto done;
    const float *hidden_weights = views[0].buf, *hidden_bias = views[1].buf;
    const float *output_weights = views[2].buf, *output_bias = views[3].buf;
    activations = PyMem_Malloc(hidden * sizeof(float));
    sums = PyMem_Malloc(hidden * sizeof(double));
    if (!activations || !sums) {
        PyErr_NoMemory();
        goto done;
    }
    sequence = PySequence_Fast(nodes, "nodes: a sequence of search states");
    if (!sequence) goto done;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(sequence);
    result = PyByteArray_FromStringAndSize(NULL, count * OUTPUTS * (Py_ssize_t)sizeof(float));
    if (!result) goto done;
    float *out = (float *)PyByteArray_AS_STRING(result);
    for (Py_ssize_t i = 0; i < count; i++, out += OUTPUTS) {
        float inputs[MAX_WIDTH];
        if (encode_node(PySequence_Fast_GET_ITEM(sequence, i), &shape, scales, scale_count, inputs) < 0) {
            Py_CLEAR(result);
            goto done;
        }
        for (Py_ssize_t h = 0; h < hidden; h++) sums[h] = 0.0;
        for (Py_ssize_t k = 0; k < width; k++) {   /* input by input: the hidden units' sums side by side */
            if (inputs[k] == 0.0f) continue;
            double input = inputs[k];
            const float *column = hidden_weights + k;
            for (Py_ssize_t h = 0; h < hidden; h++) sums[h] += input * column[h * width];
        }
        for (Py_ssize_t h = 0; h < hidden; h++) activations[h] = sigmoid((float)sums[h] + hidden_bias[h]);
        for (int o = 0; o < OUTPUTS; o++) {
            double sum = 0.0;
            const float *row = output_weights + o * hidden;
            for (Py_ssize_t h = 0; h < hidden; h++) sum += (double)row[h] * activations[h];
            out[o] = sigmoid((float)sum + output_bias[o]);
        }
    }
done:
    PyMem_Free(activations);
    PyMem_Free(sums);
    for (int k = 0; k < held; k++) PyBuffer_Release(&views[k]);
    Py_XDECREF(sequence);
    return result;
}

/* What `hint` makes of the chances, element by element in IEEE arithmetic, so the same bit for bit
 * as numpy's operations in players.py (tests/bot/test_bot_chances_compiled.py): on a turn of a few
 * plays numpy's fixed cost per operation is most of it. */

/* players.py's `equity`: win * 2 - 1 + win_double + win_triple - lose_double - lose_triple, left to
 * right, each step rounded to float32 (win * 2 is exact: a fused multiply-add rounds alike). */
static PyObject *equity(PyObject *self, PyObject *array) {
    Py_buffer view;
    Py_ssize_t count = float_rows(array, OUTPUTS, -1, 0, "chances", &view);
    if (count < 0) return NULL;
    PyObject *result = PyByteArray_FromStringAndSize(NULL, count * (Py_ssize_t)sizeof(float));
    if (result) {
        const float *row = view.buf;
        float *points = (float *)PyByteArray_AS_STRING(result);
        for (Py_ssize_t i = 0; i < count; i++, row += OUTPUTS) {
            float value = row[0] * 2.0f;
            value -= 1.0f;
            value += row[1];
            value += row[2];
            value -= row[3];
            value -= row[4];
            points[i] = value;
        }
    }
    PyBuffer_Release(&view);
    return result;
}

/* players.py's `ten_thousandths` of each row's chances and its points, as lists of six ints. */
static PyObject *ten_thousandths_rows(PyObject *self, PyObject *args) {
    PyObject *chances_array, *points_array, *rows = NULL;
    Py_buffer chances_view, points_view;
    if (!PyArg_ParseTuple(args, "OO", &chances_array, &points_array)) return NULL;
    Py_ssize_t count = float_rows(chances_array, OUTPUTS, -1, 0, "chances", &chances_view);
    if (count < 0) return NULL;
    if (float_rows(points_array, 1, -1, 0, "points", &points_view) != count) {
        if (!PyErr_Occurred()) {
            PyBuffer_Release(&points_view);
            PyErr_Format(PyExc_ValueError, "points: one for each of the %zd rows of chances", count);
        }
        PyBuffer_Release(&chances_view);
        return NULL;
    }
    const float *chances = chances_view.buf, *points = points_view.buf;
    rows = PyList_New(count);
    for (Py_ssize_t i = 0; rows && i < count; i++) {
        PyObject *row = PyList_New(OUTPUTS + 1);
        for (int k = 0; row && k <= OUTPUTS; k++) {
            PyObject *number = PyLong_FromDouble(rint((double)(k < OUTPUTS ? chances[i * OUTPUTS + k] : points[i]) * 10000.0));
            if (!number) Py_CLEAR(row);
            else PyList_SET_ITEM(row, k, number);
        }
        if (!row) Py_CLEAR(rows);
        else PyList_SET_ITEM(rows, i, row);
    }
    PyBuffer_Release(&chances_view);
    PyBuffer_Release(&points_view);
    return rows;
}

/* network.py's sigmoid of a layer's sums plus its biases, around numpy's exp (whose float32 results
 * C's expf need not match): `sigmoid_head` adds the biases, clips to +-40 and negates, in place;
 * `sigmoid_tail` takes 1 / (1 + e). Each step is numpy's own, element by element, so the layer is
 * numpy's bit for bit, in two calls where numpy makes five. */
static PyObject *sigmoid_head(PyObject *self, PyObject *args) {
    PyObject *array, *bias_array;
    Py_buffer view, bias_view;
    if (!PyArg_ParseTuple(args, "OO", &array, &bias_array)) return NULL;
    Py_ssize_t columns = float_rows(bias_array, 1, -1, 0, "biases", &bias_view);
    if (columns < 0) return NULL;
    if (columns == 0 || float_rows(array, columns, -1, 1, "sums", &view) < 0) {
        if (columns == 0) PyErr_SetString(PyExc_ValueError, "biases: at least one");
        PyBuffer_Release(&bias_view);
        return NULL;
    }
    const float *bias = bias_view.buf;
    for (float *row = view.buf, *end = row + view.len / 4; row < end; row += columns)
        for (Py_ssize_t k = 0; k < columns; k++) {
            row[k] = -clipped(row[k] + bias[k]);
        }
    PyBuffer_Release(&view);
    PyBuffer_Release(&bias_view);
    Py_RETURN_NONE;
}

static PyObject *sigmoid_tail(PyObject *self, PyObject *array) {
    Py_buffer view;
    if (float_rows(array, 1, -1, 1, "sums", &view) < 0) return NULL;
    float *values = view.buf;
    for (Py_ssize_t i = 0, count = view.len / 4; i < count; i++) values[i] = 1.0f / (1.0f + values[i]);
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"encode", encode, METH_VARARGS,
     "encode(nodes, parallel, hitting, pinning, release_from, scales) -> bytes\n\n"
     "features.encode(Boards.of(nodes), shape) as the bytes of a (len(nodes), width) float32 array;\n"
     "scales: the term scales in board_terms' order (its width follows from them)."},
    {"chances", chances, METH_VARARGS,
     "chances(nodes, parallel, hitting, pinning, release_from, scales, network) -> bytearray\n\n"
     "Network.forward(encode(Boards.of(nodes), shape)) as the bytes of a (len(nodes), 5) float32 array, to\n"
     "float32 rounding; network: its (hidden_weights, hidden_bias, output_weights, output_bias), float32."},
    {"equity", equity, METH_O,
     "equity(chances) -> bytearray\n\n"
     "players.equity(chances) of float32 rows of five chances, bit for bit, as the bytes of a float32 array."},
    {"sigmoid_head", sigmoid_head, METH_VARARGS,
     "sigmoid_head(sums, biases)\n\n"
     "In place: each row of float32 sums plus the biases, clipped to +-40 and negated (network.py's sigmoid before exp)."},
    {"sigmoid_tail", sigmoid_tail, METH_O,
     "sigmoid_tail(values)\n\n"
     "In place: 1 / (1 + v) for each float32 value (network.py's sigmoid after exp)."},
    {"ten_thousandths_rows", ten_thousandths_rows, METH_VARARGS,
     "ten_thousandths_rows(chances, points) -> list\n\n"
     "players.ten_thousandths of each row's five chances and its points (float32), as a list of six ints."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "firmware_host.bot._encode",
    "The bot's inputs and its network for a few plays in C (optional; firmware_host/bot/features.py\n"
    "and network.py are the oracles).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__encode(void) { return PyModule_Create(&module); }
