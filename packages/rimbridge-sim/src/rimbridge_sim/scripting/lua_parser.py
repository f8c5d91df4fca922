"""The token cursor and the expression grammar of the Lua subset (see :mod:`lua_compiler`).

Expressions lower to the condition/value model of :mod:`rimbridge_sim.scripting.expressions`:
literals stay literals, locals become ``{"$var": name}`` references with a static path, and
operators become ``{"$operator": [left, right]}`` nodes.

How deep a source may nest is bounded (:data:`MAX_LEVELS`): every block, sub-expression and
operator of a chain is one level, as each is one level of the lowered script. Lua's own parser
has such a bound (200 "C levels"); the mod's parser has none, and a deep enough source ends
RimWorld's process with a stack overflow. Here it is a ``lua.syntax_error`` at the token where
the bound was passed, so that compiling, running and answering a script that passed never
reaches Python's recursion limit.

So is the size of the lowered script (:data:`MAX_STATEMENTS`). A numeric ``for`` lowers its
body twice, once per direction of its step, as the mod lowers it, so each level of nested
loops doubles what is below it: twenty nested loops in a few hundred characters would lower to
a million statements. The mod builds all of them; here the compiler stops at the bound with a
``lua.compile_error``, after about two seconds of work at most (measured on a 2-core machine).
"""

from __future__ import annotations

from typing import Any, Final, NoReturn

from rimbridge_sim.scripting.lua_lexer import LuaCompileError, Token

__all__ = ["HOST_FUNCTIONS", "MAX_LEVELS", "MAX_STATEMENTS", "ExpressionParser"]

_BINARY: Final = {
    "or": (1, "$or"),
    "and": (2, "$and"),
    "<": (3, "$lessThan"),
    ">": (3, "$greaterThan"),
    "<=": (3, "$lessThanOrEqual"),
    ">=": (3, "$greaterThanOrEqual"),
    "~=": (3, "$notEquals"),
    "==": (3, "$equals"),
    "+": (5, "$add"),
    "-": (5, "$subtract"),
    "*": (6, "$multiply"),
    "/": (6, "$divide"),
    "%": (6, "$mod"),
}
_UNARY_PRIORITY: Final = 7
MAX_LEVELS: Final = 100
"""The deepest a source may nest, counting blocks, sub-expressions and chained operators."""
MAX_STATEMENTS: Final = 20_000
"""The most statements a source may lower to, each copy of a numeric for's body counted (real
scripts lower to tens or hundreds; 20,000 flat statements are 80 KB of source or more)."""
_REFUSED_BINARY: Final = {"..": "string concatenation", "^": "exponentiation"}
HOST_FUNCTIONS: Final = {"rb.call", "rb.poll", "rb.print", "rb.assert", "rb.fail", "print"}
_NOT_A_HOST_CALL: Final = (
    "Only supported rb.* calls and print/ipairs helpers can be used in rimbridge/run_lua v1."
)


class ExpressionParser:
    """Reads tokens and parses expressions; statements are the subclass's business."""

    def __init__(self, tokens: list[Token]) -> None:
        self._tokens = tokens
        self._at = 0
        self._scopes: list[set[str]] = [{"params"}]
        self._levels = 0
        self._statements = 0

    # -- tokens ------------------------------------------------------------------------------

    @property
    def _token(self) -> Token:
        return self._tokens[self._at]

    def _peek(self, offset: int = 1) -> Token:
        return self._tokens[min(self._at + offset, len(self._tokens) - 1)]

    def _is(self, value: str, kind: str | None = None) -> bool:
        token = self._token
        return (
            token.value == value
            and (kind is None or token.kind == kind)
            and token.kind in ("keyword", "symbol")
        )

    def _take(self) -> Token:
        token = self._token
        self._at = min(self._at + 1, len(self._tokens) - 1)
        return token

    def _expect(self, value: str) -> Token:
        if not self._is(value):
            self._fail("lua.syntax_error", f"expected '{value}', found {self._describe()}")
        return self._take()

    def _name(self) -> str:
        token = self._token
        if token.kind != "name":
            self._fail("lua.syntax_error", f"expected a name, found {self._describe()}")
        self._take()
        return str(token.value)

    def _describe(self) -> str:
        token = self._token
        return "the end of the source" if token.kind == "eof" else repr(token.value)

    def _fail(self, code: str, message: str, token: Token | None = None) -> NoReturn:
        where = token or self._token
        raise LuaCompileError(code, message, where.line, where.column)

    def _deeper(self, levels: int = 1) -> None:
        """Go ``levels`` deeper (a negative number comes back up); past the bound, refused."""
        self._levels += levels
        if self._levels > MAX_LEVELS:
            self._fail(
                "lua.syntax_error",
                f"the source nests more than {MAX_LEVELS} levels deep, counting blocks, "
                "sub-expressions and chained operators",
            )

    def _lowered(self) -> None:
        """One more statement in the lowered script; past the bound, refused."""
        self._statements += 1
        if self._statements > MAX_STATEMENTS:
            self._fail(
                "lua.compile_error",
                f"the source lowers to more than {MAX_STATEMENTS} statements (each numeric "
                "for lowers its body twice, so nested loops double what they hold)",
            )

    # -- names -------------------------------------------------------------------------------

    def _declared(self, name: str) -> bool:
        return any(name in scope for scope in self._scopes)

    def _host_name(self) -> str | None:
        token = self._token
        if token.kind != "name":
            return None
        if token.value == "print" and (
            self._peek().value in ("(", "{") or self._peek().kind == "string"
        ):
            return "print"
        if token.value == "rb" and self._peek().value == ".":
            name = f"rb.{self._peek(2).value}"
            if name not in HOST_FUNCTIONS:
                self._fail(
                    "lua.unsupported_expression",
                    f"{name} is not supported in rimbridge/run_lua v1.",
                    self._peek(2),
                )
            return name
        return None

    # -- statements the subset refuses -------------------------------------------------------

    def _refuse_statement(self, name: str, token: Token) -> NoReturn:
        """Refuse a statement that starts with ``name`` (already read at ``token``) and is
        neither a host call nor an assignment to a name, as the mod's lowering refuses it: a
        call of anything else is an unsupported expression, an assignment to a field or to
        several names an unsupported statement, and a name on its own is not Lua."""
        call: Token | None = None
        suffixes = 0
        while True:
            current = self._token
            if self._is("."):
                self._take()
                self._name()
                call = None
            elif self._is("["):
                self._skip_group("[", "]")
                call = None
            elif self._is(":"):
                self._take()
                call = self._token
                self._name()
                self._skip_call_arguments()
            elif self._is("(") or self._is("{") or current.kind == "string":
                call = current
                self._skip_call_arguments()
            else:
                break
            suffixes += 1
        if self._is(","):
            self._fail(
                "lua.unsupported_statement",
                "Multiple-assignment Lua statements are not supported in rimbridge/run_lua v1.",
                token,
            )
        if self._is("=") and suffixes and call is None:
            self._fail(
                "lua.unsupported_statement",
                "Table-field assignment is not supported in rimbridge/run_lua v1.",
                token,
            )
        if call is not None:
            if name == "ipairs" and suffixes == 1:
                self._fail(
                    "lua.unsupported_statement",
                    "Lua 'ipairs' is not supported in rimbridge/run_lua v1.",
                    token,
                )
            self._fail("lua.unsupported_expression", _NOT_A_HOST_CALL, call)
        self._fail(
            "lua.syntax_error",
            f"unexpected {self._describe()} after '{name}': a statement is a call or an assignment",
        )

    def _skip_call_arguments(self) -> None:
        """Step over a call's arguments: ``(...)``, one table constructor or one string."""
        if self._token.kind == "string":
            self._take()
        elif self._is("{"):
            self._skip_group("{", "}")
        else:
            self._skip_group("(", ")")

    def _skip_group(self, opening: str, closing: str) -> None:
        self._expect(opening)
        depth = 1
        while depth:
            if self._token.kind == "eof":
                self._fail("lua.syntax_error", f"expected '{closing}', found {self._describe()}")
            if self._is(opening):
                depth += 1
            elif self._is(closing):
                depth -= 1
            self._take()

    # -- expressions -------------------------------------------------------------------------

    def _expression(self, limit: int = 0) -> Any:
        self._deeper()
        value, chain = self._operations(limit)
        self._deeper(-1 - chain)
        return value

    def _operations(self, limit: int) -> tuple[Any, int]:
        """An operand and the operators that bind tighter than ``limit``, with how many
        levels the chain added (each operator nests the value so far one level deeper)."""
        chain = 0
        token = self._token
        if token.kind == "keyword" and token.value == "not":
            self._take()
            left: Any = {"$not": self._expression(_UNARY_PRIORITY)}
        elif self._is("-"):
            self._take()
            # never folded, not even for a number: MoonSharp keeps -3 a unary minus over 3, so
            # the mod's lowering writes {"$negate": 3} and the runner works it out
            left = {"$negate": self._expression(_UNARY_PRIORITY)}
        elif self._is("#"):
            self._fail(
                "lua.unsupported_expression", "'#' is not supported: the subset has no length"
            )
        else:
            left = self._primary()
        while True:
            op = self._token
            if op.kind not in ("symbol", "keyword") or op.value not in _BINARY:
                if op.kind == "symbol" and op.value in _REFUSED_BINARY:
                    self._fail(
                        "lua.unsupported_expression",
                        f"'{op.value}' is not supported: the subset has no "
                        f"{_REFUSED_BINARY[str(op.value)]}",
                    )
                return left, chain
            priority, operator = _BINARY[str(op.value)]
            if priority <= limit:
                return left, chain
            self._take()
            right = self._expression(priority)
            left = {operator: [left, right]}
            chain += 1
            self._deeper()

    def _primary(self) -> Any:
        token = self._token
        if token.kind in ("number", "string"):
            self._take()
            return token.value
        if token.kind == "keyword" and token.value in ("nil", "true", "false"):
            self._take()
            return {"nil": None, "true": True, "false": False}[str(token.value)]
        if self._is("{"):
            return self._table()
        if token.kind == "keyword" and token.value == "function":
            self._fail("lua.unsupported_expression", "functions are not supported in this subset")
        if self._is("("):
            self._take()
            value = self._expression()
            self._expect(")")
            return value
        if token.kind == "name":
            if self._host_name() is not None or token.value in ("rb", "ipairs"):
                self._fail(
                    "lua.unsupported_expression",
                    "host calls cannot be nested in expressions: assign the call to a local first",
                )
            name = self._name()
            if not self._declared(name):
                self._fail(
                    "lua.unsupported_expression",
                    f"unknown name '{name}' (globals other than params are not supported)",
                    token,
                )
            return self._suffixes({"$var": name})
        self._fail("lua.syntax_error", f"unexpected {self._describe()}")

    def _suffixes(self, base: dict[str, Any]) -> Any:
        path = ""
        while True:
            if self._is("."):
                self._take()
                path += ("." if path else "") + self._name()
            elif self._is("["):
                token = self._take()
                index = self._expression()
                self._expect("]")
                if isinstance(index, bool) or not isinstance(index, int):
                    self._fail(
                        "lua.unsupported_expression",
                        "only static one-based indexes such as names[1] are supported",
                        token,
                    )
                if index < 1:
                    self._fail("lua.unsupported_expression", "indexes start at 1", token)
                path += f"[{index - 1}]"
            elif self._is("(") or self._is(":"):
                self._fail("lua.unsupported_expression", "calling values is not supported")
            else:
                break
        if not path:
            return base
        if base.get("$var") == "params":
            # a parameter nobody passed reads as nil; a path any other local lacks fails the
            # statement, as the mod lowers them
            return {**base, "path": path, "required": False}
        return {**base, "path": path}

    def _table(self) -> Any:
        self._expect("{")
        items: list[Any] = []
        fields: dict[str, Any] = {}
        while not self._is("}"):
            token = self._token
            if token.kind == "name" and self._peek().value == "=" and self._peek().kind == "symbol":
                self._take()
                self._take()
                fields[str(token.value)] = self._expression()
            elif self._is("["):
                self._take()
                key = self._expression()
                self._expect("]")
                self._expect("=")
                fields[self._table_key(key, token)] = self._expression()
            else:
                items.append(self._expression())
            if self._is(",") or self._is(";"):
                self._take()
            else:
                break
        self._expect("}")
        if items and fields:
            self._fail(
                "lua.unsupported_expression", "a table is either an array or an object, not both"
            )
        # an empty constructor is an empty array, as the mod lowers it
        return fields if fields else items

    def _table_key(self, key: Any, token: Token) -> str:
        """A ``[key] = value`` key as the object's field name: a literal string as it is, a
        literal number or boolean as its text (``[1]`` is field ``"1"``), as the mod lowers it."""
        if isinstance(key, str):
            return key
        if isinstance(key, bool):
            return "true" if key else "false"
        if isinstance(key, int):
            return str(key)
        if isinstance(key, float):
            return str(int(key)) if key.is_integer() else repr(key)
        self._fail(
            "lua.unsupported_expression",
            "table keys must be literal strings, numbers or booleans",
            token,
        )
