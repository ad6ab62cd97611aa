"""The evaluator's network: one hidden layer of sigmoids and five sigmoid outputs, in numpy (the
sigmoid's steps around numpy's exp in C where built, the same bit for bit).

The outputs are the chances of the side that just played, as TD-Gammon's: winning at all, winning
two points or more (a gammon, a pinned mother), winning three (koks, a mother worth three), and
losing two or more, or three. A tie counts as half a win.
"""
from __future__ import annotations

import io
import os
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

try:  # the bot's compiled part (_encode.c: its inputs, its network for a few plays, the sigmoid's steps
    from firmware_host.bot import _encode   # around exp), where built (setup.py); numpy otherwise
except ImportError:
    _encode = None
if os.environ.get("TAVLI_PURE_PYTHON"):  # as for the rules' search: a switch for measuring and testing
    _encode = None
# One built before it had the network's parts (built once, copied) is left unused, whole: numpy
# runs until `setup.py build_ext --inplace` builds it again.
if _encode is not None and not all(hasattr(_encode, name) for name in (
        "encode", "chances", "equity", "ten_thousandths_rows", "sigmoid_head", "sigmoid_tail")):
    _encode = None

OUTCOMES = ("win", "win_double", "win_triple", "lose_double", "lose_triple")


# The sigmoid's constants as float32 arrays of no dimension: numpy converts a Python float operand
# on every call, a third of the time of each operation on the few rows `hint` evaluates at once.
_LOW, _HIGH, _ONE = (np.array(value, np.float32) for value in (-40.0, 40.0, 1.0))


def _sigmoid(fresh: np.ndarray) -> np.ndarray:
    """1 / (1 + e^-x), x clipped to +-40, computed in `fresh` (a float32 array no one else holds): the
    same operations in the same order as written out, without an array made for each (`hint` runs
    the network on a few plays at a time, where that is most of its cost)."""
    np.maximum(fresh, _LOW, out=fresh)
    np.minimum(fresh, _HIGH, out=fresh)
    np.negative(fresh, out=fresh)
    np.exp(fresh, out=fresh)
    np.add(fresh, _ONE, out=fresh)
    return np.divide(_ONE, fresh, out=fresh)


def _biased_sigmoid(fresh: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """`_sigmoid(fresh + bias)` in `fresh` (rows of float32 sums). Where built, the operations before
    and after np.exp run in one compiled call each (`_encode.sigmoid_head`, `sigmoid_tail`): the
    same operations element by element, so the same bit for bit, in three calls where numpy makes
    seven (most of the network's time on the few plays of most turns)."""
    if _encode is None:
        fresh += bias
        return _sigmoid(fresh)
    _encode.sigmoid_head(fresh, bias)
    np.exp(fresh, out=fresh)
    _encode.sigmoid_tail(fresh)
    return fresh


@dataclass
class Network:
    hidden_weights: np.ndarray   # (hidden, inputs)
    hidden_bias: np.ndarray      # (hidden,)
    output_weights: np.ndarray   # (outputs, hidden)
    output_bias: np.ndarray      # (outputs,)

    @classmethod
    def fresh(cls, inputs: int, hidden: int, rng: np.random.Generator) -> "Network":
        return cls(rng.normal(0.0, 1.0 / np.sqrt(inputs), (hidden, inputs)).astype(np.float32),
                   np.zeros(hidden, np.float32),
                   rng.normal(0.0, 1.0 / np.sqrt(hidden), (len(OUTCOMES), hidden)).astype(np.float32),
                   np.zeros(len(OUTCOMES), np.float32))

    @property
    def inputs(self) -> int:
        return self.hidden_weights.shape[1]

    def forward(self, x: np.ndarray) -> np.ndarray:
        """(N, inputs) -> (N, 5) chances."""
        hidden = _biased_sigmoid(x @ self.hidden_weights.T, self.hidden_bias)
        return _biased_sigmoid(hidden @ self.output_weights.T, self.output_bias)

    def gradients(self, x: np.ndarray) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
        """The outputs for one input (inputs,) and each output's gradient with respect to every
        parameter, in the order of `parameters`, each with a leading axis of the five outputs."""
        hidden = _sigmoid(self.hidden_weights @ x + self.hidden_bias)
        out = _sigmoid(self.output_weights @ hidden + self.output_bias)
        d_out = out * (1.0 - out)                                   # (5,)
        d_hidden = (d_out[:, None] * self.output_weights) * (hidden * (1.0 - hidden))  # (5, H)
        grads = (d_hidden[:, :, None] * x[None, None, :],             # (5, H, I)
                 d_hidden,                                            # (5, H)
                 d_out[:, None, None] * np.eye(len(out), dtype=np.float32)[:, :, None]
                 * hidden[None, None, :],                             # (5, 5, H)
                 np.diag(d_out).astype(np.float32))                   # (5, 5)
        return out, grads

    @property
    def parameters(self) -> tuple[np.ndarray, ...]:
        return self.hidden_weights, self.hidden_bias, self.output_weights, self.output_bias

    def widened(self, hidden: int, rng: np.random.Generator) -> "Network":
        """This network with `hidden` hidden units that computes the same: the new units' input
        weights are drawn as a fresh network's, their output weights are zero, so training grows
        them from where this network stands (Net2Net's wider network, Chen et al. 2016)."""
        extra = hidden - len(self.hidden_bias)
        if extra < 0:
            raise ValueError(f"{hidden} hidden units are fewer than the network's {len(self.hidden_bias)}")
        new_inputs = rng.normal(0.0, 1.0 / np.sqrt(self.inputs), (extra, self.inputs)).astype(np.float32)
        return Network(np.vstack([self.hidden_weights, new_inputs]),
                       np.concatenate([self.hidden_bias, np.zeros(extra, np.float32)]),
                       np.hstack([self.output_weights, np.zeros((len(OUTCOMES), extra), np.float32)]),
                       self.output_bias.copy())

    @classmethod
    def mean(cls, networks: Sequence["Network"]) -> "Network":
        """The parameter-wise mean of networks of one shape. Of networks trained on from one network
        (checkpoints of a run, or runs side by side), it is often stronger than each of them:
        stochastic weight averaging, model soups. ValueError for networks of different shapes."""
        shapes = {tuple(parameter.shape for parameter in network.parameters) for network in networks}
        if len(shapes) != 1:
            raise ValueError(f"networks of different shapes: {sorted(shapes)}" if shapes else "no networks")
        return cls(*(np.mean(group, axis=0, dtype=np.float32)
                     for group in zip(*(network.parameters for network in networks))))

    def to_bytes(self, dtype: type = np.float32) -> bytes:
        """The weights as a compressed .npz (float16 for the shipped files: half the size, and
        inference does not notice)."""
        buffer = io.BytesIO()
        np.savez_compressed(buffer, **{name: value.astype(dtype) for name, value in
                                       zip(_NAMES, self.parameters)})
        return buffer.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes) -> "Network":
        """The network of `to_bytes`'s .npz; ValueError, saying what is wrong, for anything else."""
        if not data.startswith(b"PK\x03\x04"):
            raise ValueError("not an .npz file of the bot's weights")
        try:
            with np.load(io.BytesIO(data)) as arrays:
                missing = [name for name in _NAMES if name not in arrays.files]
                if missing:
                    raise ValueError(f"an .npz without the bot's {', '.join(missing)}")
                return cls(*(arrays[name].astype(np.float32) for name in _NAMES))
        except (OSError, zipfile.BadZipFile, EOFError) as error:
            raise ValueError(f"a damaged .npz file ({error})") from None


_NAMES = ("hidden_weights", "hidden_bias", "output_weights", "output_bias")
