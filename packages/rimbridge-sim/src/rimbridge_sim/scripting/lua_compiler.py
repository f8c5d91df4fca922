"""A small Lua subset, compiled (lowered) into the JSON script model the runner executes.

Supported, as in the mod: ``local`` declarations and assignments to locals;
``if``/``elseif``/``else``; ``while`` (at most 100 rounds); numeric ``for`` (any step, at most
1000 rounds); ``for i, v in ipairs(list)`` and ``for i in ipairs(list)``; ``return`` of one value
or several (a list); the host functions ``rb.call``, ``rb.poll``, ``rb.print``, ``rb.assert``,
``rb.fail``, ``print`` and ``ipairs``; literals, table constructors (array or object form),
static field access and static one-based indexes (``snapshot.result.colonists[1].name``),
arithmetic, comparisons, ``and``/``or``/``not`` and unary minus. No ``do ... end``, ``..``,
``#`` or ``^``, and no string indexes (``t["name"]``), as the mod's lowering has none. The
read-only table
``params`` holds the call's parameters. Host calls stand alone or are the whole right-hand
side of an assignment or ``return``. Anything else is refused with a compile error naming the
line and column: this is a parser and a lowering, not string matching.
"""

from __future__ import annotations

import copy
from typing import Any, Final

from rimbridge_sim.scripting.lua_lexer import LuaCompileError, Token, tokenize
from rimbridge_sim.scripting.lua_parser import ExpressionParser

__all__ = ["LuaCompileError", "compile_lua"]

LOOP_LIMIT: Final = 1000
"""``maxIterations`` of a lowered numeric ``for`` (the mod's ``DefaultLoopMaxIterations``)."""
WHILE_LIMIT: Final = 100
"""``maxIterations`` of a lowered ``while`` (the mod's ``DefaultWhileMaxIterations``)."""
_READ_ONLY: Final = "Lua binding 'params' is read-only in rimbridge/run_lua v1."
_BLOCK_ENDS: Final = ("end", "else", "elseif", "until")


def compile_lua(source: str, parameters: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON script definition for ``source`` (:class:`LuaCompileError` when refused)."""
    return _Compiler(tokenize(source), parameters or {}).program()


class _Compiler(ExpressionParser):
    def __init__(self, tokens: list[Token], parameters: dict[str, Any]) -> None:
        super().__init__(tokens)
        self._params = parameters
        self._generated = 0
        self._temps = 0

    # -- scopes ------------------------------------------------------------------------------

    def _declare(self, name: str, token: Token) -> None:
        if name == "params":
            self._fail("lua.unsupported_statement", _READ_ONLY, token)
        self._scopes[-1].add(name)

    def _generated_id(self, prefix: str) -> str:
        """The id of a call, ``if`` or loop, as the mod numbers them: the prefix (a variable's
        name, ``call``, ``poll``, ``return``, ``if``, ...) in lower case, then one counter for
        the whole script."""
        self._generated += 1
        return f"{_identifier(prefix)}_{self._generated}"

    def _temp(self, prefix: str, *, declare: bool = True) -> str:
        """A hidden variable of the lowering (``__lua_if_condition_1``), on its own counter."""
        self._temps += 1
        name = f"__lua_{_identifier(prefix)}_{self._temps}"
        if declare:
            self._scopes[-1].add(name)
        return name

    # -- statements --------------------------------------------------------------------------

    def program(self) -> dict[str, Any]:
        steps = [{"type": "let", "name": "params", "value": self._params}]
        steps += self._block(("eof",))
        return {"name": "lua-script", "steps": steps}

    def _block(self, ends: tuple[str, ...]) -> list[dict[str, Any]]:
        statements: list[dict[str, Any]] = []
        while not (
            self._token.kind == "eof"
            or (self._token.kind == "keyword" and self._token.value in ends)
        ):
            if self._is(";"):
                self._take()
                continue
            statements += self._statement()
        if "eof" in ends and self._token.kind != "eof":
            self._fail("lua.syntax_error", f"unexpected {self._describe()}")
        return statements

    def _scoped(self, ends: tuple[str, ...], names: tuple[str, ...] = ()) -> list[dict[str, Any]]:
        self._scopes.append(set(names))
        self._deeper()
        try:
            return self._block(ends)
        finally:
            self._scopes.pop()
            self._deeper(-1)

    def _statement(self) -> list[dict[str, Any]]:
        self._lowered()
        token = self._token
        if token.kind == "keyword":
            keyword = str(token.value)
            handler = {
                "local": self._local,
                "if": self._if,
                "while": self._while,
                "for": self._for,
                "return": self._return,
            }.get(keyword)
            if handler is None:
                self._fail(
                    "lua.unsupported_statement", f"'{keyword}' is not supported in this subset"
                )
            return handler()
        if self._is("::"):  # a label: Lua, but outside the subset, as goto is
            self._fail("lua.unsupported_statement", "labels are not supported in this subset")
        if token.kind != "name":
            self._fail("lua.syntax_error", f"unexpected {self._describe()}")
        host = self._host_name()
        if host is not None:
            return self._host_call(host, target=None)
        name = self._name()
        if self._is("="):
            equals = self._take()
            if name == "params":
                self._fail("lua.unsupported_statement", _READ_ONLY, token)
            if not self._declared(name):
                self._fail(
                    "lua.unsupported_statement",
                    f"Global assignment to '{name}' is not supported in rimbridge/run_lua v1.",
                    token,
                )
            del equals
            return self._assign(name, declare=False)
        self._refuse_statement(name, token)

    def _local(self) -> list[dict[str, Any]]:
        self._take()
        if self._is("function"):
            self._fail("lua.unsupported_statement", "local functions are not supported")
        token = self._token
        name = self._name()
        if self._is(","):
            self._fail(
                "lua.unsupported_statement",
                "Multiple-assignment Lua statements are not supported in rimbridge/run_lua v1.",
            )
        self._declare(name, token)
        if not self._is("="):
            return [{"type": "let", "name": name, "value": None}]
        self._take()
        return self._assign(name, declare=True)

    def _assign(self, name: str, *, declare: bool) -> list[dict[str, Any]]:
        kind = "let" if declare else "set"
        host = self._host_name()
        if host is not None:
            return self._host_call(host, target=(name, kind))
        return [{"type": kind, "name": name, "value": self._expression()}]

    def _if(self) -> list[dict[str, Any]]:
        # each branch: its condition in a hidden variable, then an if on that variable; an
        # elseif is a nested if in the else branch; ids are taken after the branches
        self._take()
        value = self._expression()
        self._expect("then")
        variable = self._temp("if_condition")
        body = self._scoped(("elseif", "else", "end"))
        else_body: list[dict[str, Any]] = []
        if self._is("elseif"):
            else_body = self._if()
        else:
            if self._is("else"):
                self._take()
                else_body = self._scoped(("end",))
            self._expect("end")
        return [
            {"type": "let", "name": variable, "value": value},
            {
                "id": self._generated_id("if"),
                "type": "if",
                "condition": _truthy(variable),
                "body": body,
                "elseBody": else_body,
            },
        ]

    def _while(self) -> list[dict[str, Any]]:
        # the condition goes into a hidden variable before the loop and again at the end of
        # every round
        self._take()
        value = self._expression()
        self._expect("do")
        variable = self._temp("while_condition")
        body = self._scoped(("end",))
        self._expect("end")
        body.append({"type": "set", "name": variable, "value": copy.deepcopy(value)})
        return [
            {"type": "let", "name": variable, "value": value},
            {
                "id": self._generated_id("while"),
                "type": "while",
                "maxIterations": WHILE_LIMIT,
                "condition": _truthy(variable),
                "body": body,
            },
        ]

    def _for(self) -> list[dict[str, Any]]:
        start = self._take()
        first_token = self._token
        first = self._name()
        if self._is("="):
            if first == "params":
                self._fail("lua.unsupported_statement", _READ_ONLY, start)
            return self._numeric_for(first, first_token)
        index = first
        names: tuple[str, ...] = (index,)
        while self._is(","):
            self._take()
            names += (self._name(),)
        self._expect("in")
        if len(names) > 2:
            self._fail(
                "lua.unsupported_statement",
                "Lua ipairs loops in rimbridge/run_lua v1 support one or two loop variables.",
                start,
            )
        if "params" in names:
            self._fail("lua.unsupported_statement", _READ_ONLY, start)
        after = self._peek()
        if self._token.value != "ipairs" or not (
            (after.value in ("(", "{") and after.kind == "symbol") or after.kind == "string"
        ):
            self._fail(
                "lua.unsupported_statement",
                "Only 'for ... in ipairs(...) do' is supported in rimbridge/run_lua v1.",
            )
        call = self._take()
        collections = self._arguments()
        if len(collections) != 1:
            self._fail(
                "lua.unsupported_expression",
                "ipairs requires exactly one collection expression.",
                call,
            )
        collection = collections[0]
        self._expect("do")
        item = self._temp("foreach_item", declare=False)
        counter = self._temp("foreach_index", declare=False)
        prelude = [{"type": "let", "name": index, "value": {"$add": [{"$var": counter}, 1]}}]
        if len(names) > 1:
            prelude.append({"type": "let", "name": names[1], "value": {"$var": item}})
        body = self._scoped(("end",), names)
        self._expect("end")
        return [
            {
                "id": self._generated_id("foreach"),
                "type": "foreach",
                "itemName": item,
                "indexName": counter,
                "collection": collection,
                "body": prelude + body,
            }
        ]

    def _for_round(self, name: str, current: str, step: str) -> list[dict[str, Any]]:
        """One lowering of a numeric for's body: the loop variable from the counter, the
        body, then the counter moved on by the step."""
        body = self._scoped(("end",), (name,))
        return [
            {"type": "let", "name": name, "value": {"$var": current}},
            *body,
            {
                "type": "set",
                "name": current,
                "value": {"$add": [{"$var": current}, {"$var": step}]},
            },
        ]

    def _numeric_for(self, name: str, token: Token) -> list[dict[str, Any]]:
        self._take()
        low = self._expression()
        self._expect(",")
        high = self._expression()
        by: Any = 1
        if self._is(","):
            self._take()
            by = self._expression()
        self._expect("do")
        del token
        start, end, step, current = (
            self._temp(part) for part in ("for_start", "for_end", "for_step", "for_current")
        )
        # the body is lowered twice, once per direction, as the mod lowers it: the second copy
        # takes its own ids
        at = self._at
        upwards = self._for_round(name, current, step)
        self._at = at
        downwards = self._for_round(name, current, step)
        self._expect("end")

        def loop(kind: str, compare: str, body: list[dict[str, Any]]) -> dict[str, Any]:
            return {
                "id": self._generated_id(kind),
                "type": "while",
                "maxIterations": LOOP_LIMIT,
                "condition": {"path": f"vars.{current}", compare: {"$var": end}},
                "body": body,
            }

        # the limit and the step are evaluated once, before the first round, as in Lua; a
        # step of 0 or more counts up (a 0 step runs into the round limit, as in the mod)
        choice: dict[str, Any] = {"id": self._generated_id("for"), "type": "if"}
        choice["condition"] = {"path": f"vars.{step}", "greaterThanOrEqual": 0}
        choice["body"] = [loop("for_positive", "lessThanOrEqual", upwards)]
        choice["elseBody"] = [loop("for_negative", "greaterThanOrEqual", downwards)]
        return [
            {"type": "let", "name": start, "value": low},
            {"type": "let", "name": end, "value": high},
            {"type": "let", "name": step, "value": by},
            {"type": "let", "name": current, "value": {"$var": start}},
            choice,
        ]

    def _return(self) -> list[dict[str, Any]]:
        steps = self._return_value()
        # as in Lua, a return ends its block: only a ';' may follow it before the block's end
        if self._is(";"):
            self._take()
        if not (self._token.kind == "eof" or any(self._is(e) for e in _BLOCK_ENDS)):
            self._fail(
                "lua.syntax_error",
                f"expected the end of the block after return, found {self._describe()}",
            )
        return steps

    def _return_value(self) -> list[dict[str, Any]]:
        self._take()
        if self._token.kind == "eof" or self._is(";") or any(self._is(e) for e in _BLOCK_ENDS):
            return [{"type": "return", "value": None}]
        host = self._host_name()
        if host is not None:
            return self._host_call(host, target=("return", "return"))
        values = [self._expression()]
        while self._is(","):
            self._take()
            values.append(self._expression())
        return [{"type": "return", "value": values[0] if len(values) == 1 else values}]

    # -- host calls --------------------------------------------------------------------------

    def _arguments(self) -> list[Any]:
        # Lua's call forms: f(...), and f"text" or f{...} with that one argument
        if self._token.kind == "string":
            return [self._take().value]
        if self._is("{"):
            return [self._table()]
        self._expect("(")
        values: list[Any] = []
        while not self._is(")"):
            if self._host_name() is not None:
                self._fail(
                    "lua.unsupported_expression", "host calls cannot be nested in expressions"
                )
            values.append(self._expression())
            if not self._is(","):
                break
            self._take()
        self._expect(")")
        return values

    def _literal_string(self, value: Any, what: str, token: Token) -> str:
        if not isinstance(value, str):
            self._fail("lua.unsupported_expression", f"{what} must be a literal string", token)
        return str(value)

    def _poll_policy(self, policy: Any, token: Token) -> dict[str, Any]:
        """``rb.poll``'s third argument as the mod reads it: a table with a non-empty
        ``condition`` table; ``timeoutMs`` and ``pollIntervalMs``, when given, numbers, kept as
        whole milliseconds; ``timeoutMessage`` trimmed."""
        if not isinstance(policy, dict) or "$var" in policy:
            self._fail("lua.unsupported_expression", "the rb.poll policy must be a table", token)
        condition = policy.get("condition")
        if not isinstance(condition, dict) or not condition:
            self._fail(
                "lua.unsupported_expression",
                "the rb.poll policy needs a non-empty condition table",
                token,
            )
        for key in ("timeoutMs", "pollIntervalMs"):
            value = policy.get(key)
            if value is not None and not isinstance(value, int | float):
                self._fail("lua.compile_error", f"the rb.poll {key} must be a number", token)
            if value is not None:
                policy[key] = round(value)  # whole milliseconds, rounded half to even
        if isinstance(policy.get("timeoutMessage"), str):
            policy["timeoutMessage"] = policy["timeoutMessage"].strip()
        return policy

    def _host_call(self, host: str, target: tuple[str, str] | None) -> list[dict[str, Any]]:
        token = self._token
        self._take()
        if host != "print":
            self._take()
            self._take()
        arguments = self._arguments()
        if host in ("rb.call", "rb.poll"):
            if not arguments:
                self._fail("lua.unsupported_expression", f"{host} needs a capability alias", token)
            alias = self._literal_string(arguments[0], "the capability alias", token)
            call_arguments = arguments[1] if len(arguments) > 1 else None
            if call_arguments == []:
                # {} reads as an empty array; the mod refuses it here, the sim takes it as no
                # arguments (README: the mod's own examples pass {})
                call_arguments = None
            if not isinstance(call_arguments, dict | None):
                self._fail("lua.unsupported_expression", f"{host} arguments must be a table", token)
            step: dict[str, Any] = {"call": alias, "arguments": call_arguments or {}}
            if host == "rb.poll":
                if len(arguments) < 3:
                    self._fail("lua.unsupported_expression", "rb.poll needs a policy table", token)
                step["continueUntil"] = self._poll_policy(arguments[2], token)
            elif len(arguments) > 2:
                self._fail(
                    "lua.unsupported_expression", "rb.call takes at most two arguments", token
                )
            # the id: the variable's name, or return, call or poll, then the script's counter
            step = {"id": self._generated_id(target[0] if target else host[3:]), **step}
            result = [step]
            if target is not None:
                reference = {"$ref": step["id"], "path": ""}
                if target[1] == "return":
                    result.append({"type": "return", "value": reference})
                else:
                    result.append({"type": target[1], "name": target[0], "value": reference})
            return result
        if target is not None:
            self._fail("lua.unsupported_statement", f"{host} returns nothing to assign", token)
        if host == "rb.assert":
            if not 1 <= len(arguments) <= 2:
                self._fail(
                    "lua.unsupported_expression",
                    "rb.assert takes a condition and an optional literal message",
                    token,
                )
            # without a message the runner names the statement ("Assertion '<id>' failed.")
            message = (
                self._literal_string(arguments[1], "the rb.assert message", token)
                if len(arguments) > 1
                else ""
            )
            variable = self._temp("assert_condition")
            return [
                {"type": "let", "name": variable, "value": arguments[0]},
                {"type": "assert", "message": message, "condition": _truthy(variable)},
            ]
        if host == "rb.fail":
            if not 1 <= len(arguments) <= 2:
                self._fail(
                    "lua.unsupported_expression",
                    "rb.fail takes a literal message and an optional value",
                    token,
                )
            message = self._literal_string(arguments[0], "the rb.fail message", token)
            return [
                {
                    "type": "fail",
                    "message": message,
                    "value": arguments[1] if len(arguments) > 1 else None,
                }
            ]
        # print and rb.print are one helper: a lone literal string is the message, a lone
        # expression the value, two arguments a literal message and a value
        if len(arguments) > 2:
            self._fail("lua.unsupported_expression", f"{host} takes at most two arguments", token)
        if len(arguments) == 2:
            label = self._literal_string(arguments[0], f"the first {host} argument", token)
            return [{"type": "print", "message": label, "value": arguments[1]}]
        first: Any = arguments[0] if arguments else None
        if isinstance(first, str):
            return [{"type": "print", "message": first, "value": None}]
        return [{"type": "print", "message": "", "value": first}]


def _identifier(prefix: str) -> str:
    """A name as the mod puts it into an id: letters and digits in lower case, anything else
    an underscore, no underscores at either end (``step`` for a blank one)."""
    if not prefix.strip():
        return "step"
    return "".join(c.lower() if c.isalnum() else "_" for c in prefix.strip()).strip("_")


def _truthy(variable: str) -> dict[str, Any]:
    """The condition "this variable is neither false nor nil", in the script model's form."""
    return {"path": f"vars.{variable}", "notIn": [False, None]}
