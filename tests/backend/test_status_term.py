"""The filter's `status:` term (backend/toolkit/matching.py `status_term`): the statuses it names, as typed."""

from sessions_tui.backend.toolkit.matching import status_term


def test_a_status_term_names_statuses_and_leaves_the_rest_of_the_filter():
    assert status_term("status:stuck") == ("", frozenset({"stuck"}))
    assert status_term("dev status:done,failed") == ("dev", frozenset({"done", "failed"}))
    assert status_term("STATUS:w") == ("", frozenset({"working", "waiting"}))  # as it is typed
    assert status_term("status:") == ("", None) and status_term("status:zz") == ("", None)
    assert status_term("dev") == ("dev", None)
    assert status_term("~status:stuck") == ("~status:stuck", None)  # message text
