"""The example notebook, executed headless in a Jupyter kernel of its own: on the CPU it loads
an H200 recording, on the GPU it profiles in the notebook's kernel; either way the results show
as the HTML table and the plot shows as an image."""

from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOK = (
    Path(__file__).resolve().parents[2] / "examples" / "notebooks" / "profile_in_a_notebook.ipynb"
)
RECORDING = Path(__file__).resolve().parents[1] / "data" / "h200-torch-matmul-sweep-2026-11-30.json"


def run_notebook(env: dict[str, str], monkeypatch) -> list:
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": NOTEBOOK.parent}}
    )
    client.execute()
    return [out for cell in nb.cells if cell.cell_type == "code" for out in cell.outputs]


def check_outputs(outputs: list) -> None:
    assert not [o for o in outputs if o.output_type == "error"], outputs
    html = [o["data"]["text/html"] for o in outputs if "text/html" in o.get("data", {})]
    assert any("<table" in h and "matmul" in h for h in html), html
    assert any("image/png" in o.get("data", {}) for o in outputs), "no plot"


def test_the_notebook_shows_a_recording_as_a_table_and_a_plot(monkeypatch):
    outputs = run_notebook({"KPROF_NOTEBOOK_RECORDING": str(RECORDING)}, monkeypatch)
    check_outputs(outputs)
    assert any(o.get("data", {}).get("text/plain") == "False" for o in outputs)  # no GPU used


@pytest.mark.gpu
def test_the_notebook_profiles_in_its_own_kernel_on_a_gpu(monkeypatch):
    monkeypatch.delenv("KPROF_NOTEBOOK_RECORDING", raising=False)
    outputs = run_notebook({}, monkeypatch)
    check_outputs(outputs)
    assert any(o.get("data", {}).get("text/plain") == "True" for o in outputs)
