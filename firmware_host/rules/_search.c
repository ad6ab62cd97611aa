/* The search's inner loop of firmware_host/rules/plays.py (`Turn.search` with `Frame.steps`) in C.
 *
 * One call runs the whole level-by-level search for one roll and returns what the Python generator
 * yields, in the same order: a list of (node, moves, remaining) for every state reached, keyed by
 * (node, dice still to play), each with the moves that first reached it. The Python search is the
 * specification and the oracle (tests/rules/test_rules_compiled.py); this file follows it line by
 * line, with the state packed into a fixed struct and merged in its own hash table, so that no
 * Python object is made inside the loop. Only the rule options whose checks are plain arithmetic on
 * the state are handled here; `Frame.search_config` sends the others to the Python search.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define POSITIONS 26 /* 0 bar, 1..24 the route, 25 off: the mover's frame */
#define BAR 0
#define OFF 25
#define START 1
#define HOME_FIRST 19 /* the mover's home board, 19..24 */
#define CHECKERS 15
#define MAX_DICE 8

enum { CAPTURE_NONE = 0, CAPTURE_HIT = 1, CAPTURE_PIN = 2, CAPTURE_CHOICE = 3 };

/* The rules `Frame.steps` reads, from `Frame.search_config` (same names). */
typedef struct {
    int capture, entry_may_trap, pinned_blocks_bearoff, first_checker, released_at_start,
        release_mid_turn, release_from, head_limit, hit_and_run_frozen;
} Config;

/* A search key: a Node and the dice still to play (sorted). Zero-filled before use, so that its
 * bytes (padding included) are its identity for hashing and comparing. */
typedef struct {
    uint8_t me[POSITIONS];
    uint8_t opp[POSITIONS];
    uint32_t my_pins, opp_pins;
    uint8_t frozen[6]; /* checkers that hit on home points 19..24 (no hit-and-run): a count each */
    uint8_t head;
    uint8_t dice_left;
    uint8_t dice[MAX_DICE];
} State;

typedef struct {
    State state;
    int32_t parent;   /* index in the level before; -1 for the start */
    uint8_t move[5];  /* source, target, die, hit, pin */
    uint8_t finished; /* all borne off: the game is over, nothing more is searched from here */
} Entry;

typedef struct {
    Entry *entries;
    Py_ssize_t count, capacity;
} Level;

typedef struct {
    int32_t *slots; /* entry indices, -1 empty */
    size_t mask;
} Table;

static uint64_t state_hash(const State *s) {
    uint64_t words[sizeof(State) / 8 + 1] = {0};
    memcpy(words, s, sizeof(State));
    uint64_t h = 0x9E3779B97F4A7C15ULL;
    for (size_t i = 0; i < sizeof(words) / 8; i++) {
        h ^= words[i];
        h *= 0xFF51AFD7ED558CCDULL;
        h ^= h >> 32;
    }
    return h;
}

static int level_push(Level *level, const Entry *entry) {
    if (level->count == level->capacity) {
        Py_ssize_t capacity = level->capacity ? 2 * level->capacity : 16;
        Entry *grown = PyMem_Realloc(level->entries, capacity * sizeof(Entry));
        if (!grown) {
            PyErr_NoMemory();
            return -1;
        }
        level->entries = grown, level->capacity = capacity;
    }
    level->entries[level->count++] = *entry;
    return 0;
}

static int table_reset(Table *table, size_t wanted) {
    size_t size = 64;
    while (size < 2 * wanted) size <<= 1;
    if (size - 1 != table->mask || !table->slots) {
        PyMem_Free(table->slots);
        table->slots = PyMem_Malloc(size * sizeof(int32_t));
        if (!table->slots) {
            PyErr_NoMemory();
            return -1;
        }
        table->mask = size - 1;
    }
    memset(table->slots, 0xFF, size * sizeof(int32_t));
    return 0;
}

/* Adds `entry` to `level` unless its state is there already (the first to reach a state keeps it):
 * the index of the state in `level`, -1 on error. */
static int32_t level_add(Level *level, Table *table, const Entry *entry) {
    if ((size_t)(level->count + 1) * 2 > table->mask + 1) {
        /* grow and re-insert what is there */
        size_t size = (table->mask + 1) * 2;
        int32_t *slots = PyMem_Malloc(size * sizeof(int32_t));
        if (!slots) {
            PyErr_NoMemory();
            return -1;
        }
        memset(slots, 0xFF, size * sizeof(int32_t));
        for (Py_ssize_t i = 0; i < level->count; i++) {
            size_t at = state_hash(&level->entries[i].state) & (size - 1);
            while (slots[at] >= 0) at = (at + 1) & (size - 1);
            slots[at] = (int32_t)i;
        }
        PyMem_Free(table->slots);
        table->slots = slots, table->mask = size - 1;
    }
    size_t at = state_hash(&entry->state) & table->mask;
    while (table->slots[at] >= 0) {
        if (!memcmp(&level->entries[table->slots[at]].state, &entry->state, sizeof(State)))
            return table->slots[at];
        at = (at + 1) & table->mask;
    }
    table->slots[at] = (int32_t)level->count;
    return level_push(level, entry) < 0 ? -1 : (int32_t)level->count - 1;
}

/* The moves of a level's states, in the order found (the referee's graph: `Turn.search`'s edges). */
typedef struct {
    int32_t parent, child; /* indices in the level and the next */
    uint8_t move[5];
} Edge;

typedef struct {
    Edge *edges;
    Py_ssize_t count, capacity;
} EdgeList;

static int edge_push(EdgeList *list, int32_t parent, int32_t child, const uint8_t *move) {
    if (list->count == list->capacity) {
        Py_ssize_t capacity = list->capacity ? 2 * list->capacity : 64;
        Edge *grown = PyMem_Realloc(list->edges, capacity * sizeof(Edge));
        if (!grown) {
            PyErr_NoMemory();
            return -1;
        }
        list->edges = grown, list->capacity = capacity;
    }
    Edge *edge = &list->edges[list->count++];
    edge->parent = parent, edge->child = child;
    memcpy(edge->move, move, sizeof edge->move);
    return 0;
}

static int released(const Config *config, const State *s) {
    if (s->me[OFF]) return 1;
    for (int p = config->release_from; p < OFF; p++)
        if (s->me[p]) return 1;
    return 0;
}

/* `Frame._landings`: (hit, pin) for each way to land on `target`, which the opponent occupies. */
static int landings(const Config *config, const State *s, int source, int target, uint8_t ways[2][2]) {
    if (config->capture == CAPTURE_NONE || s->opp[target] >= 2) return 0;
    if (s->me[target]) {
        if (s->my_pins >> target & 1) return 0;
        ways[0][0] = 0, ways[0][1] = 0;
        return 1;
    }
    if (config->capture == CAPTURE_HIT || (config->capture == CAPTURE_CHOICE && source == BAR &&
                                           !config->entry_may_trap)) {
        ways[0][0] = 1, ways[0][1] = 0;
        return 1;
    }
    if (config->capture == CAPTURE_PIN) {
        ways[0][0] = 0, ways[0][1] = 1;
        return 1;
    }
    ways[0][0] = 1, ways[0][1] = 0;
    ways[1][0] = 0, ways[1][1] = 1;
    return 2;
}

/* `Frame.steps(node, die)`, each child added to `next` with the dice `rest` left to play (and each
 * move to `edges`, where given). */
static int expand(const Config *config, const Entry *from, int32_t from_index, int die,
                  const uint8_t *rest, int rest_count, Level *next, Table *table, EdgeList *edges) {
    const State *s = &from->state;
    int first, last;
    if (s->me[BAR]) {
        first = last = BAR; /* a checker on the bar enters first */
    } else {
        int bearing_off = !(s->my_pins && config->pinned_blocks_bearoff);
        for (int p = 0; p < HOME_FIRST && bearing_off; p++)
            if (s->me[p]) bearing_off = 0;
        first = 1;
        last = bearing_off ? OFF - 1 : OFF - die - 1;
    }
    for (int source = first; source <= last; source++) {
        if (!s->me[source]) continue;
        int movable = s->me[source] - (int)(s->my_pins >> source & 1);
        if (source >= HOME_FIRST) movable -= s->frozen[source - HOME_FIRST];
        if (movable <= 0) continue;
        int moved_head = s->head;
        if (source == START) {
            if (config->first_checker && s->me[START] != CHECKERS &&
                !(config->released_at_start || (config->release_mid_turn && released(config, s))))
                continue; /* no second checker leaves the start before the first has passed */
            if (config->head_limit) {
                if (s->head >= config->head_limit) continue;
                moved_head = s->head + 1;
            }
        }
        int target = source + die;
        uint8_t ways[2][2] = {{0, 0}, {0, 0}};
        int way_count = 1;
        if (target >= OFF) {
            if (target > OFF) {
                int higher = 0; /* a larger die bears off only from the highest occupied point */
                for (int p = HOME_FIRST; p < source; p++)
                    if (s->me[p]) higher = 1;
                if (higher) continue;
            }
            target = OFF;
        } else if (s->opp[target]) {
            way_count = landings(config, s, source, target, ways);
            if (!way_count) continue;
        }
        Entry child;
        memcpy(&child.state, s, sizeof(State));
        child.state.me[source]--;
        child.state.me[target]++;
        child.state.head = (uint8_t)moved_head;
        child.state.dice_left = (uint8_t)rest_count;
        memset(child.state.dice, 0, MAX_DICE);
        memcpy(child.state.dice, rest, rest_count);
        uint32_t left_pins = s->opp_pins;
        if (s->opp_pins && source != BAR && !child.state.me[source] && (s->opp_pins >> source & 1))
            left_pins &= ~(1u << source); /* the pinned checker is free once all pinners have left */
        child.parent = from_index;
        child.finished = child.state.me[OFF] == CHECKERS;
        for (int w = 0; w < way_count; w++) {
            int hit = ways[w][0], pin = ways[w][1];
            memcpy(child.state.opp, s->opp, POSITIONS);
            memcpy(child.state.frozen, s->frozen, sizeof s->frozen);
            child.state.opp_pins = left_pins;
            if (hit) {
                child.state.opp[target]--;
                child.state.opp[BAR]++;
                if (config->hit_and_run_frozen && target >= HOME_FIRST && target < OFF)
                    child.state.frozen[target - HOME_FIRST]++;
            } else if (pin) {
                child.state.opp_pins |= 1u << target;
            }
            child.move[0] = (uint8_t)source, child.move[1] = (uint8_t)target;
            child.move[2] = (uint8_t)die, child.move[3] = (uint8_t)hit, child.move[4] = (uint8_t)pin;
            int32_t added = level_add(next, table, &child);
            if (added < 0 || (edges && edge_push(edges, from_index, added, child.move) < 0)) return -1;
        }
    }
    return 0;
}

/* -- reading the start node and writing the visits as Python objects ------------------------------ */

static int read_counts(PyObject *counts, uint8_t *out, const char *name) {
    if (!PyTuple_Check(counts) || PyTuple_GET_SIZE(counts) != POSITIONS) {
        PyErr_Format(PyExc_ValueError, "node.%s: a tuple of %d counts", name, POSITIONS);
        return -1;
    }
    for (int p = 0; p < POSITIONS; p++) {
        long n = PyLong_AsLong(PyTuple_GET_ITEM(counts, p));
        if (n == -1 && PyErr_Occurred()) return -1;
        if (n < 0 || n > CHECKERS) {
            PyErr_Format(PyExc_ValueError, "node.%s[%d]: %ld checkers", name, p, n);
            return -1;
        }
        out[p] = (uint8_t)n;
    }
    return 0;
}

static int read_node(PyObject *node, State *s) {
    if (!PyTuple_Check(node) || PyTuple_GET_SIZE(node) != 6) {
        PyErr_SetString(PyExc_ValueError, "a node is a tuple (me, opp, my_pins, opp_pins, frozen, head)");
        return -1;
    }
    if (read_counts(PyTuple_GET_ITEM(node, 0), s->me, "me") < 0 ||
        read_counts(PyTuple_GET_ITEM(node, 1), s->opp, "opp") < 0)
        return -1;
    unsigned long my_pins = PyLong_AsUnsignedLong(PyTuple_GET_ITEM(node, 2));
    unsigned long opp_pins = PyLong_AsUnsignedLong(PyTuple_GET_ITEM(node, 3));
    long head = PyLong_AsLong(PyTuple_GET_ITEM(node, 5));
    if (PyErr_Occurred()) return -1;
    if (my_pins >> OFF || opp_pins >> OFF || head < 0 || head > CHECKERS) {
        PyErr_SetString(PyExc_ValueError, "node: pins are bits 1..24 and head 0..15");
        return -1;
    }
    s->my_pins = (uint32_t)my_pins, s->opp_pins = (uint32_t)opp_pins, s->head = (uint8_t)head;
    PyObject *frozen = PyTuple_GET_ITEM(node, 4);
    if (!PyTuple_Check(frozen)) {
        PyErr_SetString(PyExc_ValueError, "node.frozen: a tuple of home points");
        return -1;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(frozen); i++) {
        long p = PyLong_AsLong(PyTuple_GET_ITEM(frozen, i));
        if (p == -1 && PyErr_Occurred()) return -1;
        if (p < HOME_FIRST || p >= OFF) {
            PyErr_Format(PyExc_ValueError, "node.frozen: %ld is not a home point 19..24", p);
            return -1;
        }
        s->frozen[p - HOME_FIRST]++;
    }
    return 0;
}

/* A tuple of ints (or of such tuples, Nodes and visits included) can never be part of a reference
 * cycle: it cannot change, and holds nothing that could lead back to it. The collector untracks
 * plain tuples of that kind itself when it meets them; doing it at once, for all of them, spares it
 * the searches' thousands of them, which otherwise make up half the time of a large search. */
static void untrack(PyObject *tuple) {
    if (PyObject_GC_IsTracked(tuple)) PyObject_GC_UnTrack(tuple);
}

/* The ints 0..25 (counts, positions, dice), made once: the tuples take thousands of them. */
static PyObject *small_ints[POSITIONS];

static PyObject *small_int(int value) {
    PyObject *number = small_ints[value];
    Py_INCREF(number);
    return number;
}

static PyObject *counts_tuple(const uint8_t *counts) {
    PyObject *t = PyTuple_New(POSITIONS);
    if (!t) return NULL;
    for (int p = 0; p < POSITIONS; p++) PyTuple_SET_ITEM(t, p, small_int(counts[p]));
    untrack(t);
    return t; /* small ints are cached: never NULL */
}

/* `item` when it equals `value` (a tuple's slot of the parent node), else a new int. */
static PyObject *pins_int(uint32_t value, uint32_t parent_value, PyObject *parent_item) {
    if (parent_item && value == parent_value) {
        Py_INCREF(parent_item);
        return parent_item;
    }
    return PyLong_FromUnsignedLong(value);
}

/* A Node (the tuple subclass `node_type`) for `s`, sharing the parent's items that are unchanged
 * (a Node is compared by value; sharing only saves building them). `previous_me` is the last node
 * built in this level, whose `me` the siblings of one move share. */
static PyObject *build_node(PyTypeObject *node_type, const State *s, const State *parent_state,
                            PyObject *parent, const State *previous_state, PyObject *previous) {
    PyObject *me, *opp, *frozen;
    if (previous && !memcmp(previous_state->me, s->me, POSITIONS)) {
        me = PyTuple_GET_ITEM(previous, 0);
        Py_INCREF(me);
    } else if (!(me = counts_tuple(s->me))) {
        return NULL;
    }
    if (parent && !memcmp(parent_state->opp, s->opp, POSITIONS)) {
        opp = PyTuple_GET_ITEM(parent, 1);
        Py_INCREF(opp);
    } else if (!(opp = counts_tuple(s->opp))) {
        Py_DECREF(me);
        return NULL;
    }
    if (parent && !memcmp(parent_state->frozen, s->frozen, sizeof s->frozen)) {
        frozen = PyTuple_GET_ITEM(parent, 4);
        Py_INCREF(frozen);
    } else {
        int size = 0;
        for (int i = 0; i < 6; i++) size += s->frozen[i];
        if (!(frozen = PyTuple_New(size))) {
            Py_DECREF(me), Py_DECREF(opp);
            return NULL;
        }
        int at = 0; /* ascending, as the Python search keeps it sorted */
        for (int i = 0; i < 6; i++)
            for (int k = 0; k < s->frozen[i]; k++)
                PyTuple_SET_ITEM(frozen, at++, small_int(HOME_FIRST + i));
        untrack(frozen);
    }
    PyObject *my_pins = pins_int(s->my_pins, parent ? parent_state->my_pins : 0,
                                 parent ? PyTuple_GET_ITEM(parent, 2) : NULL);
    PyObject *opp_pins = pins_int(s->opp_pins, parent ? parent_state->opp_pins : 0,
                                  parent ? PyTuple_GET_ITEM(parent, 3) : NULL);
    PyObject *head = small_int(s->head);
    /* as tuple.__new__(node_type, items) makes it */
    PyObject *node = node_type->tp_alloc(node_type, 6);
    if (!node || !my_pins || !opp_pins) {
        Py_XDECREF(node), Py_DECREF(me), Py_DECREF(opp), Py_DECREF(frozen);
        Py_XDECREF(my_pins), Py_XDECREF(opp_pins), Py_DECREF(head);
        return NULL;
    }
    PyTuple_SET_ITEM(node, 0, me);
    PyTuple_SET_ITEM(node, 1, opp);
    PyTuple_SET_ITEM(node, 2, my_pins);
    PyTuple_SET_ITEM(node, 3, opp_pins);
    PyTuple_SET_ITEM(node, 4, frozen);
    PyTuple_SET_ITEM(node, 5, head);
    untrack(node);
    return node;
}

/* The moves that reached an entry: its parent's and its own move (source, target, die, hit, pin). */
static PyObject *build_moves(PyObject *parent_moves, const uint8_t *move) {
    Py_ssize_t before = PyTuple_GET_SIZE(parent_moves);
    PyObject *moves = PyTuple_New(before + 1);
    PyObject *last = PyTuple_New(5);
    if (!moves || !last) {
        Py_XDECREF(moves), Py_XDECREF(last);
        return NULL;
    }
    for (int i = 0; i < 3; i++) PyTuple_SET_ITEM(last, i, small_int(move[i]));
    for (int i = 3; i < 5; i++) PyTuple_SET_ITEM(last, i, PyBool_FromLong(move[i]));
    for (Py_ssize_t i = 0; i < before; i++) {
        PyObject *item = PyTuple_GET_ITEM(parent_moves, i);
        Py_INCREF(item);
        PyTuple_SET_ITEM(moves, i, item);
    }
    PyTuple_SET_ITEM(moves, before, last);
    untrack(last);
    untrack(moves);
    return moves;
}

/* The dice left as a tuple, one object per distinct remainder of the search. */
typedef struct {
    uint8_t count, dice[MAX_DICE];
    PyObject *tuple; /* borrowed from the result list */
} Remainder;

static PyObject *remainder_tuple(Remainder *known, int *known_count, const State *s) {
    for (int i = 0; i < *known_count; i++)
        if (known[i].count == s->dice_left && !memcmp(known[i].dice, s->dice, s->dice_left)) {
            Py_INCREF(known[i].tuple);
            return known[i].tuple;
        }
    PyObject *t = PyTuple_New(s->dice_left);
    if (!t) return NULL;
    for (int i = 0; i < s->dice_left; i++) PyTuple_SET_ITEM(t, i, small_int(s->dice[i]));
    untrack(t);
    if (*known_count < 64) {
        Remainder *r = &known[(*known_count)++];
        r->count = s->dice_left;
        memcpy(r->dice, s->dice, MAX_DICE);
        r->tuple = t;
    }
    return t;
}

static int read_config(PyObject *config_tuple, Config *c) {
    return PyArg_ParseTuple(config_tuple, "iiiiiiiii;config: 9 ints (Frame.search_config)",
                            &c->capture, &c->entry_may_trap, &c->pinned_blocks_bearoff,
                            &c->first_checker, &c->released_at_start, &c->release_mid_turn,
                            &c->release_from, &c->head_limit, &c->hit_and_run_frozen)
               ? 0 : -1;
}

/* The Python search's `edges`: (node, dice left) -> [(move, child's key), ...] for every state
 * reached whose game goes on, its moves in the order found. `visits` holds the visits level after
 * level: their nodes and dice left make the keys. `keys_out` (a list, or NULL): each visit's key
 * appended in the visits' order, the very objects the edges name their children by. */
static int record_edges(PyObject *edges, const Level *levels, const EdgeList *moved, Py_ssize_t dice_count,
                        PyObject **nodes[], PyObject *visits, PyObject *keys_out) {
    PyObject **keys[MAX_DICE + 1] = {NULL}, **outs[MAX_DICE + 1] = {NULL};
    int status = -1;
    Py_ssize_t at = 0;
    for (int k = 0; k <= dice_count && levels[k].count; k++) {
        if (!(keys[k] = PyMem_Calloc(levels[k].count, sizeof(PyObject *))) ||
            !(outs[k] = PyMem_Calloc(levels[k].count, sizeof(PyObject *)))) {
            PyErr_NoMemory();
            goto done;
        }
        for (Py_ssize_t i = 0; i < levels[k].count; i++, at++) {
            PyObject *key = PyTuple_Pack(2, nodes[k][i], PyTuple_GET_ITEM(PyList_GET_ITEM(visits, at), 2));
            if (!key) goto done;
            untrack(key);
            keys[k][i] = key;
            if (keys_out && PyList_Append(keys_out, key) < 0) goto done;
            if (levels[k].entries[i].finished) continue;
            PyObject *out = PyList_New(0);
            if (!out || PyDict_SetItem(edges, key, out) < 0) {
                Py_XDECREF(out);
                goto done;
            }
            outs[k][i] = out; /* borrowed: the dict holds it */
            Py_DECREF(out);
        }
    }
    for (int k = 0; k < dice_count && levels[k + 1].count; k++) {
        for (Py_ssize_t e = 0; e < moved[k].count; e++) {
            const Edge *edge = &moved[k].edges[e];
            PyObject *out = outs[k][edge->parent]; /* (not looked up in the dict: no key hashed) */
            PyObject *move = PyTuple_New(5), *pair;
            if (!out || !move) {
                Py_XDECREF(move);
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_SystemError, "search: an edge from nowhere");
                goto done;
            }
            for (int i = 0; i < 3; i++) PyTuple_SET_ITEM(move, i, small_int(edge->move[i]));
            for (int i = 3; i < 5; i++) PyTuple_SET_ITEM(move, i, PyBool_FromLong(edge->move[i]));
            untrack(move);
            pair = PyTuple_Pack(2, move, keys[k + 1][edge->child]);
            Py_DECREF(move);
            if (!pair) goto done;
            untrack(pair);
            int appended = PyList_Append(out, pair);
            Py_DECREF(pair);
            if (appended < 0) goto done;
        }
    }
    status = 0;
done:
    for (int k = 0; k <= MAX_DICE; k++) {
        PyMem_Free(outs[k]);
        if (!keys[k]) continue;
        for (Py_ssize_t i = 0; i < levels[k].count; i++) Py_XDECREF(keys[k][i]);
        PyMem_Free(keys[k]);
    }
    return status;
}

static PyObject *search(PyObject *module, PyObject *args) {
    (void)module;
    PyTypeObject *visit_type, *node_type;
    PyObject *start, *dice_tuple, *config_tuple, *edges = Py_None, *keys_out = Py_None;
    if (!PyArg_ParseTuple(args, "O!O!OO!O!|OO:search", &PyType_Type, &visit_type, &PyType_Type, &node_type,
                          &start, &PyTuple_Type, &dice_tuple, &PyTuple_Type, &config_tuple, &edges, &keys_out))
        return NULL;
    if (edges == Py_None) {
        edges = NULL;
    } else if (!PyDict_Check(edges)) {
        PyErr_SetString(PyExc_TypeError, "search: edges is a dict or None");
        return NULL;
    }
    if (keys_out == Py_None) {
        keys_out = NULL;
    } else if (!PyList_Check(keys_out) || !edges) {
        PyErr_SetString(PyExc_TypeError, "search: keys is a list, given with edges, or None");
        return NULL;
    }
    if (!PyType_IsSubtype(node_type, &PyTuple_Type) || !PyType_IsSubtype(visit_type, &PyTuple_Type)) {
        PyErr_SetString(PyExc_TypeError, "search: the visit and node types are tuple subclasses");
        return NULL;
    }
    Config config;
    if (read_config(config_tuple, &config) < 0) return NULL;
    Entry root;
    memset(&root, 0, sizeof root);
    root.parent = -1;
    if (read_node(start, &root.state) < 0) return NULL;
    Py_ssize_t dice_count = PyTuple_GET_SIZE(dice_tuple);
    if (dice_count > MAX_DICE) {
        PyErr_Format(PyExc_ValueError, "search: at most %d dice", MAX_DICE);
        return NULL;
    }
    root.state.dice_left = (uint8_t)dice_count;
    for (Py_ssize_t i = 0; i < dice_count; i++) {
        long d = PyLong_AsLong(PyTuple_GET_ITEM(dice_tuple, i));
        if (d < 1 || d > 6 || (i && d < root.state.dice[i - 1])) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "search: dice are sorted, each 1 to 6");
            return NULL;
        }
        root.state.dice[i] = (uint8_t)d;
    }

    Level levels[MAX_DICE + 1];
    memset(levels, 0, sizeof levels);
    Table table = {NULL, 0};
    PyObject *result = NULL, *visits = NULL, *borne_off = NULL, *empty = NULL;
    PyObject **nodes[MAX_DICE + 1] = {NULL}, **moves[MAX_DICE + 1] = {NULL};
    EdgeList moved[MAX_DICE];
    memset(moved, 0, sizeof moved);
    int depth = 0;
    if (level_push(&levels[0], &root) < 0) goto fail;
    /* the search: level k holds the states after k dice, in the order first reached */
    for (; depth < dice_count && levels[depth].count; depth++) {
        Level *level = &levels[depth], *next = &levels[depth + 1];
        if (table_reset(&table, (size_t)level->count * 4) < 0) goto fail;
        for (Py_ssize_t i = 0; i < level->count; i++) {
            const Entry *entry = &level->entries[i];
            if (entry->finished) continue;
            const State *s = &entry->state;
            for (int k = 0; k < s->dice_left; k++) {
                if (k && s->dice[k] == s->dice[k - 1]) continue; /* each distinct die, lowest first */
                uint8_t rest[MAX_DICE];
                int rest_count = 0;
                for (int j = 0; j < s->dice_left; j++)
                    if (j != k) rest[rest_count++] = s->dice[j];
                if (expand(&config, entry, (int32_t)i, s->dice[k], rest, rest_count, next, &table,
                           edges ? &moved[depth] : NULL) < 0)
                    goto fail; /* (only the next level grows: `entry` stays where it is) */
            }
        }
    }
    /* the visits, level after level */
    Py_ssize_t total = 0;
    for (int k = 0; k <= dice_count; k++) total += levels[k].count;
    if (!(visits = PyList_New(total)) || !(borne_off = PyList_New(0))) goto fail;
    if (!(empty = PyTuple_New(0))) goto fail;
    Remainder remainders[64];
    int remainder_count = 0;
    Py_ssize_t at = 0;
    for (int k = 0; k <= dice_count && levels[k].count; k++) {
        Level *level = &levels[k];
        nodes[k] = PyMem_Malloc(level->count * sizeof(PyObject *));
        moves[k] = PyMem_Malloc(level->count * sizeof(PyObject *));
        if (!nodes[k] || !moves[k]) {
            PyErr_NoMemory();
            goto fail;
        }
        for (Py_ssize_t i = 0; i < level->count; i++) {
            const Entry *entry = &level->entries[i];
            PyObject *node, *path, *rest, *visit;
            if (k == 0) {
                node = start;
                Py_INCREF(node);
                path = empty;
                Py_INCREF(path);
            } else {
                const Entry *parent = &levels[k - 1].entries[entry->parent];
                node = build_node(node_type, &entry->state, &parent->state, nodes[k - 1][entry->parent],
                                  i ? &level->entries[i - 1].state : NULL, i ? nodes[k][i - 1] : NULL);
                if (!node) goto fail;
                if (!(path = build_moves(moves[k - 1][entry->parent], entry->move))) {
                    Py_DECREF(node);
                    goto fail;
                }
            }
            if (!(rest = remainder_tuple(remainders, &remainder_count, &entry->state))) {
                Py_DECREF(node), Py_DECREF(path);
                goto fail;
            }
            if (!(visit = visit_type->tp_alloc(visit_type, 4))) { /* as tuple.__new__ makes it */
                Py_DECREF(node), Py_DECREF(path), Py_DECREF(rest);
                goto fail;
            }
            PyTuple_SET_ITEM(visit, 0, node);
            PyTuple_SET_ITEM(visit, 1, path);
            PyTuple_SET_ITEM(visit, 2, rest);
            Py_INCREF(Py_None);
            PyTuple_SET_ITEM(visit, 3, Py_None); /* the result: set by the caller where borne off */
            untrack(visit);
            if (entry->finished) {
                PyObject *index = PyLong_FromSsize_t(at);
                if (!index || PyList_Append(borne_off, index) < 0) {
                    Py_XDECREF(index);
                    Py_DECREF(visit);
                    goto fail;
                }
                Py_DECREF(index);
            }
            PyList_SET_ITEM(visits, at++, visit);
            nodes[k][i] = node, moves[k][i] = path; /* borrowed: the visits list holds them */
        }
    }
    if (edges && record_edges(edges, levels, moved, dice_count, nodes, visits, keys_out) < 0) goto fail;
    Py_DECREF(empty);
    result = PyTuple_Pack(2, visits, borne_off);
    Py_DECREF(visits), Py_DECREF(borne_off);
    goto done;
fail:
    Py_XDECREF(visits);
    Py_XDECREF(borne_off);
    Py_XDECREF(empty);
done:
    for (int k = 0; k <= MAX_DICE; k++) {
        PyMem_Free(levels[k].entries);
        PyMem_Free(nodes[k]);
        PyMem_Free(moves[k]);
        if (k < MAX_DICE) PyMem_Free(moved[k].edges);
    }
    PyMem_Free(table.slots);
    return result;
}


/* -- the referee's forward fit (firmware_host/referee/reach.py `forward_fit`, its specification) ---
 *
 * Whether `start` may become `board` by forward moves, each die used once, a checker playing its
 * dice lowest first, never landing on a closed point: the same scan from the back, the same states
 * in the same order, memoised on (location, dice left, arrivals ahead) in a fixed-size table, and
 * the same bound on the states visited (so the same answer, and the same work spent, where it gives
 * up). The arrivals per slot are counts per die value: the same multiset as the sorted tuple. */

#define FIT_SLOTS 6  /* a die moves a checker 1..6 locations on */
#define FIT_VALUES 6 /* distinct die values */

typedef struct {
    uint8_t p;
    uint8_t left[FIT_VALUES];
    uint8_t arriving[FIT_SLOTS][FIT_VALUES];
} FitKey;

typedef struct {
    FitKey key;
    uint8_t taken; /* the slot holds a key */
    uint8_t fits;
} FitEntry;

typedef struct {
    int start[POSITIONS], board[POSITIONS];
    int values[FIT_VALUES], nv;
    int gain[POSITIONS], most_gain[POSITIONS], to_gain[POSITIONS];
    int waste;
    uint8_t usable[OFF][FIT_VALUES];
    FitEntry *table;
    size_t mask;
    long count, states;
} Fit;

static FitEntry *fit_slot(Fit *f, const FitKey *key) {
    const uint8_t *bytes = (const uint8_t *)key;
    uint64_t hash = 1469598103934665603ULL;
    for (size_t i = 0; i < sizeof(FitKey); i++) hash = (hash ^ bytes[i]) * 1099511628211ULL;
    for (size_t i = (size_t)hash & f->mask;; i = (i + 1) & f->mask) {
        FitEntry *entry = &f->table[i];
        if (!entry->taken || memcmp(&entry->key, key, sizeof(FitKey)) == 0) return entry;
    }
}

static int fit_possible(const Fit *f, int p, int pips_left, uint8_t arriving[FIT_SLOTS][FIT_VALUES]) {
    int counts[FIT_SLOTS];
    long spare = pips_left - f->to_gain[p];
    for (int i = 0; i < FIT_SLOTS; i++) {
        counts[i] = 0;
        for (int v = 0; v < f->nv; v++) counts[i] += arriving[i][v];
        spare += (long)(p + i) * counts[i];
    }
    if (spare < 0 || spare > f->waste) return 0;
    int before = p ? f->gain[p - 1] : 0, arrived = 0;
    int reach = OFF + 1 - p < FIT_SLOTS ? OFF + 1 - p : FIT_SLOTS;
    for (int i = 0; i < reach; i++) {
        arrived += counts[i];
        if (f->gain[p + i] - before > arrived) return 0;
    }
    return p + FIT_SLOTS > OFF || f->most_gain[p + FIT_SLOTS] - before <= arrived;
}

static int fit_go(Fit *f, int p, const uint8_t *left, int pips_left,
                  uint8_t arriving[FIT_SLOTS][FIT_VALUES]);

/* One way the leavers take the dice (`used` per value): 1 fits, 0 not, -1 undecided. */
static int fit_take(Fit *f, int p, const uint8_t *used, const int *leavers, const uint8_t *left,
                    int pips_left, uint8_t arriving[FIT_SLOTS][FIT_VALUES]) {
    int j = 0;
    for (int v = 0; v < f->nv; v++)
        for (int n = 0; n < used[v]; n++, j++)
            if (f->values[v] < leavers[j]) return 0;
    uint8_t ahead[FIT_SLOTS][FIT_VALUES], rest[FIT_VALUES];
    memcpy(ahead, arriving[1], sizeof(ahead[0]) * (FIT_SLOTS - 1));
    memset(ahead[FIT_SLOTS - 1], 0, sizeof(ahead[0]));
    int pips = pips_left;
    for (int v = 0; v < f->nv; v++) {
        rest[v] = (uint8_t)(left[v] - used[v]);
        if (used[v]) {
            int target = p + f->values[v] < OFF ? p + f->values[v] : OFF;
            ahead[target - p - 1][v] += used[v];
            pips -= f->values[v] * used[v];
        }
    }
    return fit_go(f, p + 1, rest, pips, ahead);
}

/* Every split of `total` leavers over the die values from `v` on, in `_splits`' order. */
static int fit_splits(Fit *f, int p, int v, int total, const uint8_t *limits, uint8_t *used,
                      const int *leavers, const uint8_t *left, int pips_left,
                      uint8_t arriving[FIT_SLOTS][FIT_VALUES]) {
    if (v == f->nv) return total ? 0 : fit_take(f, p, used, leavers, left, pips_left, arriving);
    for (int n = total < limits[v] ? total : limits[v]; n >= 0; n--) {
        used[v] = (uint8_t)n;
        int found = fit_splits(f, p, v + 1, total - n, limits, used, leavers, left, pips_left, arriving);
        if (found) return found;
    }
    return 0;
}

static int fit_go(Fit *f, int p, const uint8_t *left, int pips_left,
                  uint8_t arriving[FIT_SLOTS][FIT_VALUES]) {
    if (p == OFF) {
        int borne = 0;
        for (int v = 0; v < f->nv; v++) {
            if (left[v]) return 0;
            borne += arriving[0][v];
        }
        return f->start[OFF] + borne == f->board[OFF];
    }
    FitKey key;
    memset(&key, 0, sizeof key);
    key.p = (uint8_t)p;
    memcpy(key.left, left, FIT_VALUES);
    memcpy(key.arriving, arriving, sizeof key.arriving);
    FitEntry *entry = fit_slot(f, &key);
    if (entry->taken) return entry->fits;
    if (f->count >= f->states) return -1;
    int fits = 0;
    if (fit_possible(f, p, pips_left, arriving)) {
        /* Those that leave are the ones that came with the lowest dice (0: there at the start). */
        int leavers[POSITIONS * 16], count = f->start[p];
        for (int i = 0; i < count; i++) leavers[i] = 0;
        for (int v = 0; v < f->nv; v++)
            for (int n = 0; n < arriving[0][v]; n++) leavers[count++] = f->values[v];
        int leaving = count - f->board[p];
        uint8_t limits[FIT_VALUES], used[FIT_VALUES] = {0};
        for (int v = 0; v < f->nv; v++) limits[v] = f->usable[p][v] ? left[v] : 0;
        if (leaving >= 0) fits = fit_splits(f, p, 0, leaving, limits, used, leavers, left, pips_left, arriving);
        if (fits < 0) return -1;
    }
    entry = fit_slot(f, &key); /* the table has grown since */
    entry->key = key, entry->taken = 1, entry->fits = (uint8_t)fits;
    f->count++;
    return fits;
}

static int read_fit_counts(PyObject *counts, int *out, const char *name) {
    if (!PyTuple_Check(counts) || PyTuple_GET_SIZE(counts) != POSITIONS) {
        PyErr_Format(PyExc_ValueError, "%s: a tuple of %d counts", name, POSITIONS);
        return -1;
    }
    for (int p = 0; p < POSITIONS; p++) {
        long n = PyLong_AsLong(PyTuple_GET_ITEM(counts, p));
        if (n == -1 && PyErr_Occurred()) return -1;
        if (n < 0 || n > CHECKERS) {
            PyErr_Format(PyExc_ValueError, "%s[%d]: %ld checkers", name, p, n);
            return -1;
        }
        out[p] = (int)n;
    }
    return 0;
}

/* The fit of `start` to `board` with `n_dice` dice (each 1..6) within `states` states: 1 fits, 0 not,
 * -1 gave up (the states it visited in *visited); -2 out of memory (an error set). */
static int fit_run(const int *start, const int *board, const long *dice, Py_ssize_t n_dice,
                   const uint8_t *closed_at, long states, long *visited) {
    Fit f;
    memset(&f, 0, sizeof f);
    memcpy(f.start, start, sizeof f.start);
    memcpy(f.board, board, sizeof f.board);
    int per_value[7] = {0}, total = 0;
    for (Py_ssize_t i = 0; i < n_dice; i++) per_value[dice[i]]++, total += (int)dice[i];
    uint8_t left[FIT_VALUES] = {0};
    for (int die = 1; die <= 6; die++)
        if (per_value[die]) left[f.nv] = (uint8_t)per_value[die], f.values[f.nv++] = die;
    int gained = 0, most = 0;
    for (int p = 0; p < POSITIONS; p++) f.gain[p] = (gained += f.board[p] - f.start[p]);
    for (int p = OFF; p >= 0; p--) {
        most = p == OFF || f.gain[p] > most ? f.gain[p] : most;
        f.most_gain[p] = most;
        f.to_gain[p] = p * (f.board[p] - f.start[p]) + (p < OFF ? f.to_gain[p + 1] : 0);
    }
    f.waste = 5 * (f.board[OFF] - f.start[OFF]);
    for (int p = 0; p < OFF; p++)
        for (int v = 0; v < f.nv; v++) f.usable[p][v] = p + f.values[v] >= OFF || !closed_at[p + f.values[v]];
    f.states = states;
    /* The bound is checked as a state is entered, so those entered before it was reached (one
     * per location at most) still complete: the table holds `states` + OFF keys at most. */
    size_t capacity = 64;
    while (capacity < 2 * ((size_t)(states > 0 ? states : 0) + OFF)) capacity *= 2;
    f.table = PyMem_Calloc(capacity, sizeof(FitEntry));
    if (!f.table) {
        PyErr_NoMemory();
        return -2;
    }
    f.mask = capacity - 1;
    uint8_t arriving[FIT_SLOTS][FIT_VALUES];
    memset(arriving, 0, sizeof arriving);
    int fits = fit_go(&f, 0, left, total, arriving);
    PyMem_Free(f.table);
    *visited = f.count;
    return PyErr_Occurred() ? -2 : fits;
}

/* The dice of a tuple (each 1..6, at most MAX_FIT_DICE) into `out`; their count, -1 on an error. */
#define MAX_FIT_DICE 255
static Py_ssize_t read_fit_dice(PyObject *dice, long *out) {
    Py_ssize_t n_dice = PyTuple_GET_SIZE(dice);
    if (n_dice > MAX_FIT_DICE) {
        PyErr_SetString(PyExc_ValueError, "dice: at most 255");
        return -1;
    }
    for (Py_ssize_t i = 0; i < n_dice; i++) {
        long die = PyLong_AsLong(PyTuple_GET_ITEM(dice, i));
        if (die == -1 && PyErr_Occurred()) return -1;
        if (die < 1 || die > 6) {
            PyErr_Format(PyExc_ValueError, "dice[%zd]: %ld is no die", i, die);
            return -1;
        }
        out[i] = die;
    }
    return n_dice;
}

/* The points of an iterable (those on the route) marked in `at`. */
static int read_points(PyObject *points, uint8_t *at) {
    PyObject *iterator = PyObject_GetIter(points), *item;
    if (!iterator) return -1;
    while ((item = PyIter_Next(iterator))) {
        long point = PyLong_AsLong(item);
        Py_DECREF(item);
        if (point == -1 && PyErr_Occurred()) break;
        if (point >= 0 && point < POSITIONS) at[point] = 1;
    }
    Py_DECREF(iterator);
    return PyErr_Occurred() ? -1 : 0;
}

static PyObject *forward_fit(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *start, *board, *dice, *closed;
    long states;
    if (!PyArg_ParseTuple(args, "O!O!O!Ol:forward_fit", &PyTuple_Type, &start, &PyTuple_Type, &board,
                          &PyTuple_Type, &dice, &closed, &states))
        return NULL;
    int start_counts[POSITIONS], board_counts[POSITIONS];
    long values[MAX_FIT_DICE];
    uint8_t closed_at[POSITIONS] = {0};
    if (read_fit_counts(start, start_counts, "start") < 0 || read_fit_counts(board, board_counts, "board") < 0)
        return NULL;
    Py_ssize_t n_dice = read_fit_dice(dice, values);
    if (n_dice < 0 || read_points(closed, closed_at) < 0) return NULL;
    long visited = 0;
    int fits = fit_run(start_counts, board_counts, values, n_dice, closed_at, states, &visited);
    if (fits == -2) return NULL;
    return Py_BuildValue("(Ol)", fits < 0 ? Py_None : fits ? Py_True : Py_False, visited);
}

/* -- the referee's reach (firmware_host/referee/reach.py `may_reach`, its specification) ----------
 *
 * The same tests in the same order: `covers` by running totals, then the one k whose pips are the
 * board's gain, or (checkers borne off) each k whose pips cover it, bounded by `_BearingOff`'s
 * counts; then `forward_fit` with the same bound on its states, the work spent counted alike. */

#define HOME_START 19

static PyObject *may_reach(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *start, *board, *dice, *closed, *stop, *work;
    long fit_states, work_left = 0;
    if (!PyArg_ParseTuple(args, "O!O!O!OOlO:may_reach", &PyTuple_Type, &start, &PyTuple_Type, &board,
                          &PyTuple_Type, &dice, &closed, &stop, &fit_states, &work))
        return NULL;
    int bounded = work != Py_None; /* else no work bounds the search */
    if (bounded && (work_left = PyLong_AsLong(work)) == -1 && PyErr_Occurred()) return NULL;
    int s[POSITIONS], b[POSITIONS];
    long values[MAX_FIT_DICE];
    uint8_t closed_at[POSITIONS] = {0}, stops[7] = {0};
    if (read_fit_counts(start, s, "start") < 0 || read_fit_counts(board, b, "board") < 0) return NULL;
    Py_ssize_t n = read_fit_dice(dice, values);
    if (n < 0 || read_points(closed, closed_at) < 0) return NULL;
    int has_stop = stop != Py_None;
    if (has_stop) {
        uint8_t stop_at[POSITIONS] = {0};
        if (read_points(stop, stop_at) < 0) return NULL;
        for (int die = 1; die <= 6; die++) stops[die] = stop_at[die];
    }
    long spent = 0;
    int reaches = 0;
    /* covers: up to every location, start has at least as many checkers as the board */
    int ahead = 0, behind = 0, gained = 0;
    for (int p = 0; p < POSITIONS; p++) {
        ahead += s[p], behind += b[p];
        if (ahead < behind) goto answer;
        gained += p * (b[p] - s[p]);
    }
    long pips_of_first[MAX_FIT_DICE + 1];
    pips_of_first[0] = 0;
    for (Py_ssize_t k = 0; k < n; k++) pips_of_first[k + 1] = pips_of_first[k] + values[k];
#define FIT(k)                                                                                        \
    do {                                                                                              \
        long states = !bounded ? fit_states : (work_left - spent < fit_states ? work_left - spent    \
                                                                               : fit_states);        \
        long visited = 0;                                                                             \
        int fits = fit_run(s, b, values, (k), closed_at, states, &visited);                           \
        if (fits == -2) return NULL;                                                                  \
        spent += visited;                                                                             \
        if (fits != 0) {                                                                              \
            reaches = 1;                                                                              \
            goto answer;                                                                              \
        }                                                                                             \
    } while (0)
    if (b[OFF] == s[OFF]) {
        /* Nothing borne off, the dice move the checkers exactly their pips: one k at most fits. */
        for (Py_ssize_t k = 0; k <= n; k++) {
            if (pips_of_first[k] < gained) continue;
            if (pips_of_first[k] == gained && (!has_stop || k == n || stops[values[k]])) FIT(k);
            goto answer;
        }
        goto answer;
    }
    /* _may_bear_off: the bounds are made for the first k the pips allow */
    int bounds = 0, borne_off = 0, overshoot_from = 0, leaving_ahead = 0, hops_of_at_least[7] = {0};
    int at_least[7] = {0}; /* of the first k dice, those of each value w or more */
    for (Py_ssize_t k = 0; k <= n; k++) {
        if (k) for (int w = 1; w <= values[k - 1]; w++) at_least[w]++;
        if (pips_of_first[k] < gained) continue;
        if (has_stop && k < n && !stops[values[k]]) continue;
        if (!bounds) {
            int rearmost = OFF - 1;
            for (int p = 0; p < OFF; p++)
                if (b[p]) {
                    rearmost = p;
                    break;
                }
            if (rearmost < HOME_START) goto answer;
            bounds = 1;
            borne_off = b[OFF] - s[OFF];
            overshoot_from = OFF - rearmost;
            for (int w = 1; w <= 6; w++) {
                int hops = 0;
                for (int p = 0; p < OFF; p++) hops += s[p] * ((OFF - p - 1) / w);
                hops_of_at_least[w] = borne_off + hops;
            }
            for (int p = rearmost + 1; p < OFF; p++) leaving_ahead += s[p] > b[p] ? s[p] - b[p] : 0;
        }
        /* _BearingOff.allows */
        if (k < borne_off) continue;
        int allowed = 1;
        for (int w = 1; w <= 6 && allowed; w++) allowed = at_least[w] <= hops_of_at_least[w];
        if (!allowed || k - (overshoot_from < 7 ? at_least[overshoot_from] : 0) < leaving_ahead) continue;
        /* the waste: the largest `borne_off` of the dice's pips beyond `overshoot_from` */
        int over[7] = {0}, take = borne_off < 0 ? 0 : borne_off, waste = 0;
        for (Py_ssize_t i = 0; i < k; i++) over[values[i] > overshoot_from ? values[i] - overshoot_from : 0]++;
        for (int x = 6; x > 0 && take > 0; x--) {
            int m = over[x] < take ? over[x] : take;
            waste += m * x, take -= m;
        }
        if (pips_of_first[k] - gained <= waste) FIT(k);
    }
#undef FIT
answer:
    return Py_BuildValue("(Ol)", reaches ? Py_True : Py_False, spent);
}

/* -- WholeCascade._walk: a depth-first walk of the dice in their order ------------------------------ */

#define WALK_DICE 64

typedef struct {
    State state;
    int32_t index;   /* dice played when the state was met; -1: an empty slot */
    int32_t reached; /* the most dice any sequence of moves from it reaches */
} WalkSlot;

typedef struct {
    const Config *config;
    uint8_t dice[WALK_DICE];
    int count, target;
    long left;
    Level levels[WALK_DICE];
    Table table;
    WalkSlot *known; /* the states gone through to the end, as `WholeCascade._walked` */
    size_t mask;
    /* `Frame.walk_limits` (none by default): the indices (dice played) at which a stage starts, bit
     * by bit; the point sets a stage played in full may not end holding all of; a point set it may
     * hold at most `at_most` points of (-1: no such limit); whether the duty to unblock a prime
     * the opponent's one point is behind (`Frame.opening_duty`) stops the walk at a stage start. */
    uint64_t stage_starts;
    uint32_t tables[2];
    int table_count, at_most, unblock, no_prime;
    uint32_t at_most_points;
} Walk;

/* The opponent's route index 0..23 as a frame position of the mover (Frame._opponent_route_position). */
#define OPPONENT_ROUTE(i) (((i) + 12) % 24 + 1)

/* prime_rule = no_prime_without_opponent_ahead at a play's end: each run of six points held along
 * the opponent's route with none of his checkers (`opp`, counts) further on his route was held at
 * the play's start (`held_at_start`). */
static int no_new_prime(uint32_t held, const uint8_t *opp, uint32_t held_at_start) {
    for (int last = 0, run = 0; last < 24; last++) {
        run = held >> OPPONENT_ROUTE(last) & 1 ? run + 1 : 0;
        if (run < 6) continue;
        int first = last - 5, ahead = 0;
        for (int j = first + 6; j < 24 && !ahead; j++) ahead = opp[OPPONENT_ROUTE(j)] != 0;
        if (ahead) continue;
        for (int j = first; j <= last; j++)
            if (!(held_at_start >> OPPONENT_ROUTE(j) & 1)) return 0;
    }
    return 1;
}

/* `Frame.allowed_at_end` of the limits `Frame.walk_limits` names. */
/* `Frame.allowed_at_end` by `Frame.walk_limits`, `held` the points the mover holds as bits: not
 * every point of one of the `tables`, and at most `at_most` of `at_most_points` (-1: any). */
static int limits_allow(uint32_t held, const uint32_t *tables, int table_count, uint32_t at_most_points,
                        int at_most) {
    for (int i = 0; i < table_count; i++)
        if ((held & tables[i]) == tables[i]) return 0;
    return at_most < 0 || __builtin_popcount(held & at_most_points) <= at_most;
}

/* The walk's test of a stage's full play: under the no-prime rule as if no point stood at the play's
 * start (no prime with no opposing checker ahead at all), stricter than the rule, whose start is a
 * stage's and not the walk's: a way found is still a legal play's, and a board turned down only
 * makes the walk inexact (WholeCascade._walk). */
static int walk_allowed_at_end(const Walk *w, const State *s) {
    if (!w->table_count && w->at_most < 0 && !w->no_prime) return 1;
    uint32_t held = 0;
    for (int p = 1; p < OFF; p++)
        if (s->me[p]) held |= 1u << p;
    return limits_allow(held, w->tables, w->table_count, w->at_most_points, w->at_most) &&
           (!w->no_prime || no_new_prime(held, s->opp, 0));
}

/* The points held in counts of the mover's frame (a tuple of 26), as bits 1..24; -1 on an error. */
static long long held_bits(PyObject *counts) {
    if (!PyTuple_Check(counts) || PyTuple_GET_SIZE(counts) != POSITIONS) {
        PyErr_SetString(PyExc_TypeError, "allowed_ends: counts are a tuple of 26");
        return -1;
    }
    uint32_t held = 0;
    for (int p = 1; p < OFF; p++) {
        long n = PyLong_AsLong(PyTuple_GET_ITEM(counts, p));
        if (n == -1 && PyErr_Occurred()) return -1;
        if (n) held |= 1u << p;
    }
    return held;
}

/* `Frame.allowed_ends`: of `visits` (node, moves, remaining, result), those whose game is over or
 * whose board `limits_allow` and, under the no-prime rule, `no_new_prime` against the start's. */
static PyObject *allowed_ends(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *visits, *tables, *start;
    unsigned long long at_most_points;
    int at_most, no_prime;
    if (!PyArg_ParseTuple(args, "O!(O!Kip)O:allowed_ends", &PyList_Type, &visits, &PyTuple_Type, &tables,
                          &at_most_points, &at_most, &no_prime, &start))
        return NULL;
    long long held_at_start = no_prime ? held_bits(start) : 0;
    if (held_at_start < 0) return NULL;
    uint32_t table_bits[2];
    int table_count = (int)PyTuple_GET_SIZE(tables);
    if (table_count > 2) {
        PyErr_SetString(PyExc_ValueError, "allowed_ends: at most 2 point sets");
        return NULL;
    }
    for (int i = 0; i < table_count; i++) {
        table_bits[i] = (uint32_t)PyLong_AsUnsignedLongMask(PyTuple_GET_ITEM(tables, i));
        if (PyErr_Occurred()) return NULL;
    }
    PyObject *chosen = PyList_New(0);
    for (Py_ssize_t i = 0; chosen && i < PyList_GET_SIZE(visits); i++) {
        PyObject *visit = PyList_GET_ITEM(visits, i), *node;
        if (!PyTuple_Check(visit) || PyTuple_GET_SIZE(visit) != 4 || !PyTuple_Check(node = PyTuple_GET_ITEM(visit, 0))
            || PyTuple_GET_SIZE(node) < 2) {
            PyErr_SetString(PyExc_TypeError, "allowed_ends: a visit is (node, moves, remaining, result)");
            Py_CLEAR(chosen);
            break;
        }
        int allowed = PyObject_IsTrue(PyTuple_GET_ITEM(visit, 3));   /* the game over */
        if (!allowed) {
            long long held = held_bits(PyTuple_GET_ITEM(node, 0));
            if (held < 0) {
                Py_CLEAR(chosen);
                break;
            }
            allowed = limits_allow((uint32_t)held, table_bits, table_count, (uint32_t)at_most_points, at_most);
            if (allowed && no_prime) {
                int opp[POSITIONS];
                uint8_t opp_counts[POSITIONS];
                allowed = read_fit_counts(PyTuple_GET_ITEM(node, 1), opp, "allowed_ends: opp");
                for (int p = 0; p < POSITIONS && !allowed; p++) opp_counts[p] = (uint8_t)opp[p];
                if (!allowed) allowed = no_new_prime((uint32_t)held, opp_counts, (uint32_t)held_at_start);
            }
        }
        if (allowed < 0 || (allowed && PyList_Append(chosen, visit) < 0)) Py_CLEAR(chosen);
    }
    return chosen;
}

/* `Frame.opening_duty` under prime_rule = unblock_all_on_one_point: the opponent's checkers all on
 * one point, and the mover holds the six points of his route after it. */
static int owes_unblock(const State *s) {
    int occupied = 0, points = 0;
    for (int p = 1; p < OFF; p++)
        if (s->opp[p]) occupied = p, points++;
    if (points != 1) return 0;
    int behind = ((occupied - 1 - 12) % 24 + 24) % 24; /* the opponent's route index of his point */
    if (behind + 6 > 23) return 0;
    for (int i = behind + 1; i < behind + 7; i++)
        if (!s->me[(i + 12) % 24 + 1]) return 0;
    return 1;
}

static WalkSlot *walk_slot(Walk *w, const State *s, int index) {
    size_t at = (state_hash(s) ^ (uint64_t)index * 0x9E3779B97F4A7C15ULL) & w->mask;
    for (size_t tries = 0; tries <= w->mask; tries++, at = (at + 1) & w->mask) {
        WalkSlot *slot = &w->known[at];
        if (slot->index < 0 || (slot->index == index && !memcmp(&slot->state, s, sizeof(State))))
            return slot;
    }
    return NULL; /* full: nothing more is remembered */
}

/* The Python walk's `walk(node, index)`, line by line: the most dice reached (`target` or more: a
 * way found), and in *exact whether no sequence of moves reaches more; -1 on a memory error. */
static int walk_from(Walk *w, const Entry *entry, int index, int *exact) {
    int stage_start = index < 64 && (w->stage_starts >> index & 1);
    if (index && stage_start && !walk_allowed_at_end(w, &entry->state)) {
        *exact = 0; /* (a stage's full play ends here, not a legal end: no way) */
        return index - 1;
    }
    if (index == w->target) {
        *exact = 0; /* (a way found: the callers stop there) */
        return index;
    }
    WalkSlot *slot = walk_slot(w, &entry->state, index);
    if (slot && slot->index >= 0) {
        *exact = 1;
        return slot->reached;
    }
    if (w->left <= 0 || (stage_start && w->unblock && owes_unblock(&entry->state))) {
        *exact = 0;
        return index;
    }
    w->left--;
    Level *children = &w->levels[index];
    children->count = 0;
    uint8_t no_dice[MAX_DICE] = {0};
    if (table_reset(&w->table, 16) < 0 ||
        expand(w->config, entry, 0, w->dice[index], no_dice, 0, children, &w->table, NULL) < 0)
        return -1;
    int best = index, all_exact = 1;
    for (Py_ssize_t i = 0; i < children->count; i++) {
        int child_exact;
        int reached = walk_from(w, &children->entries[i], index + 1, &child_exact);
        if (reached < 0) return -1;
        if (reached >= w->target) {
            *exact = 0;
            return reached;
        }
        if (reached > best) best = reached;
        all_exact = all_exact && child_exact;
    }
    if (all_exact && (slot = walk_slot(w, &entry->state, index)) && slot->index < 0) {
        slot->state = entry->state;
        slot->index = index, slot->reached = best;
    }
    *exact = all_exact;
    return best;
}

static PyObject *walk(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *start, *dice_tuple, *config_tuple, *limits = NULL;
    int target;
    long moves;
    if (!PyArg_ParseTuple(args, "OO!iO!l|O!:walk", &start, &PyTuple_Type, &dice_tuple, &target,
                          &PyTuple_Type, &config_tuple, &moves, &PyTuple_Type, &limits))
        return NULL;
    Config config;
    if (read_config(config_tuple, &config) < 0) return NULL;
    Walk *w = PyMem_Calloc(1, sizeof(Walk));
    if (!w) return PyErr_NoMemory();
    PyObject *result = NULL;
    Entry root;
    memset(&root, 0, sizeof root);
    root.parent = -1;
    if (read_node(start, &root.state) < 0) goto done;
    w->config = &config;
    w->count = (int)PyTuple_GET_SIZE(dice_tuple);
    if (w->count > WALK_DICE || target < 0 || target > w->count) {
        PyErr_Format(PyExc_ValueError, "walk: at most %d dice, and a target among them", WALK_DICE);
        goto done;
    }
    for (int i = 0; i < w->count; i++) {
        long d = PyLong_AsLong(PyTuple_GET_ITEM(dice_tuple, i));
        if (d < 1 || d > 6) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "walk: each die 1 to 6");
            goto done;
        }
        w->dice[i] = (uint8_t)d;
    }
    w->at_most = -1;
    if (limits) {
        unsigned long long stage_starts, at_most_points;
        PyObject *tables;
        if (!PyArg_ParseTuple(limits, "KO!Kiip;limits: (stage starts, (points, ...), points, at most, "
                              "unblock, no prime) as bits (Frame.walk_limits)", &stage_starts, &PyTuple_Type,
                              &tables, &at_most_points, &w->at_most, &w->unblock, &w->no_prime))
            goto done;
        w->table_count = (int)PyTuple_GET_SIZE(tables);
        if (w->table_count > 2 || w->count >= 64) {
            PyErr_SetString(PyExc_ValueError, "walk: at most 2 point sets and 63 dice with limits");
            goto done;
        }
        for (int i = 0; i < w->table_count; i++) {
            w->tables[i] = (uint32_t)PyLong_AsUnsignedLongMask(PyTuple_GET_ITEM(tables, i));
            if (PyErr_Occurred()) goto done;
        }
        w->stage_starts = stage_starts, w->at_most_points = (uint32_t)at_most_points;
    }
    w->target = target, w->left = moves;
    size_t capacity = 64;
    while (capacity < 2 * (size_t)(moves > 0 ? moves : 0) + 2) capacity *= 2;
    if (!(w->known = PyMem_Malloc(capacity * sizeof(WalkSlot)))) {
        PyErr_NoMemory();
        goto done;
    }
    w->mask = capacity - 1;
    for (size_t i = 0; i < capacity; i++) w->known[i].index = -1;
    int exact;
    int reached = walk_from(w, &root, 0, &exact);
    if (reached >= 0) result = Py_BuildValue("(iO)", reached, exact ? Py_True : Py_False);
done:
    for (int i = 0; i < WALK_DICE; i++) PyMem_Free(w->levels[i].entries);
    PyMem_Free(w->table.slots);
    PyMem_Free(w->known);
    PyMem_Free(w);
    return result;
}

/* -- the referee's order of a stage's ends (firmware_host/referee/reach.py `StageEnds`, its
 * Python `_covering_order` the specification) -----------------------------------------------------
 *
 * A stage's ends packed as 52 bytes each (the mover's 26 counts, then the opponent's, in the
 * mover's frame) and a board packed the same way: the indices of the ends with the board's
 * opponent counts from which forward moves may reach the board's (up to every location, at least
 * as many checkers as the board), the one at `first` first, then by how unlike the board they are
 * (the sum of the count differences), in their own order where equal: a stable sort's order. */

#define PACKED_NODE (2 * POSITIONS)

static int compare_keys(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static PyObject *covering_ends(PyObject *module, PyObject *args) {
    (void)module;
    const uint8_t *packed, *board;
    Py_ssize_t size, board_size, first;
    if (!PyArg_ParseTuple(args, "y#y#n:covering_ends", &packed, &size, &board, &board_size, &first))
        return NULL;
    if (board_size != PACKED_NODE || size % PACKED_NODE) {
        PyErr_Format(PyExc_ValueError, "covering_ends: %d bytes a node", PACKED_NODE);
        return NULL;
    }
    Py_ssize_t count = size / PACKED_NODE, kept = 0;
    if (count > UINT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "covering_ends: too many ends");
        return NULL;
    }
    int behind[POSITIONS], total = 0;
    for (int p = 0; p < POSITIONS; p++) behind[p] = (total += board[p]);
    uint64_t *keys = PyMem_Malloc((count ? count : 1) * sizeof(uint64_t));
    if (!keys) return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < count; i++) {
        const uint8_t *end = packed + i * PACKED_NODE;
        if (memcmp(end + POSITIONS, board + POSITIONS, POSITIONS)) continue;
        int ahead = 0, unlike = 0, covers = 1;
        for (int p = 0; p < POSITIONS; p++) {
            ahead += end[p];
            if (ahead < behind[p]) {
                covers = 0;
                break;
            }
            unlike += end[p] > board[p] ? end[p] - board[p] : board[p] - end[p];
        }
        if (covers)
            keys[kept++] = (uint64_t)(i != first) << 62 | (uint64_t)unlike << 32 | (uint64_t)i;
    }
    qsort(keys, (size_t)kept, sizeof(uint64_t), compare_keys);
    PyObject *order = PyList_New(kept);
    for (Py_ssize_t i = 0; order && i < kept; i++) {
        PyObject *index = PyLong_FromUnsignedLongLong(keys[i] & UINT32_MAX);
        if (!index) Py_CLEAR(order);
        else PyList_SET_ITEM(order, i, index);
    }
    PyMem_Free(keys);
    return order;
}

/* -- the referee's stage tree (firmware_host/referee/tree.py `StageTree`, its specification) ------
 *
 * The states from which a legal play of the stage is still reachable, from the search's visits in
 * reverse (each state after its children): a state is kept where a legal play ends there (one of
 * `complete`, the very visit objects) or a kept child follows it, with the moves to its kept
 * children. A child is known by its key object (the compiled search's `keys` are the objects its
 * edges name), else by its key's value; each kept key is hashed once for the three dicts. */

typedef struct {
    PyObject **pointers;
    Py_ssize_t *indices;
    size_t mask;
} PointerTable;

static size_t pointer_slot(const PointerTable *t, PyObject *pointer) {
    size_t i = (size_t)(((uintptr_t)pointer >> 4) * 0x9E3779B97F4A7C15ULL) & t->mask;
    while (t->pointers[i] && t->pointers[i] != pointer) i = (i + 1) & t->mask;
    return i;
}

static Py_ssize_t pointer_index(const PointerTable *t, PyObject *pointer) {
    size_t i = pointer_slot(t, pointer);
    return t->pointers[i] ? t->indices[i] : -1;
}

static void pointer_add(PointerTable *t, PyObject *pointer, Py_ssize_t index) {
    size_t i = pointer_slot(t, pointer);
    t->pointers[i] = pointer, t->indices[i] = index;
}

/* The index of the visit whose key equals `child` (not one of the keys' objects), by a dict of
 * the keys made at the first such child; -1 where none (with an error set where one occurred). */
static Py_ssize_t index_by_value(PyObject *keys, PyObject **by_value, PyObject *child) {
    if (!*by_value) {
        if (!(*by_value = PyDict_New())) return -1;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(keys); i++) {
            PyObject *index = PyLong_FromSsize_t(i);
            int failed = !index || PyDict_SetItem(*by_value, PyList_GET_ITEM(keys, i), index) < 0;
            Py_XDECREF(index);
            if (failed) return -1;
        }
    }
    PyObject *index = PyDict_GetItemWithError(*by_value, child);
    return index ? PyLong_AsSsize_t(index) : -1;
}

static PyObject *tree_states(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *visits, *keys, *edges, *complete;
    PyTypeObject *state_type;
    if (!PyArg_ParseTuple(args, "O!O!O!O!O!:tree_states", &PyList_Type, &visits, &PyList_Type, &keys,
                          &PyDict_Type, &edges, &PyList_Type, &complete, &PyType_Type, &state_type))
        return NULL;
    Py_ssize_t count = PyList_GET_SIZE(visits);
    if (PyList_GET_SIZE(keys) != count || !PyType_IsSubtype(state_type, &PyTuple_Type)) {
        PyErr_SetString(PyExc_TypeError, "tree_states: a key for each visit; the state type a tuple subclass");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *visit = PyList_GET_ITEM(visits, i);
        if (!PyTuple_Check(visit) || PyTuple_GET_SIZE(visit) != 4 ||
            !PyTuple_Check(PyTuple_GET_ITEM(visit, 0)) || PyTuple_GET_SIZE(PyTuple_GET_ITEM(visit, 0)) < 2) {
            PyErr_SetString(PyExc_TypeError, "tree_states: a visit is (node, moves, remaining, result)");
            return NULL;
        }
    }
    size_t size = 16;
    while (size < (size_t)(2 * count) * 2) size <<= 1;
    PointerTable table = {PyMem_Calloc(size, sizeof(PyObject *)), PyMem_Malloc(size * sizeof(Py_ssize_t)),
                          size - 1};
    uint8_t *ending = PyMem_Calloc(count ? count : 1, 1), *kept = PyMem_Calloc(count ? count : 1, 1);
    PyObject *kept_edges = PyDict_New(), *states = PyDict_New(), *by_seen = PyDict_New();
    PyObject *by_value = NULL, *result = NULL;
    if (!table.pointers || !table.indices || !ending || !kept) {
        PyErr_NoMemory();
        goto done;
    }
    if (!kept_edges || !states || !by_seen) goto done;
    for (Py_ssize_t i = 0; i < count; i++) {
        pointer_add(&table, PyList_GET_ITEM(keys, i), i);
        pointer_add(&table, PyList_GET_ITEM(visits, i), i);
    }
    for (Py_ssize_t c = 0; c < PyList_GET_SIZE(complete); c++) {
        PyObject *visit = PyList_GET_ITEM(complete, c);
        Py_ssize_t i = pointer_index(&table, visit);
        if (i < 0 || PyList_GET_ITEM(visits, i) != visit) {
            PyErr_SetString(PyExc_ValueError, "tree_states: the complete visits are visits of the list");
            goto done;
        }
        ending[i] = 1;
    }
    for (Py_ssize_t i = count - 1; i >= 0; i--) {
        PyObject *key = PyList_GET_ITEM(keys, i), *visit = PyList_GET_ITEM(visits, i);
        Py_hash_t hash = PyObject_Hash(key);
        if (hash == -1) goto done;
        PyObject *out = _PyDict_GetItem_KnownHash(edges, key, hash);
        if (!out && PyErr_Occurred()) goto done;
        PyObject *onward = PyList_New(0);
        if (!onward) goto done;
        Py_ssize_t moves = out && PyList_Check(out) ? PyList_GET_SIZE(out) : 0;
        for (Py_ssize_t e = 0; e < moves; e++) {
            PyObject *edge = PyList_GET_ITEM(out, e);
            if (!PyTuple_Check(edge) || PyTuple_GET_SIZE(edge) != 2) {
                PyErr_SetString(PyExc_TypeError, "tree_states: an edge is (move, child's key)");
                Py_DECREF(onward);
                goto done;
            }
            PyObject *child = PyTuple_GET_ITEM(edge, 1);
            Py_ssize_t j = pointer_index(&table, child);
            if (j < 0 || PyList_GET_ITEM(keys, j) != child) {
                j = index_by_value(keys, &by_value, child);
                if (j < 0 && PyErr_Occurred()) {
                    Py_DECREF(onward);
                    goto done;
                }
            }
            if (j >= 0 && kept[j] && PyList_Append(onward, edge) < 0) {
                Py_DECREF(onward);
                goto done;
            }
        }
        if (!ending[i] && !PyList_GET_SIZE(onward)) {
            Py_DECREF(onward);
            continue;
        }
        kept[i] = 1;
        int failed = _PyDict_SetItem_KnownHash(kept_edges, key, onward, hash) < 0;
        Py_DECREF(onward);
        PyObject *state = failed ? NULL : state_type->tp_alloc(state_type, 4);
        if (!state) goto done;
        PyObject *fields[4] = {key, PyTuple_GET_ITEM(visit, 1), ending[i] ? Py_True : Py_False,
                               PyTuple_GET_ITEM(visit, 3)};
        for (int f = 0; f < 4; f++) {
            Py_INCREF(fields[f]);
            PyTuple_SET_ITEM(state, f, fields[f]);
        }
        failed = _PyDict_SetItem_KnownHash(states, key, state, hash) < 0;
        PyObject *node = PyTuple_GET_ITEM(visit, 0);
        PyObject *seen = failed ? NULL : PyTuple_Pack(2, PyTuple_GET_ITEM(node, 0), PyTuple_GET_ITEM(node, 1));
        PyObject *same = seen ? PyDict_GetItemWithError(by_seen, seen) : NULL;
        if (seen && !same && !PyErr_Occurred()) {
            if ((same = PyList_New(0)) && PyDict_SetItem(by_seen, seen, same) < 0) Py_CLEAR(same);
            Py_XDECREF(same); /* (borrowed from here on: the dict holds it) */
        }
        failed = !same || PyList_Append(same, state) < 0;
        Py_XDECREF(seen);
        Py_DECREF(state);
        if (failed) goto done;
    }
    result = PyTuple_Pack(3, kept_edges, states, by_seen);
done:
    Py_XDECREF(kept_edges), Py_XDECREF(states), Py_XDECREF(by_seen), Py_XDECREF(by_value);
    PyMem_Free(table.pointers), PyMem_Free(table.indices), PyMem_Free(ending), PyMem_Free(kept);
    return result;
}

static PyMethodDef methods[] = {
    {"search", search, METH_VARARGS,
     "search(visit_type, node_type, start, dice, config, edges=None) -> (visits, borne_off)\n\n"
     "Turn.search for one roll (sorted dice): every state reached, level by level, in the order\n"
     "the Python search yields them, as visit_type(node, moves, remaining, None); and the indices\n"
     "of the visits where all are borne off (at most MAX_DICE dice). config: Frame.search_config.\n"
     "edges, a dict: filled as the Python search fills it (the referee's graph)."},
    {"forward_fit", forward_fit, METH_VARARGS,
     "forward_fit(start, board, dice, closed, states) -> (fits, states_visited)\n\n"
     "firmware_host/referee/reach.py's forward_fit search: True or False, or None where it gave up\n"
     "after `states` states (frame counts of 26, the dice, the closed points)."},
    {"allowed_ends", allowed_ends, METH_VARARGS,
     "allowed_ends(visits, limits, start) -> [visit, ...]\n\n"
     "Of the search's visits, those whose game is over or whose board Frame.allowed_at_end allows,\n"
     "by limits: Frame.end_limit_bits (the point sets as bits of frame positions); start: the mover's\n"
     "counts at the play's start (read by the no-prime rule)."},
    {"may_reach", may_reach, METH_VARARGS,
     "may_reach(start, board, dice, closed, stop, fit_states, work_left) -> (reaches, states_visited)\n\n"
     "firmware_host/referee/reach.py's may_reach: whether forward moves with the first k of `dice`\n"
     "may turn `start` into `board` (stop: the die values that cannot move at the board, or None),\n"
     "each forward_fit within fit_states and the work left (None: no work bounds it)."},
    {"walk", walk, METH_VARARGS,
     "walk(start, dice, target, config, moves, limits=None) -> (reached, exact)\n\n"
     "WholeCascade._walk's depth-first walk of `dice` in their order from `start`, stopping at\n"
     "`target` dice, within `moves` nodes expanded: the most dice reached, and whether no sequence\n"
     "of moves reaches more (at most 64 dice). config: Frame.search_config. limits: the stage\n"
     "starts as bits of the dice played, then Frame.walk_limits (the end-of-play limits and the\n"
     "duty to unblock, judged at each stage's start)."},
    {"covering_ends", covering_ends, METH_VARARGS,
     "covering_ends(packed_ends, packed_board, first) -> [index, ...]\n\n"
     "firmware_host/referee/reach.py's _covering_order on ends and a board packed as 52 bytes each\n"
     "(the mover's counts, then the opponent's): the ends forward moves may turn into the board,\n"
     "the one at `first` first, then the least unlike (a stable sort)."},
    {"tree_states", tree_states, METH_VARARGS,
     "tree_states(visits, keys, edges, complete, state_type) -> (edges, states, by_seen)\n\n"
     "firmware_host/referee/tree.py's StageTree states: of the search's visits (with keys and edges,\n"
     "search(..., edges, keys)), those from which one of `complete` (visits of the list) is reachable,\n"
     "each as state_type(key, moves, complete, result), with the moves to them and by what they show."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "firmware_host.rules._search",
    "The legal-play search's inner loop in C (optional; firmware_host/rules/plays.py is the oracle).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__search(void) {
    for (int value = 0; value < POSITIONS; value++)
        if (!small_ints[value] && !(small_ints[value] = PyLong_FromLong(value))) return NULL;
    PyObject *created = PyModule_Create(&module);
    if (created && (PyModule_AddIntConstant(created, "MAX_DICE", MAX_DICE) < 0 ||
                    PyModule_AddIntConstant(created, "SEARCH_EDGES", 1) < 0 || /* search(..., edges) */
                    PyModule_AddIntConstant(created, "SEARCH_KEYS", 1) < 0 ||  /* search(..., edges, keys) */
                    PyModule_AddIntConstant(created, "WALK_LIMITS", 2) < 0))  /* walk(..., limits), 2: no prime too */
        Py_CLEAR(created);
    return created;
}
