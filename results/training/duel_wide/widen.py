"""Widen a saved candidate-move model (CandidatePolicy) to a larger `hidden`, keeping
what it computes: the old units keep their weights, the new units get the fresh network's
random inputs and zero outputs (so logits and value are unchanged at the start, and
training can grow into the new width). Usage:

    python results/training/duel_wide/widen.py ppo_duel_rl 128 runs/widened.zip
"""
from __future__ import annotations

import sys

import torch as th
from sb3_contrib import MaskablePPO

from agents.sb3_policy import load_model
from carcassonne_env.envs import make_env_for_model


def widen(source: str, hidden: int, out: str) -> MaskablePPO:
    old = load_model(source, cached=False)
    h = old.policy.hidden
    if hidden <= h:
        raise ValueError(f"{source} has hidden {h}; widen to more than that")
    env = make_env_for_model(old)
    new = MaskablePPO(type(old.policy), env, policy_kwargs={"hidden": hidden}, device="cpu",
                      seed=0)
    was, now = old.policy.state_dict(), new.policy.state_dict()

    def rows(key: str) -> None:  # a layer whose inputs are not hidden units
        now[key][:h] = was[key][:h]

    def square(key: str, blocks: int = 1) -> None:  # inputs are `blocks` x hidden units
        w = now[key]
        w[:h] = 0.0  # old units read nothing from the new ones
        for b in range(blocks):
            w[:h, b * hidden:b * hidden + h] = was[key][:, b * h:(b + 1) * h]

    def head(key: str) -> None:  # one output read from the hidden units
        now[key + ".weight"][:] = 0.0
        now[key + ".weight"][:, :h] = was[key + ".weight"]
        now[key + ".bias"][:] = was[key + ".bias"]

    # SB3 lists the shared extractor three times (pi_ and vf_ are the same module)
    for net in ("features_extractor.net.", "pi_features_extractor.net.",
                "vf_features_extractor.net."):
        for name in ("context.0", "embed"):
            rows(net + name + ".weight")
            rows(net + name + ".bias")
        for name in ("body.0", "body.2"):
            square(net + name + ".weight")
            rows(net + name + ".bias")
        square(net + "value.0.weight", blocks=3)
        rows(net + "value.0.bias")
        head(net + "score")
    head("value_net")
    new.policy.load_state_dict(now)
    # the same outputs on real observations
    obs, _ = env.reset(seed=0)
    for _ in range(20):
        t, _ = old.policy.obs_to_tensor(obs)
        with th.no_grad():
            a = old.policy.get_distribution(t).logits, old.policy.predict_values(t)
            b = new.policy.get_distribution(t).logits, new.policy.predict_values(t)
        finite = th.isfinite(a[0])
        assert th.equal(finite, th.isfinite(b[0]))
        assert th.allclose(a[0][finite], b[0][finite], atol=1e-4), "logits differ"
        assert th.allclose(a[1], b[1], atol=1e-4), "values differ"
        action, _ = old.predict(obs, action_masks=env.unwrapped.action_masks(), deterministic=True)
        obs, _, done, trunc, _ = env.step(action)
        if done or trunc:
            obs, _ = env.reset()
    new.save(out)
    return new


if __name__ == "__main__":
    widen(sys.argv[1], int(sys.argv[2]), sys.argv[3])
    print(f"wrote {sys.argv[3]}")
