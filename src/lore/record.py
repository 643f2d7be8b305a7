"""`Record`: a plain value class, light enough for the recall and hook paths.

`dataclasses` pulls in `inspect` and `ast` (about 10 ms at start-up); the few value
classes that `lore recall` and the hooks need define `__slots__` and `__init__`
and inherit equality and a readable repr from here.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeVar

    R = TypeVar("R", bound="Record")


class Record:
    __slots__: tuple[str, ...] = ()

    def copy(self: R) -> R:
        """A shallow copy: the same values in a new record."""
        new = object.__new__(type(self))
        for name in self.__slots__:
            object.__setattr__(new, name, getattr(self, name))
        return new

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({fields})"

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())
