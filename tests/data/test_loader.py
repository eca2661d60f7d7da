"""queuelab.data.load: typed frames with units, and clear errors for unknown names."""

from __future__ import annotations

import pandas as pd
import pytest

from queuelab import data


def test_load_types_and_units():
    df = data.load("domino-threads", "webmail_response_time")
    assert df["users"].dtype == "Int64"
    assert df["response_time_s"].dtype == "float64"
    assert df.attrs["units"]["response_time_s"] == "s"
    assert df.attrs["inventory_id"] == "DT-T3"
    assert len(df) == 20


def test_every_table_loads_with_its_schema_columns():
    for document in data.documents():
        for name in data.datasets(document):
            df = data.load(document, name)
            fields = [f["name"] for f in data.describe(document, name)["schema"]["fields"]]
            assert list(df.columns) == fields
            assert isinstance(df, pd.DataFrame)


def test_unknown_document_lists_the_available_ones():
    with pytest.raises(ValueError, match="unknown document 'nope'.*domino-threads"):
        data.load("nope", "webmail_response_time")


def test_unknown_dataset_lists_the_available_ones():
    with pytest.raises(ValueError, match="unknown dataset 'nope'.*webmail_response_time"):
        data.load("domino-threads", "nope")
