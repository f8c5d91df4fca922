"""``rimbridge/get_script_reference`` in the shape of the mod's ``CapabilityScriptReferenceBuilder``
(what ``CapabilityScriptReferenceBuilderTests`` reads, and the fields around it): the sim's
words, the mod's fields."""

from __future__ import annotations

from typing import Any

from rimbridge_sim.scripting import script_reference

FIELD_KEYS = ["name", "type", "required", "defaultValue", "description"]


def by_name(items: list[dict[str, Any]], key: str = "name") -> dict[str, dict[str, Any]]:
    return {item[key]: item for item in items}


def test_the_top_level_keys_are_in_the_mods_order() -> None:
    keys = [key for key in script_reference() if key != "truthiness"]
    assert keys == [
        "success", "version", "summary", "tool", "definition", "statementTypes",
        "expressionForms", "references", "continueUntil", "conditionModel", "resultShape",
        "limits", "failureCodes", "authoringTips", "examples",
    ]  # fmt: skip


def test_tool_and_definition_carry_a_description() -> None:
    document = script_reference()
    assert list(document["tool"]) == ["name", "companionTool", "description", "arguments"]
    assert list(document["definition"])[:2] == ["description", "fields"]


def test_statement_types_are_the_mods_ten_with_report_behavior_and_a_type_field() -> None:
    statements = script_reference()["statementTypes"]
    assert [s["type"] for s in statements] == [
        "call", "let", "set", "if", "foreach", "while", "assert", "fail", "print", "return",
    ]  # fmt: skip
    for statement in statements:
        assert list(statement) == ["type", "description", "reportBehavior", "fields"]
        names = [f["name"] for f in statement["fields"]]
        assert (names[0] == "type") == (statement["type"] != "call")
    foreach = by_name(statements, "type")["foreach"]
    assert [f["name"] for f in foreach["fields"]] == [
        "type", "itemName", "indexName", "collection", "body",
    ]  # fmt: skip


def test_expression_forms_have_a_shape() -> None:
    forms = by_name(script_reference()["expressionForms"])
    assert all(list(form) == ["name", "description", "shape"] for form in forms.values())
    assert forms["literal"]["shape"] is None
    assert forms["$ref"]["shape"] == {"$ref": "<step-id>", "path": "result.someField",
                                      "required": True}  # fmt: skip
    assert forms["$and"]["shape"] == [True, "value"]


def test_references_have_notes_and_the_condition_model_its_roots_and_operand_types() -> None:
    document = script_reference()
    assert len(document["references"]["notes"]) == 4
    model = document["conditionModel"]
    assert list(model) == ["description", "roots", "operators"]
    assert [(r["context"], r["examplePath"]) for r in model["roots"]] == [
        ("continueUntil", "result.colonists"),
        ("if / while / assert", "vars.count"),
    ]
    operators = by_name(model["operators"])
    assert operators["all"]["operandType"] == "condition[]"
    assert operators["greaterThan"]["operandType"] == "number | expression"
    assert operators["in"]["operandType"] == "collection expression"


def test_the_result_shape_lists_fields_of_the_answer_report_step_and_output_rows() -> None:
    shape = script_reference()["resultShape"]
    for key in ("topLevelFields", "reportFields", "stepReportFields", "outputFields"):
        assert all(list(f) == FIELD_KEYS for f in shape[key]), key
    assert [f["name"] for f in shape["topLevelFields"]] == [
        "success", "message", "returned", "result", "error", "output", "script",
    ]  # fmt: skip
    assert [f["name"] for f in shape["outputFields"]] == [
        "index", "statementId", "level", "message", "value",
    ]  # fmt: skip


def test_examples_are_in_the_mods_order_with_a_description() -> None:
    examples = script_reference()["examples"]
    assert [e["name"] for e in examples] == [
        "minimal", "value_passing", "bounded_loop", "test_style",
    ]  # fmt: skip
    assert all(list(e) == ["name", "description", "script"] for e in examples)
