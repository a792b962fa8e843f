# SPDX-License-Identifier: MIT
"""The ctypes mirrors of the C structs have the C compiler's layout."""

import ctypes
import os
import subprocess

import pytest

from boids import _lib

MIRRORS = {
    "boids_params": _lib.Params,
    "boids_species": _lib.Species,
    "boids_error": _lib.Error,
    "boids_flock": _lib.FlockC,
    "boids_metrics": _lib.Metrics,
    "boids_gpu_options": _lib.GpuOptions,
    "boids_param_info": _lib.ParamInfo,
    "boids_preset_info": _lib.PresetInfo,
    "boids_point": _lib.Point,
    "boids_obstacle": _lib.Obstacle,
    "boids_interact": _lib.Interact,
}


def probe_lines():
    probe = os.environ.get("BOIDS_ABI_PROBE")
    if not probe or not os.path.exists(probe):
        pytest.skip("BOIDS_ABI_PROBE (python/tests/abi_probe.c, built by ctest) is not set")
    out = subprocess.run([probe], capture_output=True, text=True, check=True).stdout
    return [line.split() for line in out.splitlines()]


def test_struct_sizes_and_offsets_match_c():
    lines = probe_lines()
    fields_seen = {name: set() for name in MIRRORS}
    for words in lines:
        if words[1] == "size":
            assert ctypes.sizeof(MIRRORS[words[0]]) == int(words[2]), words
        elif words[1] == "offset":
            struct, field = words[0].split(".")
            assert getattr(MIRRORS[struct], field).offset == int(words[2]), words
            fields_seen[struct].add(field)
    # Every mirrored field was checked (Metrics is one array, checked by size).
    for struct, cls in MIRRORS.items():
        if struct != "boids_metrics":
            assert fields_seen[struct] == {f[0] for f in cls._fields_}, struct
    consts = {w[0]: int(w[1]) for w in lines if len(w) == 2}
    assert consts["BOIDS_METRICS_COUNT"] == len(_lib.METRIC_NAMES) == len(_lib.Metrics().values)
    assert consts["BOIDS_ERROR_MSG_MAX"] == _lib.Error.msg.size
    assert consts["BOIDS_MAX_POINTS"] == _lib.MAX_POINTS
    assert consts["BOIDS_MAX_OBSTACLES"] == _lib.MAX_OBSTACLES


def test_key_table_offsets_match_params_fields():
    # Without the probe too: the library's own key table carries offsetof of every key.
    count = ctypes.c_size_t()
    table = _lib.core.boids_param_table(ctypes.byref(count))
    keys = {table[i].key.decode(): table[i].offset for i in range(count.value)}

    def offset(key):
        # KEY.s: species s's field of boids_species; KEY.i.j: entry [i][j] of a matrix.
        parts = key.replace("species_count", "count").split(".")
        if len(parts) == 2:
            s = int(parts[1])
            return (_lib.Params.sp.offset + (s - 1) * ctypes.sizeof(_lib.Species) +
                    getattr(_lib.Species, parts[0]).offset)
        if len(parts) == 3:
            field = getattr(_lib.Params, parts[0])
            row = field.size // _lib.MAX_SPECIES
            return field.offset + int(parts[1]) * row + int(parts[2]) * (row // _lib.MAX_SPECIES)
        return getattr(_lib.Params, key).offset

    assert {k: offset(k) for k in keys} == keys
    arrays = {"sp", "coupling", "rule", "rule_radius", "rule_weight"}
    assert {n for n, _ in _lib.Params._fields_} - arrays == {k for k in keys if "." not in k}


def test_metric_names_are_the_csv_columns():
    # A char array in the library, not a pointer: read the string at its address.
    columns = (ctypes.c_char * 1).in_dll(_lib.core, "boids_metrics_columns")
    text = ctypes.string_at(ctypes.addressof(columns)).decode()
    assert text.split(",") == list(_lib.METRIC_NAMES)
