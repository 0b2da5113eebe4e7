"""Where a store is (`--store`, `$SESSIONS_TUI_STORE`): SQLite by default, else a PostgreSQL URL without a password."""

import pytest

from sessions_tui.engine.store.location import LocationError, chosen_location, postgres_url, store_url


def test_the_option_wins_over_the_environment_and_sqlite_is_the_default(monkeypatch):
    monkeypatch.delenv("SESSIONS_TUI_STORE", raising=False)
    assert chosen_location(None) is None  # neither says: the config may, else SQLite
    assert chosen_location("sqlite") == ("sqlite", "--store") and store_url("sqlite", "--store") is None
    monkeypatch.setenv("SESSIONS_TUI_STORE", "postgresql://h/env")
    assert chosen_location(None) == ("postgresql://h/env", "$SESSIONS_TUI_STORE")
    assert chosen_location("postgresql://h/cli") == ("postgresql://h/cli", "--store")


def test_a_url_without_a_password_is_taken_as_given():
    for url in ("postgresql://h/db", "postgres://me@h:5433/db?sslmode=require", "postgresql:///db?host=/run/pg"):
        assert postgres_url(url) == url


@pytest.mark.parametrize("url", ["postgresql://me:pw@h/db", "postgresql://me:@h/db", "postgresql://h/db?password=pw"])
def test_a_password_in_the_url_is_refused_and_not_repeated(url):
    with pytest.raises(LocationError) as refused:
        postgres_url(url)
    assert "pw" not in str(refused.value).replace("password", "") and "PGPASSWORD" in str(refused.value)


def test_a_location_names_a_postgresql_url_or_sqlite():
    assert store_url("postgresql://h/db", "--store") == "postgresql://h/db"
    with pytest.raises(LocationError, match="not a store location"):
        store_url("mysql://h/db", "--store")
