"""Helpers shared by tests (moved out of tests.api.test_cau_robat_api, so that no test module imports another)."""

from __future__ import annotations
import json


VOCABULARY_LOG = """\
{"type":"match_started","data":{"game":"cau-robat","players":["A","B","C","D"],"target":{"wins":3},"options":{}}}
{"type":"hand_started","data":{"dealer":2}}
{"type":"hand_result","data":{"piles":[8,12,12,6],"table":2}}
{"type":"score_claimed","data":{"hand":1,"points":[8,12,12,6],"totals":[0,1,1,0]}}
{"type":"hand_started","data":{"dealer":3,"table":["1o","3c","5e","11b"],"hands":[["5o","12o","7o","7b","1e","2o","4o","6o","10o"],["6c","3o","7c","1b","2c","4c","6e","10e","12c"],["1c","2e","7e","2b","3e","5c","11c","12e","10b"],["11o","10c","4b","3b","4e","5b","6b","11e","12b"]]}}
{"type":"play","data":{"seat":0,"card":"5o"}}
{"type":"play","data":{"seat":1,"card":"6c"}}
{"type":"play","data":{"seat":2,"card":"1c"}}
{"type":"play","data":{"seat":3,"card":"11o"}}
{"type":"play","data":{"seat":0,"card":"12o"}}
{"type":"play","data":{"seat":1,"card":"3o"}}
{"type":"play","data":{"seat":2,"card":"2e"}}
{"type":"play","data":{"seat":3,"card":"10c"}}
{"type":"play","data":{"seat":0,"card":"7o"}}
{"type":"play","data":{"seat":1,"card":"7c","call":true}}
{"type":"play","data":{"seat":2,"card":"7e","call":true}}
{"type":"play","data":{"seat":3,"card":"4b","captures":[{"seat":2,"cards":["7o","7c","6c","5e","5o","10c","11b","11o","12o","7e"]}]}}
"""


LOG = [json.loads(line) for line in VOCABULARY_LOG.splitlines()]
