"""Starting a run from a saved model's policy weights (``--init MODEL``): copied into
the new run's network when it is the same network (`load_policy_weights`); a
candidate-move network (`CandidateNet`) of another table (players, rule options,
expansions) has its input columns matched to the run's by name first
(`match_candidate_inputs`), and one narrower than the run's (a wider `--hidden`) is
widened to it, keeping what it computes (`widen_candidate_weights`).

Another table: an input both tables have keeps its weights, wherever its column is; an
input only the run has (an expansion's figure, trade goods, a third seat's score) starts
with zero weights, so the network computes at first what it did on the inputs it knew,
and learns to read the new ones; an input only the saved table had is dropped.

Widening: every old unit keeps its weights and reads nothing from the new ones; the new
units get the fresh network's random input weights and zero output weights, so the
logits and the value are the old network's at the start, and training grows into the new
width (the new units' output weights get gradients at once; their input weights once
those move).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch as th
from gymnasium import spaces

from carcassonne_env.encoding import Encoder
from carcassonne_env.envs.for_model import model_encoder

from .policy import CANDIDATE_KEYS, CandidatePolicy
from .settings import option

if TYPE_CHECKING:
    from sb3_contrib import MaskablePPO

# CandidateNet's layers by how they connect to the hidden units (key prefixes after the
# extractor's "net."): inputs outside, outputs hidden; hidden (in `blocks` hidden-wide
# blocks) to hidden; hidden to one output
_FROM_INPUTS = ("context.0", "embed")
_HIDDEN_TO_HIDDEN = {"body.0": 1, "body.2": 1, "value.0": 3}
_TO_ONE = ("score",)
_EXTRACTORS = ("features_extractor", "pi_features_extractor", "vf_features_extractor")


def load_policy_weights(
    model: MaskablePPO, source: str, options: tuple[str, ...], inputs: Encoder | None = None
) -> None:
    """Copy the policy weights of saved model `source` (a path or a shipped model's
    name) into `model`; ValueError if its network or observation differ (naming the
    settings `options` that shape the network). With `inputs`, the encoder of `model`'s
    observations, a candidate network of another table is matched to it by input name
    (`match_candidate_inputs`); a candidate network narrower than `model`'s is widened
    to it, computing what it did (`widen_candidate_weights`)."""
    from agents.sb3_policy import load_model

    saved = load_model(source, cached=False)
    new, old = model.policy, saved.policy
    mine, theirs = new.state_dict(), old.state_dict()
    candidates = isinstance(new, CandidatePolicy) and isinstance(old, CandidatePolicy)
    same = _same_but_candidate_count(saved.observation_space, model.observation_space)
    if candidates and inputs is not None and not same:
        theirs = match_candidate_inputs(theirs, model_encoder(saved), inputs)
    elif type(old) is not type(new) or not same or saved.action_space != model.action_space:
        raise ValueError(
            f"--init {source}: its network or spaces ({type(old).__name__}"
            f"; board size, observation features, players) differ from this "
            f"run's ({type(new).__name__})"
        )
    if (
        isinstance(new, CandidatePolicy)
        and isinstance(old, CandidatePolicy)
        and old.hidden < new.hidden
    ):
        theirs = widen_candidate_weights(theirs, mine, old.hidden, new.hidden)
    differ = sorted(
        k
        for k in mine.keys() | theirs.keys()
        if k not in mine or k not in theirs or mine[k].shape != theirs[k].shape
    )
    if differ:
        raise ValueError(
            f"--init {source}: its weights differ in shape from this run's "
            f"network ({', '.join(differ[:4])}); give the settings it was "
            f"trained with ({', '.join(option(o) for o in options)})"
        )
    model.policy.load_state_dict(theirs)


def _same_but_candidate_count(a: Any, b: Any) -> bool:
    """Whether observation spaces `a` and `b` are equal but for the number of candidate
    moves (a candidate network's weights do not depend on it: `train export
    --candidate-moves`)."""
    if not all(isinstance(s, spaces.Dict) and set(CANDIDATE_KEYS) <= set(s.spaces) for s in (a, b)):
        return a == b
    return a.spaces.keys() == b.spaces.keys() and all(
        a[k] == b[k]
        if k not in CANDIDATE_KEYS
        else (a[k].shape[1:], a[k].dtype) == (b[k].shape[1:], b[k].dtype)
        for k in a.spaces
    )


def match_candidate_inputs(
    old: dict[str, th.Tensor], old_inputs: Encoder, new_inputs: Encoder
) -> dict[str, th.Tensor]:
    """`old` (a CandidatePolicy state dict reading `old_inputs`' observations) with its
    input layers rearranged to read `new_inputs`': the features (`feature_names`) and
    the candidate columns (`candidate_names`) matched by name, those `old_inputs` lacks
    given zero weights (the module docstring). ValueError if they share no feature or
    no candidate column."""
    layers = {
        "context.0": ("feature", old_inputs.feature_names, new_inputs.feature_names),
        "embed": ("candidate column", old_inputs.candidate_names, new_inputs.candidate_names),
    }
    for what, before, after in layers.values():
        if not set(before) & set(after):
            raise ValueError(f"the two observations share no {what}")
    out = dict(old)
    for ext in _EXTRACTORS:
        for layer, (_, before, after) in layers.items():
            key = f"{ext}.net.{layer}.weight"
            if key not in old:
                continue
            column = {name: i for i, name in enumerate(before)}
            w = old[key].new_zeros(old[key].shape[0], len(after))
            for i, name in enumerate(after):
                if name in column:
                    w[:, i] = old[key][:, column[name]]
            out[key] = w
    return out


def widen_candidate_weights(
    old: dict[str, th.Tensor], new: dict[str, th.Tensor], h: int, hidden: int
) -> dict[str, th.Tensor]:
    """`new` (a freshly initialised CandidatePolicy state dict at width `hidden`) with
    `old`'s weights (width `h` < `hidden`) in its first `h` units, as the module
    docstring says. ValueError if the two are not candidate networks of those widths."""
    if not h < hidden:
        raise ValueError(f"widening needs a larger width: {h} -> {hidden}")
    if set(old) != set(new):
        raise ValueError(
            "not the same network: the layers differ "
            f"({', '.join(sorted(set(old) ^ set(new))[:4])})"
        )
    out = {k: v.clone() for k, v in new.items()}

    def check(key: str, shape: tuple[int, ...]) -> None:
        if tuple(old[key].shape) != shape:
            raise ValueError(
                f"{key}: shape {tuple(old[key].shape)}, expected {shape} for width {h}"
            )

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
                out[w][:h, k * hidden : k * hidden + h] = old[w][:, k * h : (k + 1) * h]
            out[b][:h] = old[b]
        for name in _TO_ONE:
            _one_output(old, out, net + name, h)
    _one_output(old, out, "value_net", h)
    return out


def _one_output(old: dict[str, th.Tensor], out: dict[str, th.Tensor], layer: str, h: int) -> None:
    """A layer from the hidden units to one output: the new units' weights zero."""
    w, b = layer + ".weight", layer + ".bias"
    out[w][:] = 0.0
    out[w][:, :h] = old[w]
    out[b][:] = old[b]
