from __future__ import annotations

import inspect
import re
import types
from pathlib import Path
from typing import Any

import pytest

import rimbridge_annotations
from rimbridge_annotations import (
    ParameterInfo,
    ResponseField,
    ToolInfo,
    collect,
    parameter,
    response_field,
    tool,
    tool_info,
)

README = Path(__file__).resolve().parents[1] / "README.md"


def test_a_fully_annotated_function_reads_back_as_one_tool_info() -> None:
    @tool(
        "rimworld/spawn_thing",
        "Spawn items on a cell.",
        title="Spawn thing",
        result_description="The stacks that were placed.",
        tags=("debug", "world"),
        version="1.2",
    )
    @parameter("def_name", "The thing def, e.g. Steel.")
    @parameter("count", "How many items.")
    @response_field("stacks", "One entry per placed stack.")
    def spawn_thing(def_name: str, count: int = 1) -> dict[str, Any]:
        return {"def": def_name, "count": count}

    assert tool_info(spawn_thing) == ToolInfo(
        name="rimworld/spawn_thing",
        description="Spawn items on a cell.",
        title="Spawn thing",
        result_description="The stacks that were placed.",
        tags=("debug", "world"),
        parameters=(
            ParameterInfo("def_name", "The thing def, e.g. Steel."),
            ParameterInfo("count", "How many items."),
        ),
        response_fields=(ResponseField("stacks", "One entry per placed stack."),),
        deprecated=False,
        version="1.2",
    )


def test_the_decorated_function_is_the_same_object_and_runs_unchanged() -> None:
    def original(x: int) -> int:
        return x + 1

    decorated = tool("test/inc", "Add one.")(parameter("x", "A number.")(original))

    assert decorated is original
    assert decorated(1) == 2


def test_parameter_decorators_work_above_and_below_tool_in_signature_order() -> None:
    @parameter("b", "Second.")
    @tool("test/order", "Order.")
    @parameter("a", "First.")
    @response_field("r", "A field.")
    def order(a: int, b: int) -> int:
        return a + b

    info = tool_info(order)

    assert info is not None
    assert info.parameters == (ParameterInfo("a", "First."), ParameterInfo("b", "Second."))
    assert info.parameter_descriptions() == {"a": "First.", "b": "Second."}
    assert info.response_fields == (ResponseField("r", "A field."),)


def test_response_fields_keep_the_order_in_which_they_are_written() -> None:
    @tool("test/fields", "Fields.")
    @response_field("first", "One.")
    @response_field("second", "Two.")
    def fields() -> None:
        return None

    info = tool_info(fields)

    assert info is not None
    assert [f.name for f in info.response_fields] == ["first", "second"]


def test_a_function_without_tool_has_no_tool_info_even_with_parameter_notes() -> None:
    @parameter("x", "A number.")
    def not_a_tool(x: int) -> int:
        return x

    def plain() -> None:
        return None

    assert tool_info(not_a_tool) is None
    assert tool_info(plain) is None
    assert tool_info(42) is None


@pytest.mark.parametrize(
    "name",
    ["ping", "Rimworld/ping", "rimworld/", "/ping", "rimworld/get.game", "rimworld//x", "a/1b"],
)
def test_a_tool_name_that_breaks_the_pattern_is_refused_at_decoration_time(name: str) -> None:
    with pytest.raises(ValueError, match="must match"):
        tool(name, "Something.")


def test_names_with_dashes_underscores_and_several_segments_are_accepted() -> None:
    @tool("rim-bridge/debug/get_game_info", "Info.")
    def info() -> None:
        return None

    assert tool_info(info) is not None


@pytest.mark.parametrize("description", ["", "   "])
def test_an_empty_description_is_refused(description: str) -> None:
    with pytest.raises(ValueError, match="description of tool test/x must be a non-empty"):
        tool("test/x", description)


def test_a_parameter_the_function_does_not_have_is_refused_with_its_name() -> None:
    def function(pawn_id: str) -> None:
        return None

    with pytest.raises(ValueError, match=r"has no parameter 'pawnId'"):
        parameter("pawnId", "The pawn.")(function)


def test_a_function_with_keyword_arguments_accepts_any_parameter_name() -> None:
    @tool("test/kwargs", "Anything.")
    @parameter("whatever", "Any key.")
    def function(**kwargs: Any) -> None:
        return None

    info = tool_info(function)
    assert info is not None
    assert info.parameter_descriptions() == {"whatever": "Any key."}


def test_a_parameter_described_twice_is_refused() -> None:
    def function(x: int) -> None:
        return None

    parameter("x", "One.")(function)
    with pytest.raises(ValueError, match="parameter 'x' is described twice"):
        parameter("x", "Two.")(function)


def test_a_response_field_described_twice_is_refused() -> None:
    def function() -> None:
        return None

    response_field("x", "One.")(function)
    with pytest.raises(ValueError, match="response field 'x' is described twice"):
        response_field("x", "Two.")(function)


def test_a_second_tool_decorator_on_the_same_function_is_refused() -> None:
    @tool("test/one", "One.")
    def function() -> None:
        return None

    with pytest.raises(ValueError, match="already described as tool test/one"):
        tool("test/two", "Two.")(function)


def test_tags_given_as_a_single_string_are_refused_and_repeated_tags_collapse() -> None:
    with pytest.raises(TypeError, match="not a str"):
        tool("test/x", "X.", tags="diagnostic")

    @tool("test/tags", "Tags.", tags=["read-only", "status", "read-only"])
    def function() -> None:
        return None

    info = tool_info(function)
    assert info is not None
    assert info.tags == ("read-only", "status")


def test_an_unreadable_signature_defers_the_parameter_check_to_tool_info() -> None:
    class Opaque:
        @property
        def __signature__(self) -> Any:
            raise ValueError("no signature here")

        def __call__(self, *args: Any) -> None:
            return None

    opaque = Opaque()
    tool("test/opaque", "Opaque.")(parameter("anything", "Not checked yet.")(opaque))

    info = tool_info(opaque)
    assert info is not None
    assert info.parameter_descriptions() == {"anything": "Not checked yet."}


def test_tool_info_checks_parameters_that_could_not_be_checked_when_decorated() -> None:
    class LateSignature:
        readable = False

        @property
        def __signature__(self) -> inspect.Signature:
            if not self.readable:
                raise ValueError("not yet")
            return inspect.Signature([inspect.Parameter("x", inspect.Parameter.KEYWORD_ONLY)])

        def __call__(self, **kwargs: Any) -> None:
            return None

    late = LateSignature()
    tool("test/late", "Late.")(parameter("y", "Not there.")(late))
    late.readable = True

    with pytest.raises(ValueError, match=r"has no parameter 'y' \(its parameters: \['x'\]\)"):
        tool_info(late)


def test_methods_read_back_through_bound_methods_without_self_in_the_parameters() -> None:
    class Tools:
        @tool("test/method", "A method.")
        @parameter("x", "A number.")
        def method(self, x: int) -> int:
            return x * 2

    bound = Tools().method
    info = tool_info(bound)

    assert info is not None
    assert info.parameter_descriptions() == {"x": "A number."}
    assert bound(3) == 6


def test_static_and_class_methods_can_be_annotated_on_top_of_their_descriptor() -> None:
    class Tools:
        @tool("test/static", "Static.")
        @staticmethod
        def static(x: int) -> int:
            return x

        @tool("test/klass", "Class.")
        @classmethod
        def klass(cls) -> str:
            return cls.__name__

    assert [info.name for info, _ in collect(Tools())] == ["test/static", "test/klass"]


def test_collect_on_an_instance_returns_bound_methods_in_definition_order_bases_first() -> None:
    class Base:
        @tool("test/base", "Base.")
        def base(self) -> str:
            return "base"

    class Tools(Base):
        @property
        def exploding(self) -> int:
            raise AssertionError("collect must not evaluate properties")

        @tool("test/zeta", "Zeta.")
        def zeta(self) -> str:
            return "zeta"

        def helper(self) -> None:
            return None

        @tool("test/alpha", "Alpha.")
        def alpha(self) -> str:
            return "alpha"

    instance = Tools()
    collected = collect(instance)

    assert [info.name for info, _ in collected] == ["test/base", "test/zeta", "test/alpha"]
    assert [function() for _, function in collected] == ["base", "zeta", "alpha"]
    assert all(getattr(function, "__self__", None) is instance for _, function in collected)


def test_an_override_without_annotation_removes_the_tool_from_the_instance() -> None:
    class Base:
        @tool("test/base", "Base.")
        def base(self) -> None:
            return None

    class Child(Base):
        def base(self) -> None:
            return None

    assert collect(Child()) == []


def test_collect_on_a_module_finds_annotated_functions_in_definition_order() -> None:
    module = types.ModuleType("fake_tools")

    @tool("test/second", "Second.")
    def second() -> None:
        return None

    @tool("test/first", "First.")
    def first() -> None:
        return None

    module.second = second  # type: ignore[attr-defined]
    module.helper = len  # type: ignore[attr-defined]
    module.first = first  # type: ignore[attr-defined]
    module.alias = second  # type: ignore[attr-defined]

    assert [(info.name, fn) for info, fn in collect(module)] == [
        ("test/second", second),
        ("test/first", first),
    ]


def test_collect_on_a_list_requires_every_item_to_be_a_tool() -> None:
    @tool("test/a", "A.")
    def a() -> None:
        return None

    def b() -> None:
        return None

    assert [info.name for info, _ in collect([a])] == ["test/a"]
    with pytest.raises(ValueError, match="is not annotated with @tool"):
        collect([a, b])


def test_collect_refuses_two_callables_with_the_same_tool_name() -> None:
    @tool("test/same", "One.")
    def one() -> None:
        return None

    @tool("test/same", "Two.")
    def two() -> None:
        return None

    with pytest.raises(ValueError, match="two callables are annotated as tool test/same"):
        collect([one, two])


def test_tool_info_records_are_validated_when_built_directly() -> None:
    with pytest.raises(ValueError, match="parameter described more than once"):
        ToolInfo(
            name="test/x",
            description="X.",
            parameters=(ParameterInfo("a", "1"), ParameterInfo("a", "2")),
        )
    with pytest.raises(ValueError, match="description of parameter 'a'"):
        ParameterInfo("a", "")


def test_the_public_api_is_exactly_what_the_readme_documents() -> None:
    assert set(rimbridge_annotations.__all__) == {
        "TOOL_NAME_PATTERN",
        "ParameterInfo",
        "ResponseField",
        "ToolInfo",
        "collect",
        "parameter",
        "response_field",
        "tool",
        "tool_info",
    }


def test_the_readme_examples_run() -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
    assert len(blocks) == 3
    namespace: dict[str, Any] = {}
    for block in blocks[:2]:
        exec(compile(block, str(README), "exec"), namespace)
