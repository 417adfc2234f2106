"""Helpers shared by tests (moved out of tests.pages.test_import_export, so that no test module imports another)."""

from __future__ import annotations


CLUB_NIGHT = """[Game "la-cabra"]
[Players "Marta" "Pere" "Núria" "Jordi"]
[Title "Club night, imported"]
; deal 1
2. hand_started dealer=3
3. hand_result cardPoints=[72 48] tricks=[5 2] lastTrick=0
4. hand_started dealer=0
5. hand_result cardPoints=[20 100] tricks=[1 6]
6. hand_started dealer=3
7. hand_result cardPoints=[60 60]
"""
