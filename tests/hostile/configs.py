"""Hostile configuration files and measure strings, each with the line and the problem the
one-line error must name (``ndcg.limits``). Large inputs are built here, not stored."""

from __future__ import annotations

DEEP = 5000
ALIAS_BOMB = (
    "[&a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"
    + "".join(f", &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 9))
    + "]"
)

# name -> (file text, line the error names, fragment of the problem: the key it is under, when
# the file is a mapping, and what is wrong)
CONFIG_FILES: dict[str, tuple[str, int, str]] = {
    "complex-key.yaml": ("gain: linear\n? [a, b]\n: 1\n", 2, "a key must be a name"),
    "deep.yaml": ("cutoff: " + "[" * DEEP + "]" * DEEP + "\n", 1, "key 'cutoff': nested more"),
    # Line k opens the mapping nested k deep: line 9 is the first beyond the limit of 8.
    "deep-block.yaml": ("".join(" " * i + "a:\n" for i in range(1000)), 9, "key 'a': nested"),
    "deep.json": ('{\n"cutoff": ' + "[" * DEEP + "]" * DEEP + "}", 2, "key 'cutoff': nested"),
    "long-cutoff.yaml": (
        "cutoff: " + "9" * 5000 + "\n",
        1,
        "key 'cutoff': a number written in 5000",
    ),
    "long-cutoff.json": ('{"cutoff": ' + "9" * 5000 + "}", 1, "key 'cutoff': a number written in"),
    "pair-of-one.yaml": ("gain: map\ngain_map: [[1]]\n", 2, "[label, gain] pairs"),
    "bomb-persistence.yaml": (
        f"discount: geometric\npersistence: {ALIAS_BOMB}\n",
        2,
        "key 'persistence': YAML anchors and aliases",
    ),
    "bomb-cutoff.yaml": (f"cutoff: {ALIAS_BOMB}\n", 1, "key 'cutoff': YAML anchors and aliases"),
    "anchored-key.yaml": ("gain: linear\n&k cutoff: 3\n", 2, "key 'cutoff': YAML anchors"),
    "octal-cutoff.yaml": ("gain: linear\ncutoff: 010\n", 2, "key 'cutoff': '010' is not a decimal"),
    "octal-in-a-flow-mapping.yaml": ("{gain: linear, cutoff: 010}\n", 1, "key 'cutoff': '010'"),
    "octal-in-a-list.yaml": ("gain: map\ngain_map:\n- [1, 010]\n", 3, "key 'gain_map': '010'"),
    "octal-list.yaml": ("[010]\n", 1, ":1: '010' is not a decimal integer"),
    "hex-cutoff.yaml": ("cutoff: 0x10\n", 1, "key 'cutoff': '0x10' is not a decimal integer"),
    "base60-cutoff.yaml": ("cutoff: 1:30\n", 1, "key 'cutoff': '1:30' is not a decimal integer"),
    "huge-base.yaml": ("log_base: 1e99999999\n", 1, "10^99999999"),
    "tiny-persistence.json": (
        '{"discount": "geometric", "persistence": 1e-99999999}',
        1,
        "10^-99999999",
    ),
    "long-base.yaml": ("log_base: 1." + "0" * 60 + "1\n", 1, "62 significant digits"),
}

# measure string -> fragment of the problem
MEASURES: dict[str, str] = {
    "nDCG@" + "9" * 5000: "at most 18 are allowed",
    "nDCG(log_base=1." + "0" * 60 + "1)": "significant digits",
    "nDCG(log_offset=1e-60)": "10^-60",
    "nDCG(log_base=1e99999999)": "10^99999999",
    "nDCG(discount=geometric,persistence=1e-99999999)": "10^-99999999",
    "nDCG(gain=map,gain_map={" + "1" * 300 + ":1})": "300 characters",
}
