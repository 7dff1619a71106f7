"""Reading figures back: plotly >= 6 sends numeric arrays as base64 typed arrays."""

import json

from ui.blocks import walk


def chart_payloads(at) -> list[dict]:
    """What each chart an AppTest run drew sends to the browser: {"figure": JSON, "name": ...}."""
    payloads = (json.loads(element.proto.json or "{}") for element in at.get("bidi_component"))
    return [payload for payload in payloads if "figure" in payload]  # not the sidebar's tools,
    # nor its link watcher (no data)


def chart_specs(at) -> list[dict]:
    """The plotly figures an AppTest run drew, as the JSON the browser receives."""
    return [json.loads(payload["figure"]) for payload in chart_payloads(at)]


def figure_json(fig) -> dict:
    """A figure as the browser receives it."""
    return json.loads(fig.to_json())


def _hover(trace) -> object:
    return trace.get("hoverinfo") if isinstance(trace, dict) else trace.hoverinfo


def value_traces(traces) -> list:
    """The traces that carry values, leaving out the grey layers under masked cells."""
    return [t for t in traces if _hover(t) != "skip"]


def grey_layers(traces) -> list:
    """The grey layers painted under masked (NaN) cells."""
    return [t for t in traces if _hover(t) == "skip"]


def chart_blocks(blocks: list[dict]) -> list[dict]:
    """Every chart block of a document, those in its columns, boxes and answers too, in order."""
    return [block for block in walk(blocks) if block["t"] == "chart"]
