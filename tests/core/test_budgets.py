"""The budgets (core/budgets.py): parsing, the error's message, and the state's budget
(core/state/state_budget.py) refusing a write before it changes anything."""

from __future__ import annotations

import gzip
import zlib

import pytest

from tandem.core.agui.budget_checks import RunBudget
from tandem.core.agui.decoding import decoded
from tandem.core.budgets import MAX_STATE_DEPTH, BudgetExceeded, Budgets, parse_budget
from tandem.core.errors import ProtocolError
from tandem.core.state.agent_state import AgentState


class TestParse:
    @pytest.mark.parametrize(("text", "expected"), [
        ("message_bytes=8M", ("message_bytes", 8 * 1024 * 1024)),
        ("tool-calls=5000", ("tool_calls", 5000)),
        ("state_bytes = 512K", ("state_bytes", 512 * 1024)),
        ("response_bytes=1GiB", ("response_bytes", 1024 ** 3)),
    ])
    def test_names_and_sizes(self, text: str, expected: tuple[str, int]) -> None:
        assert parse_budget(text) == expected

    @pytest.mark.parametrize("text", ["nope=1", "tool_calls", "tool_calls=0", "tool_calls=many"])
    def test_bad_ones_are_refused(self, text: str) -> None:
        with pytest.raises(ValueError):
            parse_budget(text)

    def test_state_depth_has_a_ceiling_the_log_can_read_back(self) -> None:
        with pytest.raises(ValueError, match="at most"):
            Budgets(state_depth=MAX_STATE_DEPTH + 1)

    def test_the_error_names_the_budget_and_how_to_raise_it(self) -> None:
        error = Budgets().exceeded("message_bytes", "message 'm1' grew")
        assert isinstance(error, ProtocolError) and error.budget == "message_bytes"
        assert "256 KiB" in str(error) and "--budget message_bytes=N" in str(error) and "[budgets]" in str(error)


class TestRunBudget:
    def test_a_message_grows_to_its_budget_and_no_further(self) -> None:
        budget = RunBudget(Budgets(message_bytes=10, text_delta_bytes=6))
        budget.delta("m1", "12345")
        budget.delta("m1", "12345")
        budget.delta("m2", "123456")  # another message counts on its own
        with pytest.raises(BudgetExceeded) as caught:
            budget.delta("m1", "x")
        assert caught.value.budget == "message_bytes"
        with pytest.raises(BudgetExceeded, match="text_delta_bytes"):
            budget.delta("m3", "1234567")

    def test_tool_calls_per_run(self) -> None:
        budget = RunBudget(Budgets(tool_calls=2))
        for call in ("a", "b"):
            budget.event({"type": "TOOL_CALL_START", "toolCallId": call}, "TOOL_CALL_START")
        with pytest.raises(BudgetExceeded, match="tool_calls"):
            budget.event({"type": "TOOL_CALL_START", "toolCallId": "c"}, "TOOL_CALL_START")

    def test_a2ui_components_per_message_and_per_surface(self) -> None:
        def activity(surface: str, ids: range) -> dict[str, object]:
            components = [{"id": f"c{i}", "component": "Text", "text": "x"} for i in ids]
            return {"type": "ACTIVITY_SNAPSHOT", "activityType": "a2ui-surface",
                    "content": {"a2ui_operations": [{"updateComponents": {"surfaceId": surface, "components": components}}]}}

        budget = RunBudget(Budgets(message_components=5, surface_components=8))
        budget.event(activity("s1", range(5)), "ACTIVITY_SNAPSHOT")
        with pytest.raises(BudgetExceeded, match="message_components"):
            budget.event(activity("s1", range(6)), "ACTIVITY_SNAPSHOT")
        budget.event(activity("s2", range(5)), "ACTIVITY_SNAPSHOT")  # another surface
        with pytest.raises(BudgetExceeded, match="surface_components"):
            budget.event(activity("s1", range(5, 10)), "ACTIVITY_SNAPSHOT")

    def test_a2ui_components_a_patch_adds_count_too(self) -> None:
        budget = RunBudget(Budgets(message_components=5))
        message = {"updateComponents": {"surfaceId": "s1", "components": [{"id": f"c{i}"} for i in range(6)]}}
        with pytest.raises(BudgetExceeded, match="message_components"):
            budget.event({"type": "ACTIVITY_DELTA", "activityType": "a2ui-surface",
                          "patch": [{"op": "add", "path": "/a2ui_operations/-", "value": message}]}, "ACTIVITY_DELTA")


class TestStateBudget:
    def _state(self, **values: int) -> AgentState:
        from tandem.core.state.state_budget import StateBudget

        state = AgentState({})
        state.budget = StateBudget(Budgets(**values))
        return state

    def test_a_state_that_doubles_itself_is_refused_and_left_as_it_was(self) -> None:
        state = self._state(state_bytes=64 * 1024)
        state.apply_snapshot({"d": {"seed": "x" * 1024}})
        refused = None
        for index in range(40):
            try:
                state.apply_delta([{"op": "copy", "from": "/d", "path": f"/d/k{index}"}])
            except BudgetExceeded as exc:
                refused = (index, exc)
                break
        assert refused is not None and refused[1].budget == "state_bytes"
        assert f"k{refused[0]}" not in state.committed["d"]  # the refused write changed nothing
        assert len(str(state.committed)) < 64 * 1024

    def test_depth_counts_the_path_and_the_value(self) -> None:
        state = self._state(state_depth=4)
        state.apply_snapshot({"a": {"b": 1}})  # 2 deep
        state.apply_delta([{"op": "add", "path": "/a/c", "value": {"d": 1}}])  # 3 deep
        with pytest.raises(BudgetExceeded, match="state_depth"):
            state.apply_delta([{"op": "add", "path": "/a/c/e", "value": {"f": {"g": 1}}}])
        assert state.committed == {"a": {"b": 1, "c": {"d": 1}}}


async def _raw(chunks: list[bytes]):  # type: ignore[no-untyped-def]
    for chunk in chunks:
        yield chunk


async def _decode(body: bytes, header: str, budgets: Budgets, size: int = 65536) -> bytes:
    out = b""
    async for piece in decoded(_raw([body[i:i + size] for i in range(0, len(body), size)]), header, budgets):
        out += piece
    return out


class TestDecoding:
    async def test_gzip_gzip_and_deflate_decode(self) -> None:
        text = b"data: {}\n\n" * 5000
        assert await _decode(gzip.compress(text), "gzip", Budgets()) == text
        assert await _decode(gzip.compress(gzip.compress(text)), "gzip, gzip", Budgets()) == text
        assert await _decode(zlib.compress(text), "deflate", Budgets()) == text
        assert await _decode(gzip.compress(text) + gzip.compress(text), "gzip", Budgets()) == text * 2  # two members

    async def test_a_nested_bomb_is_refused_in_bounded_memory(self) -> None:
        inner = zlib.compressobj(9, zlib.DEFLATED, 31)
        layer = b"".join(inner.compress(b"\0" * (1 << 20)) for _ in range(32)) + inner.flush()  # 32 MiB of zeros
        body = gzip.compress(layer)
        with pytest.raises(BudgetExceeded) as caught:
            await _decode(body, "gzip, gzip", Budgets())
        assert caught.value.budget in ("decompression_ratio", "response_bytes")

    async def test_the_response_budget_holds_for_honest_compression_too(self) -> None:
        text = b"data: {\"type\": \"x\"}\n\n" * 200_000  # ~4 MiB, compresses well under the ratio
        with pytest.raises(BudgetExceeded, match="response_bytes"):
            await _decode(gzip.compress(text), "gzip", Budgets(response_bytes=1 << 20, decompression_ratio=10_000))

    async def test_a_stream_flushed_and_closed_without_its_final_block_is_read(self) -> None:
        compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
        text = b"data: {}\n\n" * 100
        body = compressor.compress(text) + compressor.flush(zlib.Z_SYNC_FLUSH)  # no final block
        assert await _decode(body, "gzip", Budgets()) == text

    async def test_unknown_or_corrupt_codings_are_protocol_errors(self) -> None:
        with pytest.raises(ProtocolError, match="br"):
            await _decode(b"x", "br", Budgets())
        with pytest.raises(ProtocolError, match="corrupt"):
            await _decode(b"not gzip at all", "gzip", Budgets())
