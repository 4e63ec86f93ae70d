"""A candidate model's network pass for search, one position at a time, in one jitted call.

`training.policy.CandidateNet` with SB3's value head (`value_net`) is a handful of small
layers over the position's candidate moves. For one position torch spends most of a pass
in per-call overhead, and numpy's small matrix products are not much better (BLAS is
slow on these shapes); this pass is one jitted call with no such overhead. The
candidate rows, mostly zeros, enter the first layer only through their nonzero columns.
The weights are copied once; the numbers are
torch's within float32 rounding (tests/training/test_candidate_policy.py).
"""

from __future__ import annotations

import math
from collections import namedtuple
from typing import Any

import numpy as np
from numba import njit

from carcassonne_env.compiler.jit import hot_entry, hot_inline

# the core's `hot` options, and sums in any order (the dot products run in SIMD lanes)
# (_nrt: an option numba takes and its type hints leave out)
_reassociating = njit(  # type: ignore[call-overload]
    cache=True, nogil=True, _nrt=False, error_model="numpy", fastmath=True
)

#: The network's layers in order, each (W^T, b) (`_linear`; w1, w2, W itself): the
#: context, the candidates' embedding, the body's two layers, the candidate score, the
#: value trunk and SB3's value head.
Weights = namedtuple(
    "Weights", ["wc", "bc", "we", "be", "w1", "b1", "w2", "b2", "ws", "bs", "wv", "bv", "wo", "bo"]
)

#: A pass's scratch and output for up to `rows` present candidates
#: (`CandidateForward.buffers`): context and hidden float32[H], pooled float32[3H], e and
#: e2 float32[rows, H], the candidates' scores float32[rows].
ForwardBuffers = namedtuple("ForwardBuffers", ["context", "hidden", "pooled", "e", "e2", "scores"])


def _linear(module: Any, transpose: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(W^T, b) of a torch Linear (W [out, in] with transpose=False), float32 numpy."""
    w = module.weight.detach().cpu().numpy().astype(np.float32)
    return (
        np.ascontiguousarray(w.T if transpose else w),
        module.bias.detach().cpu().numpy().astype(np.float32),
    )


def _layers(seq: Any, pattern: str) -> list[Any]:
    """The Linear modules of `seq` if its layers are exactly `pattern` ("L" Linear, "R"
    ReLU), else ValueError."""
    names = "".join({"Linear": "L", "ReLU": "R"}.get(type(m).__name__, "?") for m in seq)
    if names != pattern:
        raise ValueError(f"unexpected layers {names!r}, expected {pattern!r}")
    return [m for m in seq if type(m).__name__ == "Linear"]


@hot_inline
def _axpy(a, x, y):
    """y += a * x (1-D, one row: a loop LLVM vectorises)."""
    for h in range(y.shape[0]):
        y[h] += a * x[h]


@hot_inline
def _relu(y):
    for h in range(y.shape[0]):
        y[h] = max(y[h], np.float32(0.0))


@_reassociating
def _dense_relu(x, n, wt, b, out):
    """out[:n] = relu(x[:n] @ wt.T + b): one dot product per output, summed in any
    order (so that it runs in SIMD lanes)."""
    for i in range(n):
        xi = x[i]
        for h in range(b.shape[0]):
            w = wt[h]
            s = b[h]
            for k in range(xi.shape[0]):
                s += xi[k] * w[k]
            out[i, h] = max(s, np.float32(0.0))


@hot_entry  # (called from Python too)
def forward(features, candidates, n, weights, buf):
    """buf.scores[:n] and the value (returned) of one observation with n present
    candidates through the network `weights` (`Weights`); `buf`: the
    `ForwardBuffers`."""
    wc, bc, we, be, w1, b1, w2, b2, ws, bs, wv, bv, wo, bo = weights
    context, hidden, pooled, e, e2, scores = buf
    H = bc.shape[0]
    for h in range(H):
        context[h] = bc[h]
    for k in range(features.shape[0]):
        if features[k] != 0.0:
            _axpy(features[k], wc[k], context)
    _relu(context)
    for i in range(n):
        row, ci = e[i], candidates[i]
        for h in range(H):
            row[h] = be[h] + context[h]
        for k in range(ci.shape[0]):
            v = ci[k]
            if v != 0.0:
                s = np.float32(math.log1p(abs(v)))  # symlog, as the network's input
                _axpy(-s if v < 0.0 else s, we[k], row)
        _relu(row)
    _dense_relu(e, n, w1, b1, e2)
    _dense_relu(e2, n, w2, b2, e)
    for h in range(H):  # pools over the candidates (e >= 0: 0 is a neutral max)
        top = np.float32(0.0)
        total = np.float32(0.0)
        for i in range(n):
            top = max(top, e[i, h])
            total += e[i, h]
        pooled[h] = top
        pooled[H + h] = total / max(n, 1)
        pooled[2 * H + h] = context[h]
    for i in range(n):
        s = bs[0]
        for h in range(H):
            s += e[i, h] * ws[h, 0]
        scores[i] = s
    for h in range(H):
        hidden[h] = bv[h]
    for k in range(3 * H):
        if pooled[k] != 0.0:
            _axpy(pooled[k], wv[k], hidden)
    value = bo[0]
    for h in range(H):
        value += max(hidden[h], np.float32(0.0)) * wo[h, 0]
    return value


class CandidateForward:
    """`CandidateNet.trunk` + `value` + `value_net` of an SB3 `CandidatePolicy`:
    ``scores, value = forward(features, candidates, n)`` for one observation whose first n
    candidate rows are present (a candidate observation lists its present ones first).

    Raises ValueError for a policy that is not a candidate policy of this layout (the
    caller then runs torch)."""

    def __init__(self, policy: Any) -> None:
        net = getattr(getattr(policy, "features_extractor", None), "net", None)
        if net is None or not hasattr(net, "trunk") or not hasattr(policy, "value_net"):
            raise ValueError("not a candidate policy")
        (context,) = _layers(net.context, "LR")
        body = _layers(net.body, "LRLR")
        (value,) = _layers(net.value, "LR")
        self.weights = Weights(
            *_linear(context),
            *_linear(net.embed),
            *_linear(body[0], False),
            *_linear(body[1], False),
            *_linear(net.score),
            *_linear(value),
            *_linear(policy.value_net),
        )
        self._buffers = self.buffers(0)

    def __call__(
        self, features: np.ndarray, candidates: np.ndarray, n: int
    ) -> tuple[np.ndarray, float]:
        """(one score per present candidate, the value head's output) for `features` [F]
        and `candidates` [K, C] (float32) of one observation, its first n rows present.
        The scores are a view of a buffer the next call overwrites."""
        if self._buffers.scores.shape[0] < n:
            self._buffers = self.buffers(n)
        value = forward(features, candidates, n, self.weights, self._buffers)
        return self._buffers.scores[:n], float(value)

    def buffers(self, rows: int) -> ForwardBuffers:
        """Fresh `ForwardBuffers` for `forward` over up to `rows` present candidates
        (also for a jitted caller: `agents.puct_kernel`)."""
        H = self.weights.bc.shape[0]
        return ForwardBuffers(
            np.zeros(H, np.float32),
            np.zeros(H, np.float32),
            np.zeros(3 * H, np.float32),
            np.zeros((rows, H), np.float32),
            np.zeros((rows, H), np.float32),
            np.zeros(rows, np.float32),
        )
