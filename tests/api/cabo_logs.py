"""Helpers shared by tests (moved out of tests.api.test_cabo_api, so that no test module imports another)."""

from __future__ import annotations
import json
import re
from typing import Any
from tests.conftest import VOCABULARY


def vocabulary_log() -> list[dict[str, Any]]:
    text = VOCABULARY.read_text(encoding="utf-8")
    block = re.findall(r"```jsonl\n(.*?)```", text[text.index("**cabo** —") :], flags=re.S)[0]
    return [json.loads(line) for line in block.strip().splitlines()]
