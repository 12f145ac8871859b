from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import BaseModel, ValidationError

from lorebase_core.errors import SecretError
from lorebase_platform.secrets import resolve_secret
from lorebase_platform.settings import Settings, load_settings

EXAMPLE = Path(__file__).parents[3] / "config" / "lorebase.example.yaml"


def _leaves(model: type[BaseModel], prefix: str = "") -> dict[str, Any]:
    found: dict[str, Any] = {}
    for name, field in model.model_fields.items():
        key = f"{prefix}{field.serialization_alias or field.alias or name}"
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            found.update(_leaves(annotation, f"{key}."))
        else:
            found[key] = field
    return found


def _flatten(document: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in document.items():
        if isinstance(value, dict) and value:
            flat.update(_flatten(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def test_example_file_lists_every_setting_and_nothing_else() -> None:
    documented = _flatten(yaml.safe_load(EXAMPLE.read_text()))
    assert set(documented) == set(_leaves(Settings))


def test_every_setting_has_a_description() -> None:
    missing = [key for key, field in _leaves(Settings).items() if not field.description]
    assert missing == []


def test_example_file_loads_with_the_defaults(tmp_path: Path) -> None:
    settings = load_settings(EXAMPLE)
    defaults = Settings()
    assert settings.keeper == defaults.keeper
    assert settings.imports == defaults.imports
    assert settings.database.url is None


def test_environment_overrides_a_nested_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOREBASE__KEEPER__PORT", "9123")
    monkeypatch.setenv("LOREBASE__IMPORT__BATCH_SIZE", "42")
    settings = Settings()
    assert (settings.keeper.port, settings.imports.batch_size) == (9123, 42)


def test_unknown_and_out_of_range_settings_are_refused(tmp_path: Path) -> None:
    config = tmp_path / "bad.yaml"
    config.write_text("keeper:\n  port: 70000\n  colour: blue\n")
    with pytest.raises(ValidationError) as raised:
        load_settings(config)
    locations = {tuple(error["loc"]) for error in raised.value.errors()}
    assert {("keeper", "port"), ("keeper", "colour")} <= locations


def test_database_url_defaults_to_the_embedded_sqlite_file(tmp_path: Path) -> None:
    settings = Settings(database={"sqlite_path": tmp_path / "x.sqlite"})
    assert settings.database.resolved_url() == f"sqlite:///{tmp_path / 'x.sqlite'}"


def test_database_url_may_be_a_secret_reference(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("LB_TEST_DSN", "postgresql://u:p@127.0.0.1/db")
    assert (
        Settings(database={"url": "secret://env/LB_TEST_DSN"}).database.resolved_url()
        == "postgresql://u:p@127.0.0.1/db"
    )
    secret_file = tmp_path / "dsn"
    secret_file.write_text("postgresql://file@127.0.0.1/db\n")
    assert resolve_secret(f"secret://file/{secret_file}") == "postgresql://file@127.0.0.1/db"


@pytest.mark.parametrize(
    "reference",
    [
        pytest.param("secret://env/LB_SURELY_UNSET_VARIABLE", id="unset-variable"),
        pytest.param("secret://file//nonexistent/lorebase/secret", id="missing-file"),
        pytest.param("secret://vault/thing", id="unknown-scheme"),
    ],
)
def test_unresolvable_secrets_say_why(reference: str) -> None:
    with pytest.raises(SecretError):
        resolve_secret(reference)


def test_the_import_section_is_read_from_yaml_and_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "lorebase.yaml"
    config.write_text("import:\n  batch_size: 7\n")
    assert load_settings(config).imports.batch_size == 7
    monkeypatch.setenv("LOREBASE__IMPORT__MAX_ISSUES", "3")
    assert Settings().imports.max_issues == 3
