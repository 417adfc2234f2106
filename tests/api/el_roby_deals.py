"""Helpers shared by tests (moved out of tests.api.test_el_roby_api, so that no test module imports another)."""

from __future__ import annotations


DEAL = [
    ["2C", "2D", "9H", "9S", "JC", "QD", "KS", "3H", "5D", "6S"],  # Ana
    ["4H", "5H", "6H", "8C", "8D", "8S", "KC", "QH", "JS", "AC"],  # Bea: a run and a set
    ["7H", "7C", "10D", "2S", "3S", "4C", "9D", "JD", "QC", "AS"],  # Carlos
    ["3C", "5C", "6C", "10C", "KD", "KH", "2H", "4S", "8H", "AD"],  # Dani
]


START = {"game": "el-roby", "players": ["Ana", "Bea", "Carlos", "Dani"], "options": {"entry": 5, "stake": 1}}
