"""`compiler.numba_typing`'s replacements decide exactly what numba's own methods decide.

Internals: the replacements patch numba's typing, so the tests read its private tables and
ours (`_impl_keys`, `numba_typing._call_types`)."""

import operator
import random

import pytest
from numba import types
from numba.core import compiler, targetconfig
from numba.core.registry import cpu_target

from carcassonne_env.compiler import numba_typing as nt


def _random_flags(rng: random.Random) -> compiler.Flags:
    flags = compiler.Flags()
    for name in rng.sample(sorted(flags.options), rng.randrange(4)):
        option = flags.options[name]
        if option.type is bool:
            setattr(flags, name, rng.random() < 0.5)
    return flags


def test_flag_values_hash_and_equality_match_numbas():
    rng = random.Random(0)
    pairs = [(_random_flags(rng), _random_flags(rng)) for _ in range(200)]
    pairs += [(a, compiler.Flags(a)) for a, _ in pairs[:20]]  # copies: equal
    for a, b in pairs:
        assert nt.values(a) == nt.NUMBA_VALUES(a)
        assert hash(a) == nt.NUMBA_HASH(a)
        assert (a == b) == nt.NUMBA_EQ(a, b)
        if a == b:
            assert hash(a) == hash(b)
    assert sum(a == b for a, b in pairs) >= 20
    assert compiler.Flags().__eq__(object()) is NotImplemented


def _typing():
    return cpu_target.typing_context


def test_a_remembered_call_type_is_numbas_and_restores_its_implementation():
    context = _typing()
    context.refresh()
    fnty = context.resolve_value_type(operator.add)
    args = (types.int64, types.int64)
    with targetconfig.ConfigStack().enter(compiler.Flags()):
        first = fnty.get_call_type(context, args, {})
        assert first == nt.NUMBA_GET_CALL_TYPE(fnty, context, args, {})
        impl = fnty._impl_keys[first.args]
        fnty._impl_keys[first.args] = None  # as if another resolution overwrote it
        again = fnty.get_call_type(context, args, {})
    assert again is first  # remembered
    assert fnty._impl_keys[first.args] == impl


def test_call_types_are_remembered_per_flags_and_argument_types():
    context = _typing()
    fnty = context.resolve_value_type(operator.add)
    other = compiler.Flags()
    other.nrt = True
    with targetconfig.ConfigStack().enter(compiler.Flags()):
        ints = fnty.get_call_type(context, (types.int64, types.int64), {})
        floats = fnty.get_call_type(context, (types.float64, types.int64), {})
    with targetconfig.ConfigStack().enter(other):
        ints_nrt = fnty.get_call_type(context, (types.int64, types.int64), {})
    assert ints.return_type == types.int64 and floats.return_type == types.float64
    keys = [k for k in nt._call_types if k[0] is fnty]
    assert len({(k[4], k[6]) for k in keys}) >= 3
    assert ints_nrt == ints


def test_failures_raise_every_time():
    context = _typing()
    fnty = context.resolve_value_type(operator.add)
    for _ in range(2):
        with pytest.raises(Exception, match="(?i)no implementation|invalid use"):
            fnty.get_call_type(context, (types.int64, types.NoneType("none")), {})
