"""Widening a candidate-move network (`CandidateNet`) to a larger `hidden`, keeping what
it computes: `--init MODEL` with a wider `--hidden` than MODEL's starts from it this way.

Every old unit keeps its weights and reads nothing from the new ones; the new units get
the fresh network's random input weights and zero output weights, so the logits and the
value are the old network's at the start, and training grows into the new width (the
new units' output weights get gradients at once; their input weights once those move).
"""

from __future__ import annotations

import torch as th

# CandidateNet's layers by how they connect to the hidden units (key prefixes after the
# extractor's "net."): inputs outside, outputs hidden; hidden (in `blocks` hidden-wide
# blocks) to hidden; hidden to one output
_FROM_INPUTS = ("context.0", "embed")
_HIDDEN_TO_HIDDEN = {"body.0": 1, "body.2": 1, "value.0": 3}
_TO_ONE = ("score",)
_EXTRACTORS = ("features_extractor", "pi_features_extractor", "vf_features_extractor")


def widen_candidate_weights(old: dict[str, th.Tensor], new: dict[str, th.Tensor],
                            h: int, hidden: int) -> dict[str, th.Tensor]:
    """`new` (a freshly initialised CandidatePolicy state dict at width `hidden`) with
    `old`'s weights (width `h` < `hidden`) in its first `h` units, as the module
    docstring says. ValueError if the two are not candidate networks of those widths."""
    if not h < hidden:
        raise ValueError(f"widening needs a larger width: {h} -> {hidden}")
    if set(old) != set(new):
        raise ValueError("not the same network: the layers differ "
                         f"({', '.join(sorted(set(old) ^ set(new))[:4])})")
    out = {k: v.clone() for k, v in new.items()}

    def check(key: str, shape: tuple[int, ...]) -> None:
        if tuple(old[key].shape) != shape:
            raise ValueError(f"{key}: shape {tuple(old[key].shape)}, expected {shape} "
                             f"for width {h}")

    for ext in _EXTRACTORS:
        net = f"{ext}.net."
        if net + "embed.weight" not in old:
            continue
        for name in _FROM_INPUTS:
            w, b = net + name + ".weight", net + name + ".bias"
            check(w, (h, new[w].shape[1]))
            out[w][:h], out[b][:h] = old[w], old[b]
        for name, blocks in _HIDDEN_TO_HIDDEN.items():
            w, b = net + name + ".weight", net + name + ".bias"
            check(w, (h, blocks * h))
            out[w][:h] = 0.0  # old units read nothing from the new ones
            for k in range(blocks):
                out[w][:h, k * hidden:k * hidden + h] = old[w][:, k * h:(k + 1) * h]
            out[b][:h] = old[b]
        for name in _TO_ONE:
            _one_output(old, out, net + name, h)
    _one_output(old, out, "value_net", h)
    return out


def _one_output(old: dict[str, th.Tensor], out: dict[str, th.Tensor], layer: str,
                h: int) -> None:
    """A layer from the hidden units to one output: the new units' weights zero."""
    w, b = layer + ".weight", layer + ".bias"
    out[w][:] = 0.0
    out[w][:, :h] = old[w]
    out[b][:] = old[b]
